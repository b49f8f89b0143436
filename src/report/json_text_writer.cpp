// SPDX-License-Identifier: Apache-2.0
// The layout and escaping follow nlohmann's serializer (dump(2), ensure_ascii off): ": " after
// keys, "," at line ends, empty containers as {} and [], the seven short escapes, \u00xx in
// lower-case hex for other control characters, every other byte as it is.
#include "report/json_text_writer.hpp"

#include <charconv>
#include <cstdint>
#include <cstring>

namespace gpuslice::report {

namespace {

// Held text is handed to the sink in pieces about this size.
constexpr std::size_t k_chunk = 64 * 1024;

} // namespace

bool valid_utf8(std::string_view text) {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const unsigned char* end = p + text.size();
  while (p < end) {
    // Eight ASCII bytes at a time: nearly all of a report is ASCII.
    if (end - p >= 8) {
      std::uint64_t word;
      std::memcpy(&word, p, sizeof word);
      if ((word & 0x8080808080808080ULL) == 0) {
        p += 8;
        continue;
      }
    }
    const unsigned char c = *p;
    if (c < 0x80) {
      ++p;
      continue;
    }
    int extra = 0;
    unsigned char low = 0x80;
    unsigned char high = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
      extra = 1;
    } else if (c >= 0xE0 && c <= 0xEF) {
      extra = 2;
      if (c == 0xE0) low = 0xA0;
      if (c == 0xED) high = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      extra = 3;
      if (c == 0xF0) low = 0x90;
      if (c == 0xF4) high = 0x8F;
    } else {
      return false;
    }
    if (end - p <= extra) return false;
    if (p[1] < low || p[1] > high) return false;
    for (int i = 2; i <= extra; ++i) {
      if (p[i] < 0x80 || p[i] > 0xBF) return false;
    }
    p += extra + 1;
  }
  return true;
}

void JsonTextWriter::flush() {
  if (!m_sink || m_out.empty()) return;
  m_sink->write(m_out.data(), static_cast<std::streamsize>(m_out.size()));
  m_out.clear();
}

void JsonTextWriter::newline_indent() {
  m_out += '\n';
  m_out.append(2 * m_has_member.size(), ' ');
}

void JsonTextWriter::before_value() {
  if (m_after_key || m_has_member.empty()) {
    m_after_key = false;
    return;
  }
  if (m_has_member.back()) m_out += ',';
  m_has_member.back() = true;
  newline_indent();
}

void JsonTextWriter::open(char bracket) {
  before_value();
  m_out += bracket;
  m_has_member.push_back(false);
}

void JsonTextWriter::close(char bracket) {
  const bool had_member = m_has_member.back();
  m_has_member.pop_back();
  if (had_member) newline_indent();
  m_out += bracket;
  if (m_out.size() >= k_chunk) flush();
}

void JsonTextWriter::key(std::string_view name) {
  if (m_has_member.back()) m_out += ',';
  m_has_member.back() = true;
  newline_indent();
  quoted(name);
  m_out += ": ";
  m_after_key = true;
}

void JsonTextWriter::string(std::string_view text) {
  before_value();
  quoted(text);
}

void JsonTextWriter::integer(long long value) {
  before_value();
  char digits[24];
  const std::to_chars_result end = std::to_chars(digits, digits + sizeof digits, value);
  m_out.append(digits, end.ptr);
}

void JsonTextWriter::boolean(bool value) {
  before_value();
  m_out += value ? "true" : "false";
}

void JsonTextWriter::strings(const std::vector<std::string>& items) {
  begin_array();
  for (const std::string& item : items) string(item);
  end_array();
}

void JsonTextWriter::quoted(std::string_view text) {
  if (!valid_utf8(text)) throw InvalidUtf8{};
  m_out += '"';
  std::size_t plain = 0; // start of the bytes not yet copied
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    m_out.append(text.data() + plain, i - plain);
    plain = i + 1;
    switch (c) {
    case '"': m_out += "\\\""; break;
    case '\\': m_out += "\\\\"; break;
    case '\b': m_out += "\\b"; break;
    case '\f': m_out += "\\f"; break;
    case '\n': m_out += "\\n"; break;
    case '\r': m_out += "\\r"; break;
    case '\t': m_out += "\\t"; break;
    default: {
      static constexpr char k_hex[] = "0123456789abcdef";
      const char escaped[] = {'\\', 'u', '0', '0', k_hex[c >> 4], k_hex[c & 0xF]};
      m_out.append(escaped, sizeof escaped);
    }
    }
  }
  m_out.append(text.data() + plain, text.size() - plain);
  m_out += '"';
}

nlohmann::ordered_json& JsonTreeBuilder::put(nlohmann::ordered_json value) {
  if (m_stack.empty()) {
    m_root = std::move(value);
    return m_root;
  }
  nlohmann::ordered_json& parent = *m_stack.back();
  if (parent.is_array()) {
    parent.push_back(std::move(value));
    return parent.back();
  }
  return parent[m_key] = std::move(value);
}

} // namespace gpuslice::report
