// SPDX-License-Identifier: Apache-2.0
// DRA device selectors, evaluation: DeviceSelector's parsed tree evaluated against one device.
#include "diagnose/dra_cel.hpp"

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "diagnose/dra_cel_syntax.hpp"

namespace gpuslice::diagnose {

namespace cel {
namespace {

// ---- values ----------------------------------------------------------------------------------

bool is_basic(Kind k) { return k == Kind::boolean || k == Kind::integer || k == Kind::string; }
bool opaque(Kind k) { return k == Kind::quantity || k == Kind::version; }
bool structured(Kind k) { return k >= Kind::device; } // the device and its maps
bool is_map(Kind k) {
  return k == Kind::attributes || k == Kind::capacity || k == Kind::domain_attributes ||
         k == Kind::domain_capacity;
}
// An error or unknown operand decides the result of most operators; errors first, as in CEL.
const Value* undecided(const Value& a, const Value& b) {
  if (a.kind == Kind::error) return &a;
  if (b.kind == Kind::error) return &b;
  if (a.kind == Kind::unknown) return &a;
  if (b.kind == Kind::unknown) return &b;
  return nullptr;
}

// ---- evaluation --------------------------------------------------------------------------------

// CEL's semantics as DRA sets them up (k8s.io/dynamic-resource-allocation/cel/compile.go):
//  - device.attributes[domain] and device.capacity[domain] give an empty map for a domain the
//    device does not have, and unqualified attribute names belong to the driver's domain;
//  - a missing key inside a domain is a runtime error ("no such key"), as is an ordering across
//    types; && and || absorb errors (false && error is false), other operators pass them on;
//  - == and != across types are false/true (cel-go's heterogeneous equality).
// Our own "unknown" (a part we do not implement) is absorbed the same way errors are, so
// false && unknown is false and true || unknown is true.

struct Input {
  std::string_view driver;
  const model::Device& device;
};

// (domain, id) of a published name; unqualified names belong to the driver (parseQualifiedName).
std::pair<std::string_view, std::string_view> qualified(std::string_view name, std::string_view driver) {
  const std::size_t slash = name.find('/');
  if (slash == std::string_view::npos) return {driver, name};
  return {name.substr(0, slash), name.substr(slash + 1)};
}

Value attribute_value(const model::DeviceAttribute& a) {
  if (a.type == "string") return string_value(a.value);
  if (a.type == "version") return with_text(Kind::version, a.value);
  if (a.type == "bool" && (a.value == "true" || a.value == "false")) return bool_value(a.value == "true");
  std::int64_t i = 0;
  const char* end = a.value.data() + a.value.size();
  if (a.type == "int" && std::from_chars(a.value.data(), end, i).ptr == end && !a.value.empty())
    return int_value(i);
  return unknown_value(); // a type or text we cannot read
}

// map[key] and map.key. Outer maps give an empty domain map for any key; a domain map without
// the key is CEL's "no such key" error.
Value lookup(const Value& map, std::string_view key, const Input& in) {
  switch (map.kind) {
  case Kind::error:
  case Kind::unknown: return map;
  case Kind::attributes: return with_text(Kind::domain_attributes, key);
  case Kind::capacity: return with_text(Kind::domain_capacity, key);
  case Kind::domain_attributes:
    for (const model::DeviceAttribute& a : in.device.attributes)
      if (qualified(a.name, in.driver) == std::pair{std::string_view(map.text), key}) return attribute_value(a);
    break;
  case Kind::domain_capacity:
    for (const auto& [name, quantity] : in.device.capacity) {
      if (qualified(name, in.driver) == std::pair{std::string_view(map.text), key})
        return Value{Kind::quantity, false, 0, {}, quantity};
    }
    break;
  case Kind::device:
    if (key == "driver") return string_value(std::string(in.driver));
    if (key == "attributes") return Value{Kind::attributes, false, 0, {}, {}};
    if (key == "capacity") return Value{Kind::capacity, false, 0, {}, {}};
    return unknown_value();
  default: return error_value("no such key: " + std::string(key));
  }
  return error_value("no such key: " + std::string(key));
}

// `key in map` and has(map.key): real presence (cel-go's Contains), also for the outer maps.
Value present(const Value& map, std::string_view key, const Input& in) {
  if (map.kind == Kind::attributes || map.kind == Kind::domain_attributes) {
    for (const model::DeviceAttribute& a : in.device.attributes) {
      const auto [domain, id] = qualified(a.name, in.driver);
      if (map.kind == Kind::attributes ? domain == key : domain == map.text && id == key) return bool_value(true);
    }
    return bool_value(false);
  }
  if (map.kind == Kind::capacity || map.kind == Kind::domain_capacity) {
    for (const auto& entry : in.device.capacity) {
      const auto [domain, id] = qualified(entry.first, in.driver);
      if (map.kind == Kind::capacity ? domain == key : domain == map.text && id == key) return bool_value(true);
    }
    return bool_value(false);
  }
  if (map.kind == Kind::device) return bool_value(true); // driver, attributes, capacity
  return map.kind == Kind::error ? map : unknown_value();
}

Value equal(const Value& a, const Value& b) {
  if (const Value* u = undecided(a, b)) return *u;
  if (a.kind == b.kind) {
    switch (a.kind) {
    case Kind::boolean: return bool_value(a.boolean == b.boolean);
    case Kind::integer: return bool_value(a.integer == b.integer);
    case Kind::string: return bool_value(a.text == b.text);
    case Kind::quantity: return bool_value(a.quantity == b.quantity);
    default: return unknown_value(); // versions and maps
    }
  }
  // Heterogeneous equality: values of different types are simply not equal, except that the
  // quantity (and semver) types raise "no such overload" for another type, which we leave open.
  if (opaque(a.kind) || opaque(b.kind) || (structured(a.kind) && structured(b.kind))) return unknown_value();
  return bool_value(false);
}

Value order(Op op, const Value& a, const Value& b) {
  if (const Value* u = undecided(a, b)) return *u;
  // CEL orders ints, strings and bools only; whether quantity and semver have < we leave open.
  if (a.kind != b.kind || !is_basic(a.kind))
    return opaque(a.kind) || opaque(b.kind) ? unknown_value() : error_value("no such overload");
  const int c = a.kind == Kind::integer ? (a.integer > b.integer) - (a.integer < b.integer)
                : a.kind == Kind::string ? a.text.compare(b.text)
                                         : int(a.boolean) - int(b.boolean);
  switch (op) {
  case Op::lt: return bool_value(c < 0);
  case Op::le: return bool_value(c <= 0);
  case Op::gt: return bool_value(c > 0);
  default: return bool_value(c >= 0);
  }
}

// && (absorbing = false) and || (absorbing = true), commutative as in CEL.
Value logic(const Value& a, const Value& b, bool absorbing) {
  const auto is = [](const Value& v, bool x) { return v.kind == Kind::boolean && v.boolean == x; };
  if (is(a, absorbing) || is(b, absorbing)) return bool_value(absorbing);
  if (a.kind == Kind::unknown || b.kind == Kind::unknown) return unknown_value();
  if (a.kind == Kind::error) return a;
  if (b.kind == Kind::error) return b;
  if (a.kind != Kind::boolean || b.kind != Kind::boolean) return error_value("no such overload");
  return bool_value(!absorbing);
}

Value method(const std::string& name, const Value& target, const Value& arg) {
  if (const Value* u = undecided(target, arg)) return *u;
  if (name == "startsWith" || name == "endsWith" || name == "contains") {
    if (target.kind != Kind::string || arg.kind != Kind::string) return error_value("no such overload");
    const std::string& s = target.text;
    const std::string& x = arg.text;
    if (name == "contains") return bool_value(s.find(x) != std::string::npos);
    if (name == "startsWith") return bool_value(s.compare(0, x.size(), x) == 0);
    return bool_value(s.size() >= x.size() && s.compare(s.size() - x.size(), x.size(), x) == 0);
  }
  // compareTo, isGreaterThan, isLessThan: the Kubernetes quantity (and semver) library.
  if (target.kind != Kind::quantity || arg.kind != Kind::quantity)
    return is_basic(target.kind) ? error_value("no such overload") : unknown_value(); // versions: unknown
  const int c = (target.quantity > arg.quantity) - (target.quantity < arg.quantity);
  if (name == "compareTo") return int_value(c);
  return bool_value(name == "isGreaterThan" ? c > 0 : c < 0);
}

Value eval(const Node& n, const Input& in) {
  const auto kid = [&](std::size_t i) { return eval(*n.kids[i], in); };
  switch (n.op) {
  case Op::literal: return n.value;
  case Op::device: return Value{Kind::device, false, 0, {}, {}};
  case Op::select: return lookup(kid(0), n.name, in);
  case Op::index: {
    const Value map = kid(0);
    const Value key = kid(1);
    if (const Value* u = undecided(map, key)) return *u;
    if (key.kind != Kind::string) return is_map(map.kind) ? error_value("no such key") : unknown_value();
    return lookup(map, key.text, in);
  }
  case Op::has: {
    // The outer maps answer every lookup (with an empty map), so whether has() on them sees
    // presence or that default depends on cel-go internals: left open.
    const Value map = kid(0);
    return map.kind == Kind::attributes || map.kind == Kind::capacity ? unknown_value()
                                                                      : present(map, n.name, in);
  }
  case Op::quantity: {
    const Value arg = kid(0);
    if (arg.kind != Kind::string) return arg.kind == Kind::error ? arg : unknown_value();
    const std::optional<model::Quantity> q = model::Quantity::parse(arg.text);
    if (!q) return unknown_value(); // bad syntax, or beyond the int64 milli range we hold
    return Value{Kind::quantity, false, 0, {}, *q};
  }
  case Op::method: return method(n.name, kid(0), kid(1));
  case Op::not_: {
    const Value v = kid(0);
    if (v.kind == Kind::boolean) return bool_value(!v.boolean);
    return v.kind == Kind::error || v.kind == Kind::unknown ? v : error_value("no such overload");
  }
  case Op::neg: {
    const Value v = kid(0);
    if (v.kind == Kind::integer && v.integer != std::numeric_limits<std::int64_t>::min())
      return int_value(-v.integer);
    return v.kind == Kind::error || v.kind == Kind::unknown ? v : error_value("no such overload");
  }
  case Op::and_:
  case Op::or_: {
    const bool absorbing = n.op == Op::or_;
    const Value a = kid(0);
    if (a.kind == Kind::boolean && a.boolean == absorbing) return a;
    return logic(a, kid(1), absorbing);
  }
  case Op::cond: {
    const Value c = kid(0);
    if (c.kind == Kind::boolean) return kid(c.boolean ? 1 : 2);
    if (c.kind != Kind::unknown) return c.kind == Kind::error ? c : error_value("no such overload");
    const Value yes = kid(1);
    const Value no = kid(2);
    const Value same = equal(yes, no);
    return same.kind == Kind::boolean && same.boolean ? yes : unknown_value();
  }
  case Op::eq: return equal(kid(0), kid(1));
  case Op::ne: {
    Value v = equal(kid(0), kid(1));
    if (v.kind == Kind::boolean) v.boolean = !v.boolean;
    return v;
  }
  case Op::lt:
  case Op::le:
  case Op::gt:
  case Op::ge: return order(n.op, kid(0), kid(1));
  case Op::in: {
    const Value needle = kid(0);
    if (n.kids[1]->op == Op::list) {
      Value found = bool_value(false);
      for (const NodePtr& item : n.kids[1]->kids) found = logic(found, equal(needle, eval(*item, in)), true);
      return found;
    }
    const Value map = kid(1);
    if (const Value* u = undecided(needle, map)) return *u;
    if (!is_map(map.kind)) return error_value("no such overload");
    return needle.kind == Kind::string ? present(map, needle.text, in) : bool_value(false);
  }
  case Op::list:
  case Op::unknown: return unknown_value();
  }
  return unknown_value();
}

} // namespace
} // namespace cel

DeviceSelector DeviceSelector::parse(std::string_view expression) {
  DeviceSelector s;
  try {
    s.m_expression = std::string(expression);
    cel::Parsed parsed = cel::parse(s.m_expression);
    s.m_root = std::move(parsed.root);
    s.m_unsupported = std::move(parsed.unsupported);
  } catch (const std::exception&) { // only allocation can fail; keep the promise not to throw
    s.m_root = nullptr;
    s.m_unsupported = "(out of memory)"; // fits the small-string buffer: no allocation
  }
  return s;
}

CelOutcome DeviceSelector::evaluate(std::string_view driver, const model::Device& device) const {
  if (!m_root) return {};
  try {
    const cel::Value v = cel::eval(*m_root, cel::Input{driver, device});
    switch (v.kind) {
    case cel::Kind::boolean: return {v.boolean ? CelResult::match : CelResult::no_match, {}};
    case cel::Kind::unknown: return {};
    case cel::Kind::error: return {CelResult::no_match, v.text};
    default: return {CelResult::no_match, "the expression does not evaluate to a bool"};
    }
  } catch (const std::exception&) {
    return {};
  }
}

CelResult DeviceSelector::matches(std::string_view driver, const model::Device& device) const {
  return evaluate(driver, device).result;
}

} // namespace gpuslice::diagnose
