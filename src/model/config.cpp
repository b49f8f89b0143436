// SPDX-License-Identifier: Apache-2.0
#include <gpuslice/model/config.hpp>

#include <nlohmann/json.hpp>

#include <gpuslice/model/json_fields.hpp>

#include "decode.hpp"

namespace gpuslice::model {

using namespace json_fields;

ConfigMap configmap_from_json(const nlohmann::json& j) { return decode::configmap(j); }

nlohmann::json to_json(const ConfigMap& c) {
  nlohmann::json out = {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", to_json(c.meta)}};
  put_map(out, "data", c.data);
  return out;
}

HelmRelease helm_release_from_json(const nlohmann::json& j) {
  HelmRelease r;
  r.secret_name = string_at(j, "secretName");
  r.name = string_at(j, "name");
  r.ns = string_at(j, "namespace");
  r.revision = int_at(j, "revision");
  r.status = string_at(j, "status");
  r.chart_name = string_at(j, "chart");
  r.chart_version = string_at(j, "chartVersion");
  r.app_version = string_at(j, "appVersion");
  r.last_deployed = string_at(j, "lastDeployed");
  for (const nlohmann::json& object : array_at(j, "manifest"))
    r.manifest.push_back({string_at(object, "kind"), string_at(object, "namespace"), string_at(object, "name")});
  return r;
}

nlohmann::json to_json(const HelmRelease& r) {
  nlohmann::json out = {{"name", r.name}, {"namespace", r.ns}, {"revision", r.revision}, {"status", r.status},
                        {"chart", r.chart_name}, {"chartVersion", r.chart_version}};
  put_string(out, "secretName", r.secret_name);
  put_string(out, "appVersion", r.app_version);
  put_string(out, "lastDeployed", r.last_deployed);
  out["manifest"] = nlohmann::json::array();
  for (const ManifestObject& object : r.manifest) {
    nlohmann::json item = {{"kind", object.kind}, {"name", object.name}};
    put_string(item, "namespace", object.ns);
    out["manifest"].push_back(std::move(item));
  }
  return out;
}

ClusterPolicy cluster_policy_from_json(const nlohmann::json& j) { return decode::cluster_policy(j); }

nlohmann::json to_json(const ClusterPolicy& p) {
  nlohmann::json device_plugin = {{"enabled", p.device_plugin_enabled}};
  if (!p.config_name.empty() || !p.config_default.empty())
    device_plugin["config"] = {{"name", p.config_name}, {"default", p.config_default}};
  nlohmann::json status = nlohmann::json::object();
  put_string(status, "state", p.state);
  put_string(status, "namespace", p.operator_namespace);
  return {{"apiVersion", "nvidia.com/v1"}, {"kind", "ClusterPolicy"}, {"metadata", to_json(p.meta)},
          {"spec", {{"devicePlugin", device_plugin}}}, {"status", status}};
}

} // namespace gpuslice::model
