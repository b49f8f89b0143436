// SPDX-License-Identifier: Apache-2.0
// A reader over protobuf wire format, and the "k8s\0" envelope kubectl wraps its protobuf
// bodies in. Errors name the byte offset in the whole body, so nested readers carry a base.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace fakekube::protobuf {

// A malformed body; `offset` is where in the request body reading stopped.
class WireError : public std::runtime_error {
public:
  WireError(const std::string& what, std::size_t offset)
      : std::runtime_error("protobuf: " + what + " at byte " + std::to_string(offset)),
        m_offset(offset) {}
  std::size_t offset() const { return m_offset; }

private:
  std::size_t m_offset;
};

class Reader {
public:
  explicit Reader(std::string_view bytes, std::size_t base = 0) : m_bytes(bytes), m_base(base) {}

  bool done() const { return m_pos >= m_bytes.size(); }
  // Offset in the whole body of the next unread byte.
  std::size_t offset() const { return m_base + m_pos; }

  std::uint64_t varint() {
    const std::size_t start = offset();
    std::uint64_t value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (done()) {
        throw WireError("truncated varint", start);
      }
      const auto byte = static_cast<unsigned char>(m_bytes[m_pos++]);
      value |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) {
        return value;
      }
    }
    throw WireError("varint longer than 10 bytes", start);
  }

  // A length-delimited field's payload; `payload_offset` receives where it starts.
  std::string_view bytes(std::size_t* payload_offset = nullptr) {
    const std::size_t start = offset();
    const std::uint64_t length = varint();
    if (length > m_bytes.size() - m_pos) {
      throw WireError("field length " + std::to_string(length) + " runs past the end", start);
    }
    if (payload_offset != nullptr) {
      *payload_offset = offset();
    }
    std::string_view out = m_bytes.substr(m_pos, length);
    m_pos += length;
    return out;
  }

  void skip(int wire_type) {
    switch (wire_type) {
    case 0:
      varint();
      break;
    case 1:
      advance(8);
      break;
    case 2:
      bytes();
      break;
    case 5:
      advance(4);
      break;
    default:
      throw WireError("unsupported wire type " + std::to_string(wire_type), offset());
    }
  }

private:
  void advance(std::size_t count) {
    if (count > m_bytes.size() - m_pos) {
      throw WireError("truncated fixed-width field", offset());
    }
    m_pos += count;
  }

  std::string_view m_bytes;
  std::size_t m_base;
  std::size_t m_pos = 0;
};

// One length-delimited field of a message, with where its payload starts in the body.
struct Chunk {
  int field = 0;
  std::string_view bytes;
  std::size_t offset = 0;
};

// Calls visit(Chunk) for each length-delimited field of a message; skips the rest.
template <typename Visit>
void each_field(std::string_view message, std::size_t base, Visit visit) {
  Reader reader(message, base);
  while (!reader.done()) {
    const std::uint64_t tag = reader.varint();
    const int wire_type = static_cast<int>(tag & 7);
    if (wire_type == 2) {
      Chunk chunk;
      chunk.field = static_cast<int>(tag >> 3);
      chunk.bytes = reader.bytes(&chunk.offset);
      visit(chunk);
    } else {
      reader.skip(wire_type);
    }
  }
}

// The runtime.Unknown inside the "k8s\0" envelope (1 typeMeta{1 apiVersion, 2 kind}, 2 raw,
// 3 contentEncoding, 4 contentType).
struct Unknown {
  std::string api_version;
  std::string kind;
  Chunk raw;
};

inline Unknown unwrap(std::string_view body) {
  static constexpr std::string_view k_magic("k8s\0", 4);
  if (body.substr(0, 4) != k_magic) {
    throw WireError("missing the k8s\\0 envelope prefix", 0);
  }
  Unknown unknown;
  each_field(body.substr(4), 4, [&](const Chunk& chunk) {
    if (chunk.field == 1) {
      each_field(chunk.bytes, chunk.offset, [&](const Chunk& type) {
        if (type.field == 1) {
          unknown.api_version = std::string(type.bytes);
        } else if (type.field == 2) {
          unknown.kind = std::string(type.bytes);
        }
      });
    } else if (chunk.field == 2) {
      unknown.raw = chunk;
    }
  });
  return unknown;
}

} // namespace fakekube::protobuf
