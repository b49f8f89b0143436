// SPDX-License-Identifier: Apache-2.0
// Label and field selectors with the real grammar (apimachinery pkg/labels, pkg/fields) and the
// field-selector fields each resource supports.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace fakekube {

struct Requirement {
  enum class Op { equals, not_equals, in, not_in, exists, not_exists, greater, less };
  std::string key;
  Op op = Op::equals;
  std::vector<std::string> values;
};

// ANDed requirements; an empty selector matches everything.
struct Selector {
  std::vector<Requirement> requirements;
  bool empty() const { return requirements.empty(); }
  bool matches(const std::map<std::string, std::string>& values) const;
};

// Parses a labelSelector; throws StatusError 400 with the real parse message on bad input.
Selector parse_label_selector(const std::string& text);
// Parses a fieldSelector (=, ==, != only); throws StatusError 400 on bad syntax.
Selector parse_field_selector(const std::string& text);
// Throws StatusError 400 `field label not supported: <label>` for a field the resource
// (group/plural storage key) does not index.
void check_field_selector(const std::string& resource_key, const Selector& selector);
// The field-selector values of one object of the resource, e.g. pods' spec.nodeName.
std::map<std::string, std::string> selectable_fields(const std::string& resource_key,
                                                     const nlohmann::json& object);

} // namespace fakekube
