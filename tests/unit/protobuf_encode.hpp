// SPDX-License-Identifier: Apache-2.0
// Protobuf wire encoding for hand-built request bodies in fakekube's tests.
#pragma once

#include <cstdint>
#include <string>

namespace fakekube_test {

inline std::string pb_varint(std::uint64_t value) {
  std::string out;
  while (value >= 0x80) {
    out += static_cast<char>((value & 0x7f) | 0x80);
    value >>= 7;
  }
  out += static_cast<char>(value);
  return out;
}

// A length-delimited field (strings, bytes, messages, map entries).
inline std::string pb_bytes(int number, const std::string& bytes) {
  return pb_varint(static_cast<std::uint64_t>(number) << 3 | 2) + pb_varint(bytes.size()) + bytes;
}

// A varint field (int32/int64/bool).
inline std::string pb_int(int number, std::uint64_t value) {
  return pb_varint(static_cast<std::uint64_t>(number) << 3) + pb_varint(value);
}

} // namespace fakekube_test
