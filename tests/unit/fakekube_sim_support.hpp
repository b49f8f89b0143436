// SPDX-License-Identifier: Apache-2.0
// A small cluster for the simulation's unit tests: an in-process fakekube::Api driven through
// Api::handle (as kubectl would), stepped with tick(), and builders for the objects the tests
// need (nodes, pods, DaemonSets, Deployments).
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <fakekube/server.hpp>

#include "fakekube_api_request.hpp"

namespace fakekube_sim_test {

using Json = nlohmann::json;

inline const std::string k_scenario_dir = GPUSLICE_SOURCE_DIR "/tests/fixtures/scenarios/";

// An Api with a scenario loaded the way fakekube's Server loads one: objects, server version
// and the `simulation:` settings.
class Cluster {
public:
  Cluster() = default;
  explicit Cluster(const std::string& scenario_file) {
    const fakekube::Scenario scenario = fakekube::load_scenario(k_scenario_dir + scenario_file);
    api.set_server_version(scenario.server_version);
    api.load(scenario.objects);
    api.simulation().configure(scenario.simulation);
  }

  // Steps the simulation; no controller may have failed on an object.
  void tick(int count = 1) {
    api.simulation().tick(count);
    CHECK_MESSAGE(api.simulation().last_error().empty(), api.simulation().last_error());
  }

  Json get(const std::string& path) {
    fakekube_test::Reply reply = fakekube_test::Call(api, "GET", path).send();
    REQUIRE_MESSAGE(reply.status == 200, "GET " << path << ": " << reply.raw);
    return reply.body;
  }
  // The object, or null when the API answers 404.
  Json find(const std::string& path) {
    fakekube_test::Reply reply = fakekube_test::Call(api, "GET", path).send();
    return reply.status == 200 ? reply.body : Json();
  }
  Json items(const std::string& path, const std::string& label_selector = "") {
    fakekube_test::Call call(api, "GET", path);
    if (!label_selector.empty()) call.query("labelSelector", label_selector);
    fakekube_test::Reply reply = call.send();
    REQUIRE_MESSAGE(reply.status == 200, "GET " << path << ": " << reply.raw);
    return reply.body["items"];
  }
  Json create(const std::string& collection, const Json& object) {
    fakekube_test::Reply reply = fakekube_test::Call(api, "POST", collection).json(object).send();
    REQUIRE_MESSAGE(reply.status == 201, "POST " << collection << ": " << reply.raw);
    return reply.body;
  }
  Json patch(const std::string& path, const Json& body,
             const std::string& type = "application/merge-patch+json") {
    fakekube_test::Reply reply = fakekube_test::Call(api, "PATCH", path).json(body, type).send();
    REQUIRE_MESSAGE(reply.status == 200, "PATCH " << path << ": " << reply.raw);
    return reply.body;
  }
  void remove(const std::string& path) {
    fakekube_test::Reply reply = fakekube_test::Call(api, "DELETE", path).send();
    REQUIRE_MESSAGE((reply.status == 200 || reply.status == 202), "DELETE " << path << ": " << reply.raw);
  }

  fakekube::Api api;
};

// A Ready node with cpu/memory/pods (and, when gpus > 0, nvidia.com/gpu) capacity = allocatable.
inline Json make_node(const std::string& name, Json labels = Json::object(), int gpus = 0) {
  labels["kubernetes.io/hostname"] = name;
  Json resources = {{"cpu", "4"}, {"memory", "16Gi"}, {"pods", "110"}};
  if (gpus > 0) resources["nvidia.com/gpu"] = std::to_string(gpus);
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata", {{"name", name}, {"labels", labels}}},
          {"spec", Json::object()},
          {"status",
           {{"capacity", resources},
            {"allocatable", resources},
            {"conditions", Json::array({{{"type", "Ready"}, {"status", "True"}}})},
            {"nodeInfo", {{"kubeletVersion", "v1.30.4"}, {"osImage", "Amazon Linux 2023"}}}}}};
}

// A bare pod spec with one container and the given requests.
inline Json make_pod(const std::string& ns, const std::string& name, Json requests = Json::object()) {
  Json container = {{"name", "main"}, {"image", "busybox"}};
  if (!requests.empty()) container["resources"]["requests"] = requests;
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}, {"namespace", ns}}},
          {"spec", {{"containers", Json::array({container})}}}};
}

