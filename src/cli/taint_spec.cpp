// SPDX-License-Identifier: Apache-2.0
#include "cli/taint_spec.hpp"

#include <algorithm>

#include <fmt/format.h>

#include <gpuslice/error.hpp>

namespace gpuslice::cli {

namespace {

bool is_taint_alphanumeric(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// A label name or value: at most 63 of [A-Za-z0-9-_.], beginning and ending alphanumeric.
bool is_label_word(std::string_view text, bool may_be_empty) {
  if (text.empty()) return may_be_empty;
  if (text.size() > 63 || !is_taint_alphanumeric(text.front()) || !is_taint_alphanumeric(text.back())) return false;
  return std::all_of(text.begin(), text.end(),
                     [](char c) { return is_taint_alphanumeric(c) || c == '-' || c == '_' || c == '.'; });
}

// A DNS-1123 subdomain: at most 253 of [a-z0-9-.], beginning and ending alphanumeric.
bool is_dns_subdomain(std::string_view text) {
  return !text.empty() && text.size() <= 253 && is_taint_alphanumeric(text.front()) &&
         is_taint_alphanumeric(text.back()) && std::all_of(text.begin(), text.end(), [](char c) {
           return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.';
         });
}

} // namespace

std::string taint_key_problem(std::string_view key) {
  const std::size_t slash = key.find('/');
  const bool ok = slash == std::string_view::npos
                      ? is_label_word(key, false)
                      : is_dns_subdomain(key.substr(0, slash)) && is_label_word(key.substr(slash + 1), false);
  if (ok) return "";
  return "must be a qualified name (an optional DNS prefix and '/', then up to 63 of A-Z a-z 0-9 - _ . "
         "beginning and ending alphanumeric)";
}

std::string taint_value_problem(std::string_view value) {
  if (is_label_word(value, true)) return "";
  return "must be up to 63 of A-Z a-z 0-9 - _ . beginning and ending alphanumeric";
}

std::string taint_effect_problem(std::string_view effect) {
  if (effect == "NoSchedule" || effect == "PreferNoSchedule" || effect == "NoExecute") return "";
  return "must be NoSchedule, PreferNoSchedule or NoExecute";
}

model::Taint parse_taint_flag(const std::string& flag, const std::string& text) {
  const std::size_t colon = text.find(':');
  if (colon == std::string::npos || text.find(':', colon + 1) != std::string::npos) {
    throw UsageError(fmt::format("{} \"{}\": must be KEY=VALUE:EFFECT or KEY:EFFECT with effect NoSchedule, "
                                 "PreferNoSchedule or NoExecute",
                                 flag, text));
  }
  model::Taint taint;
  const std::string key_value = text.substr(0, colon);
  const std::size_t equals = key_value.find('=');
  taint.key = key_value.substr(0, equals);
  if (equals != std::string::npos) taint.value = key_value.substr(equals + 1);
  taint.effect = text.substr(colon + 1);
  auto refuse_bad = [&](const char* part, const std::string& input, const std::string& problem) {
    if (!problem.empty()) throw UsageError(fmt::format("{} \"{}\": {} \"{}\" {}", flag, text, part, input, problem));
  };
  refuse_bad("key", taint.key, taint_key_problem(taint.key));
  refuse_bad("value", taint.value, taint_value_problem(taint.value));
  refuse_bad("effect", taint.effect, taint_effect_problem(taint.effect));
  return taint;
}

} // namespace gpuslice::cli
