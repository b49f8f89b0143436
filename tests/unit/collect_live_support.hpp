// SPDX-License-Identifier: Apache-2.0
// Shared by the live collector's tests: the incident scenario in fakekube, extra objects
// built in code, the expected subset of a file-loaded snapshot, and request-log queries.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include <fakekube/server.hpp>

#include <gpuslice/collect.hpp>
#include <gpuslice/model.hpp>

#include "collect/recognise.hpp"
#include "unit/kube_fakekube_support.hpp"

namespace collect_test {

inline std::string incident_path() {
  return std::string(GPUSLICE_SOURCE_DIR) + "/tests/fixtures/scenarios/eks-gpu-incident.yaml";
}

// The incident scenario, served to the default admin plus any extra users.
inline fakekube::Scenario incident(std::vector<fakekube::User> users = {}) {
  fakekube::Scenario scenario = fakekube::load_scenario(incident_path());
  if (!users.empty()) {
    scenario.users.push_back(fakekube::default_admin_user());
    for (fakekube::User& user : users) scenario.users.push_back(std::move(user));
  }
  return scenario;
}

inline nlohmann::json cpu_node(const std::string& name) {
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata", {{"name", name}, {"labels", {{"node.kubernetes.io/instance-type", "m5.xlarge"}}}}},
          {"status",
           {{"capacity", {{"cpu", "4"}, {"memory", "16Gi"}, {"pods", "58"}}},
            {"allocatable", {{"cpu", "3920m"}, {"memory", "15Gi"}, {"pods", "58"}}},
            {"conditions", {{{"type", "Ready"}, {"status", "True"}}}}}}};
}

inline nlohmann::json running_pod(const std::string& ns, const std::string& name, const std::string& node,
                                  nlohmann::json requests = {{"cpu", "100m"}}) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}, {"namespace", ns}}},
          {"spec",
           {{"nodeName", node},
            {"containers", {{{"name", "c"}, {"image", "busybox"}, {"resources", {{"requests", requests}}}}}}}},
          {"status", {{"phase", "Running"}}}};
}

// n CPU nodes named cpu-extra-<i>.
inline nlohmann::json cpu_nodes(int n) {
  nlohmann::json nodes = nlohmann::json::array();
  for (int i = 0; i < n; ++i) nodes.push_back(cpu_node("cpu-extra-" + std::to_string(i)));
  return nodes;
}

// n CPU pods spread over the given nodes, in namespace "batch".
inline nlohmann::json cpu_pods(int n, const std::vector<std::string>& nodes) {
  nlohmann::json pods = nlohmann::json::array();
  for (int i = 0; i < n; ++i)
    pods.push_back(running_pod("batch", "cpu-job-" + std::to_string(i), nodes[static_cast<std::size_t>(i) % nodes.size()]));
  return pods;
}

// Drops what the server adds on create (resourceVersion, generation) so a served object
// compares equal to the same object read from the scenario file.
inline void normalise(gpuslice::model::ObjectMeta& meta) {
  meta.resource_version.clear();
  meta.generation = 0;
}

inline gpuslice::Snapshot normalised(gpuslice::Snapshot s) {
  for (auto& x : s.nodes) normalise(x.meta);
  for (auto& x : s.pods) normalise(x.meta);
  for (auto& x : s.events) normalise(x.meta);
  for (auto& x : s.daemonsets) normalise(x.meta);
  for (auto& x : s.deployments) normalise(x.meta);
  for (auto& x : s.statefulsets) normalise(x.meta);
  for (auto& x : s.configmaps) normalise(x.meta);
  for (auto& x : s.cluster_policies) normalise(x.meta);
  s.meta = {};
  return s;
}

template <class T> std::vector<std::string> names(const std::vector<T>& items) {
  std::vector<std::string> out;
  for (const T& item : items) {
    if constexpr (requires { item.meta; })
      out.push_back(item.meta.ns.empty() ? item.meta.name : item.meta.ns + "/" + item.meta.name);
    else
      out.push_back(item.ns + "/" + item.name);
  }
  return out;
}

// Requests whose path starts with `path` and whose decoded query contains `query_part`.
inline std::size_t count_requests(const std::vector<fakekube::LoggedRequest>& log, const std::string& path,
                                  const std::string& query_part = {}) {
  auto decode = [](const std::string& text) {
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
      if (text[i] == '%' && i + 2 < text.size()) {
        out += static_cast<char>(std::stoi(text.substr(i + 1, 2), nullptr, 16));
        i += 2;
      } else {
        out += text[i] == '+' ? ' ' : text[i];
      }
    }
    return out;
  };
  return static_cast<std::size_t>(std::count_if(log.begin(), log.end(), [&](const fakekube::LoggedRequest& r) {
    return r.path.starts_with(path) && decode(r.query).find(query_part) != std::string::npos;
  }));
}

} // namespace collect_test
