// SPDX-License-Identifier: Apache-2.0
// The parsed form of a DRA device selector, private to dra_cel_parse.cpp and dra_cel.cpp.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gpuslice/model/quantity.hpp>

#include "diagnose/dra_cel.hpp"

namespace gpuslice::diagnose::cel {

// ---- values ----------------------------------------------------------------------------------

enum class Kind {
  error, unknown, boolean, integer, string, quantity, version,
  // The device and its maps stay last (structured() relies on it).
  device, attributes, capacity,            // device and its two domain-keyed maps
  domain_attributes, domain_capacity,      // device.attributes[d], device.capacity[d]
};

struct Value {
  Kind kind = Kind::unknown;
  bool boolean = false;
  std::int64_t integer = 0;
  std::string text; // string value, version text, domain of a domain map, or error message
  model::Quantity quantity;
};

inline Value unknown_value() { return {}; }
inline Value error_value(std::string message) { return {Kind::error, false, 0, std::move(message), {}}; }
inline Value bool_value(bool b) { return {Kind::boolean, b, 0, {}, {}}; }
inline Value int_value(std::int64_t i) { return {Kind::integer, false, i, {}, {}}; }
inline Value string_value(std::string s) { return {Kind::string, false, 0, std::move(s), {}}; }
inline Value with_text(Kind kind, std::string_view text) { return {kind, false, 0, std::string(text), {}}; }

// ---- the parsed form ---------------------------------------------------------------------------

enum class Op {
  literal, device, select, index, has, quantity, method, not_, neg, and_, or_, cond,
  eq, ne, lt, le, gt, ge, in, list, unknown,
};

} // namespace gpuslice::diagnose::cel

namespace gpuslice::diagnose {

struct DeviceSelector::Node {
  cel::Op op = cel::Op::unknown;
  cel::Value value; // literal
  std::string name; // select and has: the field; method: its name
  std::vector<std::shared_ptr<const Node>> kids;
};

} // namespace gpuslice::diagnose

namespace gpuslice::diagnose::cel {

using Node = DeviceSelector::Node;
using NodePtr = std::shared_ptr<const Node>;

struct Parsed {
  NodePtr root;
  std::string unsupported; // what DeviceSelector::unsupported() reports
};

// The whole expression; on a syntax error an unknown root, with unsupported set to the text
// from the offending token on. Throws only what allocation throws; `source` must outlive the
// call, not the result.
Parsed parse(std::string_view source);

} // namespace gpuslice::diagnose::cel
