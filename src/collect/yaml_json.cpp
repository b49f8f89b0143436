// SPDX-License-Identifier: Apache-2.0
#include "yaml_json.hpp"

#include <charconv>
#include <cmath>
#include <limits>
#include <string>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <gpuslice/error.hpp>

namespace gpuslice::collect {
namespace {

// Plain scalars typed as the YAML 1.2 core schema does (what kubectl's sigs.k8s.io/yaml does
// for the cases API objects contain).
nlohmann::json plain_scalar(const std::string& text) {
  if (text.empty() || text == "~" || text == "null" || text == "Null" || text == "NULL") return nullptr;
  if (text == "true" || text == "True" || text == "TRUE") return true;
  if (text == "false" || text == "False" || text == "FALSE") return false;
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  const char* digits = (*begin == '+') ? begin + 1 : begin;
  long long integer = 0;
  auto [int_end, int_error] = std::from_chars(digits, end, integer);
  if (int_error == std::errc{} && int_end == end) return integer;
  double real = 0;
  auto [real_end, real_error] = std::from_chars(digits, end, real);
  bool has_digit = text.find_first_of("0123456789") != std::string::npos;
  if (real_error == std::errc{} && real_end == end && has_digit && std::isfinite(real)) return real;
  return text;
}

// Far deeper than any API object; stops a hostile file from exhausting the stack.
constexpr int k_max_depth = 256;

nlohmann::json to_json(const YAML::Node& node, int depth) {
  if (depth > k_max_depth) throw UsageError(fmt::format("nesting deeper than {} levels", k_max_depth));
  switch (node.Type()) {
  case YAML::NodeType::Null:
  case YAML::NodeType::Undefined:
    return nullptr;
  case YAML::NodeType::Scalar:
    // yaml-cpp tags quoted and block scalars "!" and plain ones "?".
    return node.Tag() == "!" ? nlohmann::json(node.Scalar()) : plain_scalar(node.Scalar());
  case YAML::NodeType::Sequence: {
    nlohmann::json out = nlohmann::json::array();
    for (const YAML::Node& item : node) out.push_back(to_json(item, depth + 1));
    return out;
  }
  case YAML::NodeType::Map: {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& entry : node) {
      if (!entry.first.IsScalar()) continue; // complex keys never appear in API objects
      out[entry.first.Scalar()] = to_json(entry.second, depth + 1);
    }
    return out;
  }
  }
  return nullptr;
}

} // namespace

std::vector<nlohmann::json> parse_yaml_documents(std::string_view text, const std::string& origin) {
  std::vector<YAML::Node> documents;
  try {
    documents = YAML::LoadAll(std::string(text));
  } catch (const YAML::Exception& e) {
    throw UsageError(fmt::format("{}: not valid YAML or JSON: line {}, column {}: {}", origin, e.mark.line + 1,
                                 e.mark.column + 1, e.msg));
  }
  std::vector<nlohmann::json> result;
  for (const YAML::Node& document : documents) {
    if (document.IsNull() || !document.IsDefined()) continue;
    try {
      result.push_back(to_json(document, 0));
    } catch (const UsageError& e) {
      throw UsageError(fmt::format("{}: document {}: {}", origin, result.size() + 1, e.what()));
    }
  }
  return result;
}

} // namespace gpuslice::collect
