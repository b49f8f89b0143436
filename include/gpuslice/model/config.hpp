// SPDX-License-Identifier: Apache-2.0
// ConfigMaps, Helm release summaries and the GPU Operator's ClusterPolicy.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include <gpuslice/model/labels.hpp>
#include <gpuslice/model/meta.hpp>

namespace gpuslice::model {

struct ConfigMap {
  ObjectMeta meta;
  StringMap data;
  bool operator==(const ConfigMap&) const = default;
};

// An object named in a Helm release manifest.
struct ManifestObject {
  std::string kind;
  std::string ns;
  std::string name;
  bool operator==(const ManifestObject&) const = default;
};

// What the tool keeps of a Helm release Secret: identity, chart and the objects it manages.
// Never values, config, notes or templates.
struct HelmRelease {
  std::string secret_name; // sh.helm.release.v1.<name>.v<revision>
  std::string name;
  std::string ns;
  long long revision = 0;
  std::string status; // deployed | superseded | failed | …
  std::string chart_name;
  std::string chart_version;
  std::string app_version;
  std::string last_deployed;
  std::vector<ManifestObject> manifest;
  bool operator==(const HelmRelease&) const = default;
};

// GPU Operator ClusterPolicy (nvidia.com/v1), the device-plugin part.
struct ClusterPolicy {
  ObjectMeta meta;
  bool device_plugin_enabled = true; // spec.devicePlugin.enabled, defaults to true
  std::string config_name;           // spec.devicePlugin.config.name
  std::string config_default;        // spec.devicePlugin.config.default
  std::string state;                 // status.state (ready | notReady)
  std::string operator_namespace;    // status.namespace
  bool operator==(const ClusterPolicy&) const = default;
};

ConfigMap configmap_from_json(const nlohmann::json& configmap);
nlohmann::json to_json(const ConfigMap& configmap);
// Reads our own summary JSON (see to_json(HelmRelease)), not Helm's release JSON.
HelmRelease helm_release_from_json(const nlohmann::json& summary);
nlohmann::json to_json(const HelmRelease& release);
ClusterPolicy cluster_policy_from_json(const nlohmann::json& policy);
nlohmann::json to_json(const ClusterPolicy& policy);

} // namespace gpuslice::model
