// SPDX-License-Identifier: Apache-2.0
// Protobuf request bodies (what kubectl >= 1.32's typed clients POST) decoded to the JSON the
// same object would have been sent as, for the kinds in protobuf_schema.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace fakekube::protobuf {

// A well-formed envelope around a kind the schema table does not hold.
class UnknownKind : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// {"apiVersion","kind",...}; throws WireError (malformed, with the byte offset) or UnknownKind.
nlohmann::json decode_object(std::string_view body);

} // namespace fakekube::protobuf
