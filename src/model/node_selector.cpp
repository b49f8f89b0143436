// SPDX-License-Identifier: Apache-2.0
// Required node affinity (core/v1 NodeSelector), matched like the scheduler's NodeAffinity
// plugin (k8s.io/component-helpers/scheduling/corev1/nodeaffinity).
#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <gpuslice/model/json_fields.hpp>
#include <gpuslice/model/labels.hpp>

#include "decode.hpp"
#include "requirement.hpp"

namespace gpuslice::model {
namespace {

constexpr std::string_view k_field_name = "metadata.name";

bool term_matches(const NodeSelectorTerm& term, std::string_view node_name, const StringMap& node_labels) {
  // An empty term selects nothing (nodeSelectorRequirementsAsSelector returns Nothing()).
  if (term.match_expressions.empty() && term.match_fields.empty()) return false;
  for (const Requirement& r : term.match_expressions)
    if (!requirement_matches(r, node_labels)) return false;
  StringMap fields{{std::string(k_field_name), std::string(node_name)}};
  for (const Requirement& r : term.match_fields) {
    // Only metadata.name is a node field the scheduler knows; others match no node.
    if (r.key != k_field_name || !requirement_matches(r, fields)) return false;
  }
  return true;
}

} // namespace

Parsed<NodeSelector> parse_node_selector(const nlohmann::json& selector) { return decode::node_selector(selector); }

nlohmann::json node_selector_json(const NodeSelector& selector) {
  nlohmann::json terms = nlohmann::json::array();
  for (const NodeSelectorTerm& term : selector.terms) {
    nlohmann::json out = nlohmann::json::object();
    for (const Requirement& r : term.match_expressions) out["matchExpressions"].push_back(requirement_json(r));
    for (const Requirement& r : term.match_fields) out["matchFields"].push_back(requirement_json(r));
    terms.push_back(std::move(out));
  }
  return {{"nodeSelectorTerms", terms}};
}

bool node_selector_matches(const NodeSelector& selector, std::string_view node_name, const StringMap& node_labels) {
  return std::any_of(selector.terms.begin(), selector.terms.end(),
                     [&](const NodeSelectorTerm& term) { return term_matches(term, node_name, node_labels); });
}

} // namespace gpuslice::model
