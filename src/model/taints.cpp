// SPDX-License-Identifier: Apache-2.0
// Taint/toleration matching as in k8s.io/api/core/v1 toleration.go ToleratesTaint and the
// TaintToleration filter (which ignores PreferNoSchedule).
#include <gpuslice/model/taints.hpp>

#include <algorithm>

#include <nlohmann/json.hpp>

#include <gpuslice/model/json_fields.hpp>

#include "decode.hpp"

namespace gpuslice::model {
namespace {

bool is_effect(std::string_view effect) {
  return effect == "NoSchedule" || effect == "PreferNoSchedule" || effect == "NoExecute";
}

} // namespace

std::string to_string(const Taint& taint) {
  std::string out = taint.key;
  if (!taint.value.empty()) out += "=" + taint.value;
  if (!taint.effect.empty()) out += ":" + taint.effect;
  return out;
}

std::optional<Taint> parse_taint(std::string_view text) {
  Taint taint;
  std::size_t colon = text.rfind(':');
  std::string_view key_value = text;
  if (colon != std::string_view::npos) {
    taint.effect = std::string(text.substr(colon + 1));
    key_value = text.substr(0, colon);
    if (!is_effect(taint.effect)) return std::nullopt;
  }
  std::size_t equals = key_value.find('=');
  taint.key = std::string(key_value.substr(0, equals));
  if (equals != std::string_view::npos) taint.value = std::string(key_value.substr(equals + 1));
  if (taint.key.empty()) return std::nullopt;
  return taint;
}

bool tolerates(const Toleration& toleration, const Taint& taint) {
  if (!toleration.effect.empty() && toleration.effect != taint.effect) return false;
  if (!toleration.key.empty() && toleration.key != taint.key) return false;
  if (toleration.op.empty() || toleration.op == "Equal") return toleration.value == taint.value;
  return toleration.op == "Exists";
}

bool tolerated(const std::vector<Toleration>& tolerations, const Taint& taint) {
  return std::any_of(tolerations.begin(), tolerations.end(),
                     [&](const Toleration& toleration) { return tolerates(toleration, taint); });
}

std::vector<Taint> untolerated_taints(const std::vector<Toleration>& tolerations, const std::vector<Taint>& taints) {
  std::vector<Taint> result;
  for (const Taint& taint : taints) {
    // PreferNoSchedule only lowers a node's score; it never makes a pod Pending.
    if (taint.effect != "NoSchedule" && taint.effect != "NoExecute") continue;
    if (!tolerated(tolerations, taint)) result.push_back(taint);
  }
  return result;
}

Taint taint_from_json(const nlohmann::json& j) { return decode::taint(j); }

nlohmann::json to_json(const Taint& taint) {
  nlohmann::json out = {{"key", taint.key}, {"effect", taint.effect}};
  json_fields::put_string(out, "value", taint.value);
  json_fields::put_string(out, "timeAdded", taint.time_added);
  return out;
}

Toleration toleration_from_json(const nlohmann::json& j) { return decode::toleration(j); }

nlohmann::json to_json(const Toleration& toleration) {
  nlohmann::json out = nlohmann::json::object();
  json_fields::put_string(out, "key", toleration.key);
  json_fields::put_string(out, "operator", toleration.op);
  json_fields::put_string(out, "value", toleration.value);
  json_fields::put_string(out, "effect", toleration.effect);
  if (toleration.toleration_seconds) out["tolerationSeconds"] = *toleration.toleration_seconds;
  return out;
}

} // namespace gpuslice::model
