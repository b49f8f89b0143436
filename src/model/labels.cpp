// SPDX-License-Identifier: Apache-2.0
// Label selectors: matching (k8s.io/apimachinery/pkg/labels semantics), the metav1 JSON form
// and the --selector string syntax.
#include <gpuslice/model/labels.hpp>

#include <algorithm>
#include <charconv>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <gpuslice/model/json_fields.hpp>

#include "decode.hpp"
#include "requirement.hpp"

namespace gpuslice::model {
namespace {

std::optional<long long> parse_integer(std::string_view text) {
  long long value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

// A hand-written scanner for the selector string grammar of apimachinery labels.Parse.
class SelectorScanner {
public:
  explicit SelectorScanner(std::string_view text) : m_text(text) {}

  Parsed<LabelSelector> parse() {
    LabelSelector selector;
    skip_space();
    if (at_end()) return {selector, {}};
    while (true) {
      Parsed<Requirement> requirement = parse_requirement_text();
      if (!requirement) return {std::nullopt, requirement.error};
      selector.requirements.push_back(std::move(*requirement.value));
      skip_space();
      if (at_end()) break;
      if (!consume(",")) return fail("expected ',' between requirements");
    }
    return {selector, {}};
  }

private:
  Parsed<LabelSelector> fail(const std::string& what) const {
    return {std::nullopt, fmt::format("selector \"{}\": {} at position {}", m_text, what, m_pos + 1)};
  }
  Parsed<Requirement> fail_requirement(const std::string& what) const {
    return {std::nullopt, fail(what).error};
  }
  bool at_end() const { return m_pos >= m_text.size(); }
  void skip_space() {
    while (!at_end() && (m_text[m_pos] == ' ' || m_text[m_pos] == '\t')) ++m_pos;
  }
  bool consume(std::string_view token) {
    skip_space();
    if (m_text.substr(m_pos, token.size()) != token) return false;
    m_pos += token.size();
    return true;
  }
  static bool is_name_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
           c == '.' || c == '/';
  }
  std::string word() {
    skip_space();
    std::size_t start = m_pos;
    while (!at_end() && is_name_char(m_text[m_pos])) ++m_pos;
    return std::string(m_text.substr(start, m_pos - start));
  }
  // "in"/"notin" are keywords only when followed by a space or '('.
  bool keyword(std::string_view name) {
    skip_space();
    std::size_t save = m_pos;
    if (word() == name) {
      skip_space();
      if (!at_end() && m_text[m_pos] == '(') return true;
    }
    m_pos = save;
    return false;
  }

  Parsed<Requirement> parse_requirement_text() {
    Requirement r;
    if (consume("!")) {
      r.key = word();
      if (r.key.empty()) return fail_requirement("expected a key after '!'");
      r.op = SelectorOp::does_not_exist;
      return {r, {}};
    }
    r.key = word();
    if (r.key.empty()) return fail_requirement("expected a key");
    skip_space();
    if (at_end() || m_text[m_pos] == ',') {
      r.op = SelectorOp::exists;
      return {r, {}};
    }
    if (consume("!=")) {
      r.op = SelectorOp::not_in;
      r.values.push_back(word());
    } else if (consume("==") || consume("=")) {
      r.op = SelectorOp::in;
      r.values.push_back(word());
    } else if (consume(">")) {
      r.op = SelectorOp::gt;
      r.values.push_back(word());
    } else if (consume("<")) {
      r.op = SelectorOp::lt;
      r.values.push_back(word());
    } else if (keyword("notin")) {
      r.op = SelectorOp::not_in;
      return parse_set(std::move(r));
    } else if (keyword("in")) {
      r.op = SelectorOp::in;
      return parse_set(std::move(r));
    } else {
      return fail_requirement("expected an operator (=, ==, !=, in, notin, >, <) after \"" + r.key + "\"");
    }
    std::string error = check_values(r);
    if (!error.empty()) return fail_requirement(error);
    return {r, {}};
  }

  Parsed<Requirement> parse_set(Requirement r) {
    // keyword() stopped just before the opening parenthesis.
    consume("(");
    while (true) {
      std::string value = word();
      if (!value.empty()) r.values.push_back(value);
      if (consume(")")) break;
      if (!consume(",")) return fail_requirement("expected ',' or ')' in the value set");
    }
    std::string error = check_values(r);
    if (!error.empty()) return fail_requirement(error);
    return {r, {}};
  }

  std::string_view m_text;
  std::size_t m_pos = 0;
};

} // namespace

const char* operator_name(SelectorOp op) {
  switch (op) {
  case SelectorOp::in: return "In";
  case SelectorOp::not_in: return "NotIn";
  case SelectorOp::exists: return "Exists";
  case SelectorOp::does_not_exist: return "DoesNotExist";
  case SelectorOp::gt: return "Gt";
  case SelectorOp::lt: return "Lt";
  }
  return "";
}

std::optional<SelectorOp> parse_operator(const std::string& name, bool allow_gt_lt) {
  if (name == "In") return SelectorOp::in;
  if (name == "NotIn") return SelectorOp::not_in;
  if (name == "Exists") return SelectorOp::exists;
  if (name == "DoesNotExist") return SelectorOp::does_not_exist;
  if (allow_gt_lt && name == "Gt") return SelectorOp::gt;
  if (allow_gt_lt && name == "Lt") return SelectorOp::lt;
  return std::nullopt;
}

// The value-count rules of NewRequirement.
std::string check_values(const Requirement& r) {
  switch (r.op) {
  case SelectorOp::in:
  case SelectorOp::not_in:
    return r.values.empty() ? fmt::format("{}: operator {} needs at least one value", r.key, operator_name(r.op)) : "";
  case SelectorOp::exists:
  case SelectorOp::does_not_exist:
    return r.values.empty() ? "" : fmt::format("{}: operator {} takes no values", r.key, operator_name(r.op));
  case SelectorOp::gt:
  case SelectorOp::lt:
    if (r.values.size() != 1 || !parse_integer(r.values[0]))
      return fmt::format("{}: operator {} needs exactly one integer value", r.key, operator_name(r.op));
    return "";
  }
  return "";
}

nlohmann::json requirement_json(const Requirement& requirement) {
  nlohmann::json out = {{"key", requirement.key}, {"operator", operator_name(requirement.op)}};
  if (!requirement.values.empty()) out["values"] = requirement.values;
  return out;
}

bool requirement_matches(const Requirement& requirement, const StringMap& labels) {
  auto it = labels.find(requirement.key);
  bool has = it != labels.end();
  const std::vector<std::string>& values = requirement.values;
  auto listed = [&] { return std::find(values.begin(), values.end(), it->second) != values.end(); };
  switch (requirement.op) {
  case SelectorOp::in: return has && listed();
  case SelectorOp::not_in: return !has || !listed();
  case SelectorOp::exists: return has;
  case SelectorOp::does_not_exist: return !has;
  case SelectorOp::gt:
  case SelectorOp::lt: {
    if (!has || values.size() != 1) return false;
    std::optional<long long> label = parse_integer(it->second);
    std::optional<long long> bound = parse_integer(values[0]);
    if (!label || !bound) return false;
    return requirement.op == SelectorOp::gt ? *label > *bound : *label < *bound;
  }
  }
  return false;
}

bool selector_matches(const LabelSelector& selector, const StringMap& labels) {
  return std::all_of(selector.requirements.begin(), selector.requirements.end(),
                     [&](const Requirement& r) { return requirement_matches(r, labels); });
}

Parsed<LabelSelector> parse_label_selector(const nlohmann::json& selector) { return decode::label_selector(selector); }

Parsed<LabelSelector> parse_selector_string(std::string_view text) { return SelectorScanner(text).parse(); }

std::string to_selector_string(const LabelSelector& selector) {
  std::string out;
  for (const Requirement& r : selector.requirements) {
    if (!out.empty()) out += ',';
    std::string set = fmt::format("({})", fmt::join(r.values, ","));
    switch (r.op) {
    case SelectorOp::in: out += r.values.size() == 1 ? r.key + "=" + r.values[0] : r.key + " in " + set; break;
    case SelectorOp::not_in: out += r.values.size() == 1 ? r.key + "!=" + r.values[0] : r.key + " notin " + set; break;
    case SelectorOp::exists: out += r.key; break;
    case SelectorOp::does_not_exist: out += "!" + r.key; break;
    case SelectorOp::gt: out += r.key + ">" + (r.values.empty() ? "" : r.values[0]); break;
    case SelectorOp::lt: out += r.key + "<" + (r.values.empty() ? "" : r.values[0]); break;
    }
  }
  return out;
}

nlohmann::json label_selector_json(const LabelSelector& selector) {
  nlohmann::json out = nlohmann::json::object();
  for (const Requirement& r : selector.requirements) {
    if (r.op == SelectorOp::in && r.values.size() == 1 && !out["matchLabels"].contains(r.key))
      out["matchLabels"][r.key] = r.values[0];
    else
      out["matchExpressions"].push_back(requirement_json(r));
  }
  if (out.contains("matchLabels") && out["matchLabels"].is_null()) out.erase("matchLabels");
  return out;
}

bool node_labels_match(const StringMap& node_selector, const StringMap& node_labels) {
  return std::all_of(node_selector.begin(), node_selector.end(), [&](const auto& entry) {
    auto it = node_labels.find(entry.first);
    return it != node_labels.end() && it->second == entry.second;
  });
}

} // namespace gpuslice::model
