// SPDX-License-Identifier: Apache-2.0
// Label selectors (metav1.LabelSelector and the --selector string syntax), nodeSelector and
// required node affinity, matched exactly as Kubernetes does.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include <gpuslice/model/string_map.hpp>

namespace gpuslice::model {


// The operators of label-selector and node-selector requirements.
enum class SelectorOp { in, not_in, exists, does_not_exist, gt, lt };

// One requirement: key, operator, values (empty for exists / does_not_exist; one integer for gt/lt).
struct Requirement {
  std::string key;
  SelectorOp op = SelectorOp::exists;
  std::vector<std::string> values;
  bool operator==(const Requirement&) const = default;
};

// A label selector: requirements ANDed. An empty selector matches everything; a missing
// (nullopt) selector is "select nothing" in the API and callers must decide that themselves.
struct LabelSelector {
  std::vector<Requirement> requirements;
  bool operator==(const LabelSelector&) const = default;
};

// Result of parsing user or API input: a value, or an error text saying what is wrong.
template <class T> struct Parsed {
  std::optional<T> value;
  std::string error;
  explicit operator bool() const { return value.has_value(); }
};

// Whether one requirement holds for `labels` (NotIn and DoesNotExist hold for a missing key;
// Gt/Lt need the label to parse as an integer).
bool requirement_matches(const Requirement& requirement, const StringMap& labels);
// Whether every requirement of `selector` holds for `labels`.
bool selector_matches(const LabelSelector& selector, const StringMap& labels);

// Parses metav1.LabelSelector JSON ({matchLabels, matchExpressions}); error names the bad part.
Parsed<LabelSelector> parse_label_selector(const nlohmann::json& selector);
// Parses the string syntax of --selector / labelSelector=: "a=b,c!=d,e in (f,g),h notin (i),j,!k,l>3".
Parsed<LabelSelector> parse_selector_string(std::string_view text);
// Renders a selector in the string syntax (what parse_selector_string reads back).
std::string to_selector_string(const LabelSelector& selector);
// The metav1.LabelSelector JSON of a selector (matchExpressions only, plus matchLabels for In of one value).
nlohmann::json label_selector_json(const LabelSelector& selector);

// One term of a NodeSelector: label expressions and field expressions, all ANDed.
struct NodeSelectorTerm {
  std::vector<Requirement> match_expressions;
  std::vector<Requirement> match_fields; // only metadata.name is defined
  bool operator==(const NodeSelectorTerm&) const = default;
};

// requiredDuringSchedulingIgnoredDuringExecution: terms ORed. No terms matches no node.
struct NodeSelector {
  std::vector<NodeSelectorTerm> terms;
  bool operator==(const NodeSelector&) const = default;
};

// Parses a core/v1 NodeSelector ({nodeSelectorTerms: […]}); error names the bad part.
Parsed<NodeSelector> parse_node_selector(const nlohmann::json& selector);
// The core/v1 JSON of a NodeSelector.
nlohmann::json node_selector_json(const NodeSelector& selector);

// Whether a node with `node_name` and `node_labels` satisfies the selector (a term with no
// expressions and no fields matches nothing, as in the scheduler).
bool node_selector_matches(const NodeSelector& selector, std::string_view node_name,
                           const StringMap& node_labels);
// Whether every key/value of a pod's spec.nodeSelector is among the node's labels.
bool node_labels_match(const StringMap& node_selector, const StringMap& node_labels);

} // namespace gpuslice::model
