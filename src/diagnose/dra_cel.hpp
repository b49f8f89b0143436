// SPDX-License-Identifier: Apache-2.0
// A small evaluator for the CEL expressions Dynamic Resource Allocation selects devices with
// (DeviceClass spec.selectors[].cel.expression and a request's selectors), so diagnosis can say
// which devices of a ResourceSlice a request could use. It understands the common forms and says
// "unknown" for the rest instead of guessing.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include <gpuslice/model/dra.hpp>

namespace gpuslice::diagnose {

enum class CelResult { match, no_match, unknown };

// What evaluating a selector against one device gave.
struct CelOutcome {
  CelResult result = CelResult::unknown;
  // The runtime error real CEL raises for this device, e.g. "no such key: productName" when
  // an attribute is absent; "" when none. Such a device is no_match here, but the scheduler
  // aborts the whole allocation attempt on it ("CEL runtime error"), so callers may report it.
  std::string error;
};

// A device selector's CEL expression, parsed once and evaluated per device. Copies share the
// parsed form, which never changes.
class DeviceSelector {
public:
  // Never throws: what it cannot parse or evaluate is kept, and matches() says unknown for it.
  static DeviceSelector parse(std::string_view expression);

  // Whether the device published by `driver` satisfies the expression. unknown when the
  // answer hangs on a part this evaluator does not implement (see unsupported()) or on a
  // value it cannot compare (version attributes). Never throws.
  CelResult matches(std::string_view driver, const model::Device& device) const;
  // matches() with the runtime error, if any. Never throws.
  CelOutcome evaluate(std::string_view driver, const model::Device& device) const;

  // "" when every part is understood; else the first part beyond this evaluator, verbatim
  // (a function call, an operator with its operands, or the text from a syntax error on).
  const std::string& unsupported() const { return m_unsupported; }
  const std::string& expression() const { return m_expression; }

  struct Node; // the parsed form, private to dra_cel_syntax.hpp

private:
  std::string m_expression;
  std::string m_unsupported;
  std::shared_ptr<const Node> m_root;
};

} // namespace gpuslice::diagnose
