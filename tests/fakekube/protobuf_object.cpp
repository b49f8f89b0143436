// SPDX-License-Identifier: Apache-2.0
#include "protobuf_object.hpp"

#include <cstdint>
#include <ctime>

#include <fmt/format.h>

#include "auth.hpp"
#include "protobuf_schema.hpp"
#include "protobuf_wire.hpp"

namespace fakekube::protobuf {
namespace {

using nlohmann::json;

json decode_message(std::string_view message, std::string_view bytes, std::size_t base);

bool wants_varint(FieldKind kind) { return kind == FieldKind::Int || kind == FieldKind::Bool; }

std::string text(std::string_view bytes) { return std::string(bytes); }

// The string in field 1 of a message (resource.Quantity's only field).
std::string first_string(std::string_view bytes, std::size_t base) {
  std::string out;
  each_field(bytes, base, [&](const Chunk& chunk) {
    if (chunk.field == 1) {
      out = text(chunk.bytes);
    }
  });
  return out;
}

// Varint fields 1.. of a small message, by number (Time, IntOrString's type and intVal).
template <std::size_t N>
void read_varints(std::string_view bytes, std::size_t base, std::array<std::int64_t, N>& out,
                  std::string* string_field_3 = nullptr) {
  Reader reader(bytes, base);
  while (!reader.done()) {
    const std::uint64_t tag = reader.varint();
    const auto number = static_cast<std::size_t>(tag >> 3);
    const int wire_type = static_cast<int>(tag & 7);
    if (wire_type == 0 && number >= 1 && number <= N) {
      out[number - 1] = static_cast<std::int64_t>(reader.varint());
    } else if (wire_type == 2 && number == 3 && string_field_3 != nullptr) {
      *string_field_3 = text(reader.bytes());
    } else {
      reader.skip(wire_type);
    }
  }
}

// meta/v1 Time as Go's RFC 3339 (seconds precision, as metav1.Time marshals); null when zero.
json time_value(std::string_view bytes, std::size_t base) {
  std::array<std::int64_t, 2> parts{};
  read_varints(bytes, base, parts);
  if (parts[0] == 0 && parts[1] == 0) {
    return nullptr;
  }
  const auto seconds = static_cast<std::time_t>(parts[0]);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", utc.tm_year + 1900, utc.tm_mon + 1,
                     utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec);
}

// intstr.IntOrString: 1 type (0 int, 1 string), 2 intVal, 3 strVal.
json int_or_string(std::string_view bytes, std::size_t base) {
  std::array<std::int64_t, 2> parts{};
  std::string str;
  read_varints(bytes, base, parts, &str);
  if (parts[0] == 1) {
    return str;
  }
  return static_cast<std::int32_t>(parts[1]);
}

// A map entry (1 key, 2 value) into `map`.
void map_entry(const FieldSpec& spec, const Chunk& entry, json& map) {
  std::string key;
  json value = spec.kind == FieldKind::QuantityMap ? json("0") : json("");
  each_field(entry.bytes, entry.offset, [&](const Chunk& part) {
    if (part.field == 1) {
      key = text(part.bytes);
    } else if (part.field == 2) {
      if (spec.kind == FieldKind::StringMap) {
        value = text(part.bytes);
      } else if (spec.kind == FieldKind::BytesMap) {
        value = encode_base64(text(part.bytes));
      } else {
        value = first_string(part.bytes, part.offset);
      }
    }
  });
  map[key] = std::move(value);
}

bool is_zero(const json& value) {
  return value.is_null() || (value.is_string() && value.get_ref<const std::string&>().empty()) ||
         (value.is_number_integer() && value.get<std::int64_t>() == 0) ||
         (value.is_boolean() && !value.get<bool>());
}

json length_delimited_value(const FieldSpec& spec, const Chunk& chunk) {
  switch (spec.kind) {
  case FieldKind::Bytes:
    return encode_base64(text(chunk.bytes));
  case FieldKind::Message:
    return decode_message(spec.message, chunk.bytes, chunk.offset);
  case FieldKind::Quantity:
    return first_string(chunk.bytes, chunk.offset);
  case FieldKind::Time:
    return time_value(chunk.bytes, chunk.offset);
  case FieldKind::IntOrString:
    return int_or_string(chunk.bytes, chunk.offset);
  default:
    return text(chunk.bytes);
  }
}

const FieldSpec* find_field(std::span<const FieldSpec> fields, int number) {
  for (const FieldSpec& spec : fields) {
    if (spec.number == number) {
      return &spec;
    }
  }
  return nullptr;
}

json decode_message(std::string_view message, std::string_view bytes, std::size_t base) {
  const std::span<const FieldSpec> fields = message_fields(message);
  json out = json::object();
  Reader reader(bytes, base);
  while (!reader.done()) {
    const std::size_t tag_offset = reader.offset();
    const std::uint64_t tag = reader.varint();
    const int number = static_cast<int>(tag >> 3);
    const int wire_type = static_cast<int>(tag & 7);
    const FieldSpec* spec = find_field(fields, number);
    if (spec == nullptr) {
      reader.skip(wire_type); // unknown field numbers are skipped, as proto readers do
      continue;
    }
    if (wire_type != (wants_varint(spec->kind) ? 0 : 2)) {
      throw WireError(fmt::format("{}.{} (field {}) has wire type {}", message, spec->json, number,
                                  wire_type),
                      tag_offset);
    }
    const std::string key(spec->json);
    json value;
    if (spec->kind == FieldKind::Int) {
      value = static_cast<std::int64_t>(reader.varint());
    } else if (spec->kind == FieldKind::Bool) {
      value = reader.varint() != 0;
    } else {
      Chunk chunk;
      chunk.field = number;
      chunk.bytes = reader.bytes(&chunk.offset);
      if (spec->kind == FieldKind::StringMap || spec->kind == FieldKind::BytesMap ||
          spec->kind == FieldKind::QuantityMap) {
        map_entry(*spec, chunk, out[key]);
        continue;
      }
      value = length_delimited_value(*spec, chunk);
    }
    if (spec->repeated) {
      out[key].push_back(std::move(value));
    } else if (spec->keep_zero || !is_zero(value)) {
      out[key] = std::move(value);
    } else {
      out.erase(key);
    }
  }
  return out;
}

} // namespace

json decode_object(std::string_view body) {
  const Unknown unknown = unwrap(body);
  const std::string_view message = kind_message(unknown.api_version, unknown.kind);
  if (message.empty()) {
    throw UnknownKind(fmt::format("fakekube decodes no protobuf schema for {} {}; send it as "
                                  "application/json",
                                  unknown.api_version.empty() ? "(no apiVersion)" : unknown.api_version,
                                  unknown.kind.empty() ? "(no kind)" : unknown.kind));
  }
  json object = {{"apiVersion", unknown.api_version}, {"kind", unknown.kind}};
  object.update(decode_message(message, unknown.raw.bytes, unknown.raw.offset));
  return object;
}

} // namespace fakekube::protobuf
