// SPDX-License-Identifier: Apache-2.0
// simdjson's DOM as a document type of model/json_read.hpp, so that the typed records are
// decoded straight from simdjson with the rules the nlohmann values go through (no nlohmann
// value in the middle: building and freeing those was half the cost of loading a snapshot).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <simdjson.h>

#include "model/json_read.hpp"

namespace gpuslice::model::json_read {

template <> struct JsonAccess<simdjson::dom::element> {
  using Element = simdjson::dom::element;
  using Member = std::optional<Element>;
  static Member member(const Element& object, std::string_view key);
  static bool is_object(const Element& value) { return value.type() == simdjson::dom::element_type::OBJECT; }
  static bool is_array(const Element& value) { return value.type() == simdjson::dom::element_type::ARRAY; }
  static std::string text(const Element& value);
  static std::optional<long long> integer(const Element& value);
  static std::optional<bool> boolean(const Element& value);
  static Element object_or_empty(const Member& value);
  static simdjson::dom::array array_or_empty(const Member& value);
  template <class F> static void for_each_member(const Element& object, F&& f) {
    for (simdjson::dom::key_value_pair pair : simdjson::dom::object(object)) f(pair.key, pair.value);
  }
};

} // namespace gpuslice::model::json_read
