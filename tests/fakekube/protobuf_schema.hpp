// SPDX-License-Identifier: Apache-2.0
// The protobuf schemas of the kinds kubectl's generators (`kubectl create configmap`, …) send:
// field numbers from k8s.io/api and apimachinery's generated.proto, mapped to JSON names.
#pragma once

#include <span>
#include <string_view>

namespace fakekube::protobuf {

enum class FieldKind {
  String,
  Int,         // int32/int64 varint
  Bool,
  Bytes,       // base64 in JSON
  Message,     // `message` names its schema
  StringMap,   // map<string,string>
  BytesMap,    // map<string,bytes>, values base64 in JSON
  QuantityMap, // map<string,Quantity>
  Quantity,    // resource.Quantity {1 string}
  Time,        // meta/v1 Time {1 seconds, 2 nanos}, RFC 3339 in JSON
  IntOrString, // {1 type, 2 intVal, 3 strVal}
};

struct FieldSpec {
  int number;
  std::string_view json;
  FieldKind kind;
  bool repeated = false;
  std::string_view message = {};
  // Pointer fields (and JSON fields without omitempty) keep a zero value; the rest are
  // omitted when zero, as the JSON encoding omits them.
  bool keep_zero = false;
};

// The fields of a message, or an empty span for an unknown message name.
std::span<const FieldSpec> message_fields(std::string_view message);
// The top-level message of a kind (by "apiVersion" and "kind"), or "" when not in the table.
std::string_view kind_message(std::string_view api_version, std::string_view kind);

} // namespace fakekube::protobuf