// A RollingUpdate DaemonSet whose pods carry `app: name`, with the given pod spec.
inline Json make_daemonset(const std::string& ns, const std::string& name, Json pod_spec) {
  if (!pod_spec.contains("containers"))
    pod_spec["containers"] = Json::array({{{"name", "main"}, {"image", "busybox"}}});
  return {{"apiVersion", "apps/v1"},
          {"kind", "DaemonSet"},
          {"metadata", {{"name", name}, {"namespace", ns}}},
          {"spec",
           {{"selector", {{"matchLabels", {{"app", name}}}}},
            {"updateStrategy", {{"type", "RollingUpdate"}, {"rollingUpdate", {{"maxUnavailable", 1}}}}},
            {"template", {{"metadata", {{"labels", {{"app", name}}}}}, {"spec", pod_spec}}}}}};
}

// The value of a pod's PodScheduled condition field ("" when absent).
inline std::string scheduled_field(const Json& pod, const std::string& field) {
  for (const Json& condition : pod.value("status", Json::object()).value("conditions", Json::array()))
    if (condition.value("type", "") == "PodScheduled") return condition.value(field, std::string());
  return "";
}

// What `kubectl rollout status` prints for a DaemonSet, by kubectl's DaemonSetStatusViewer
// (reference/kubeclient.md §5); fields absent from status read as 0, as Go's omitempty does.
inline std::string daemonset_rollout(const Json& ds) {
  const std::string name = ds["metadata"].value("name", std::string());
  if (ds["spec"].value("updateStrategy", Json::object()).value("type", std::string("RollingUpdate")) !=
      "RollingUpdate")
    return "error: rollout status is only available for RollingUpdate strategy type";
  const Json status = ds.value("status", Json::object());
  if (ds["metadata"].value("generation", 0LL) > status.value("observedGeneration", 0LL))
    return "Waiting for daemon set spec update to be observed...";
  const long long desired = status.value("desiredNumberScheduled", 0LL);
  const long long updated = status.value("updatedNumberScheduled", 0LL);
  const long long available = status.value("numberAvailable", 0LL);
  if (updated < desired)
    return "Waiting for daemon set \"" + name + "\" rollout to finish: " + std::to_string(updated) +
           " out of " + std::to_string(desired) + " new pods have been updated...";
  if (available < desired)
    return "Waiting for daemon set \"" + name + "\" rollout to finish: " + std::to_string(available) +
           " of " + std::to_string(desired) + " updated pods are available...";
  return "daemon set \"" + name + "\" successfully rolled out";
}

// The same for a Deployment (kubectl's DeploymentStatusViewer).
inline std::string deployment_rollout(const Json& deployment) {
  const std::string name = deployment["metadata"].value("name", std::string());
  const Json status = deployment.value("status", Json::object());
  if (deployment["metadata"].value("generation", 0LL) > status.value("observedGeneration", 0LL))
    return "Waiting for deployment spec update to be observed...";
  for (const Json& condition : status.value("conditions", Json::array()))
    if (condition.value("type", "") == "Progressing" &&
        condition.value("reason", "") == "ProgressDeadlineExceeded")
      return "error: deployment \"" + name + "\" exceeded its progress deadline";
  const long long want = deployment["spec"].value("replicas", 1LL);
  const long long updated = status.value("updatedReplicas", 0LL);
  const long long replicas = status.value("replicas", 0LL);
  const long long available = status.value("availableReplicas", 0LL);
  const std::string waiting = "Waiting for deployment \"" + name + "\" rollout to finish: ";
  if (updated < want)
    return waiting + std::to_string(updated) + " out of " + std::to_string(want) +
           " new replicas have been updated...";
  if (replicas > updated)
    return waiting + std::to_string(replicas - updated) + " old replicas are pending termination...";
  if (available < updated)
    return waiting + std::to_string(available) + " of " + std::to_string(updated) +
           " updated replicas are available...";
  return "deployment \"" + name + "\" successfully rolled out";
}

// Names of the nodes the pods are bound to, sorted ("" for unbound pods).
inline std::vector<std::string> bound_nodes(const Json& pods) {
  std::vector<std::string> out;
  for (const Json& pod : pods) out.push_back(pod["spec"].value("nodeName", std::string()));
  std::sort(out.begin(), out.end());
  return out;
}

} // namespace fakekube_sim_test
