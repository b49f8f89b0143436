// SPDX-License-Identifier: Apache-2.0
// The GPU Operator stand-in (sim/gpu_operator.cpp): the device-plugin DaemonSet a ClusterPolicy
// owns follows spec.devicePlugin; direct edits are reverted and a deleted DaemonSet comes back.
#include <doctest/doctest.h>

#include "fakekube_sim_support.hpp"

namespace {

using fakekube_sim_test::Cluster;
using fakekube_sim_test::Json;

const std::string k_operator_ds = "/apis/apps/v1/namespaces/gpu-operator/daemonsets/nvidia-device-plugin-daemonset";
const std::string k_policy = "/apis/nvidia.com/v1/clusterpolicies/cluster-policy";

Json cluster_policy_crd() {
  return {{"apiVersion", "apiextensions.k8s.io/v1"},
          {"kind", "CustomResourceDefinition"},
          {"metadata", {{"name", "clusterpolicies.nvidia.com"}}},
          {"spec",
           {{"group", "nvidia.com"},
            {"scope", "Cluster"},
            {"names", {{"plural", "clusterpolicies"}, {"singular", "clusterpolicy"}, {"kind", "ClusterPolicy"}}},
            {"versions", Json::array({{{"name", "v1"}, {"served", true}, {"storage", true},
                                       {"subresources", {{"status", Json::object()}}}}})}}}};
}

// The operator's plugin DaemonSet, owned by the policy (reference/nvidia.md §5.2).
Json operator_daemonset(const Json& policy) {
  Json ds = fakekube_sim_test::make_daemonset(
      "gpu-operator", "nvidia-device-plugin-daemonset",
      {{"nodeSelector", {{"nvidia.com/gpu.deploy.device-plugin", "true"}}},
       {"containers", Json::array({{{"name", "nvidia-device-plugin"},
                                    {"image", "nvcr.io/nvidia/k8s-device-plugin:v0.17.0"},
                                    {"command", Json::array({"nvidia-device-plugin"})}}})},
       {"tolerations", Json::array({{{"key", "nvidia.com/gpu"}, {"operator", "Exists"}, {"effect", "NoSchedule"}}})}});
  ds["metadata"]["ownerReferences"] = Json::array({{{"apiVersion", "nvidia.com/v1"},
                                                    {"kind", "ClusterPolicy"},
                                                    {"name", "cluster-policy"},
                                                    {"uid", policy["metadata"]["uid"]},
                                                    {"controller", true},
                                                    {"blockOwnerDeletion", true}}});
  return ds;
}

struct OperatorCluster {
  Cluster cluster;
  Json policy;

  OperatorCluster() {
    cluster.create("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", cluster_policy_crd());
    cluster.api.load(Json{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "gpu-operator"}}}});
    cluster.api.load(fakekube_sim_test::make_node(
        "gpu", {{"nvidia.com/gpu.deploy.device-plugin", "true"}, {"node.kubernetes.io/instance-type", "g4dn.xlarge"}}, 1));
    policy = cluster.create("/apis/nvidia.com/v1/clusterpolicies",
                            {{"apiVersion", "nvidia.com/v1"},
                             {"kind", "ClusterPolicy"},
                             {"metadata", {{"name", "cluster-policy"}}},
                             {"spec", {{"devicePlugin", {{"enabled", true}}}}}});
    cluster.create("/apis/apps/v1/namespaces/gpu-operator/daemonsets", operator_daemonset(policy));
    cluster.tick(3);
  }
};

std::string plugin_image(const Json& ds) {
  return ds["spec"]["template"]["spec"]["containers"][0]["image"];
}

} // namespace

TEST_CASE("fakekube::sim::run_gpu_operator reverts direct edits of its DaemonSet") {
  OperatorCluster env;
  Cluster& cluster = env.cluster;
  REQUIRE(cluster.get("/api/v1/nodes/gpu")["status"]["allocatable"]["nvidia.com/gpu"] == "1");
  const Json before = cluster.get(k_operator_ds);

  SUBCASE("an edit is overwritten on the next reconcile") {
    cluster.patch(k_operator_ds,
                  {{"spec", {{"template", {{"spec", {{"containers", Json::array({{{"name", "nvidia-device-plugin"},
                                                                                  {"image", "example.com/patched:1"}}})}}}}}}}},
                  "application/strategic-merge-patch+json");
    CHECK(plugin_image(cluster.get(k_operator_ds)) == "example.com/patched:1");
    cluster.tick();
    const Json after = cluster.get(k_operator_ds);
    CHECK(plugin_image(after) == "nvcr.io/nvidia/k8s-device-plugin:v0.17.0");
    CHECK(after["spec"] == before["spec"]);
  }
  SUBCASE("a deleted DaemonSet is created again, still owned by the policy") {
    cluster.remove(k_operator_ds);
    CHECK(cluster.find(k_operator_ds).is_null());
    cluster.tick();
    const Json again = cluster.get(k_operator_ds);
    CHECK(again["metadata"]["uid"] != before["metadata"]["uid"]);
    CHECK(again["metadata"]["ownerReferences"][0]["uid"] == env.policy["metadata"]["uid"]);
    CHECK(again["spec"] == before["spec"]);
    cluster.tick(3);
    CHECK(cluster.get("/api/v1/nodes/gpu")["status"]["allocatable"]["nvidia.com/gpu"] == "1");
  }
  SUBCASE("devicePlugin.enabled=false deletes it") {
    cluster.patch(k_policy, {{"spec", {{"devicePlugin", {{"enabled", false}}}}}});
    cluster.tick(2);
    CHECK(cluster.find(k_operator_ds).is_null());
    CHECK(cluster.get("/api/v1/nodes/gpu")["status"]["allocatable"]["nvidia.com/gpu"] == "0");
  }
}

TEST_CASE("fakekube::sim::run_gpu_operator applies a ClusterPolicy devicePlugin.config change") {
  OperatorCluster env;
  Cluster& cluster = env.cluster;
  cluster.create("/api/v1/namespaces/gpu-operator/configmaps",
                 {{"apiVersion", "v1"},
                  {"kind", "ConfigMap"},
                  {"metadata", {{"name", "time-slicing-config"}, {"namespace", "gpu-operator"}}},
                  {"data", {{"any", "version: v1\nsharing:\n  timeSlicing:\n    resources:\n    - name: nvidia.com/gpu\n      replicas: 4\n"}}}});
  const long long generation = cluster.get(k_operator_ds)["metadata"]["generation"];
  cluster.patch(k_policy, {{"spec", {{"devicePlugin", {{"config", {{"name", "time-slicing-config"}, {"default", "any"}}}}}}}});
  cluster.tick();

  const Json ds = cluster.get(k_operator_ds);
  const Json& pod = ds["spec"]["template"]["spec"];
  CHECK(pod["initContainers"][0]["command"][0] == "config-manager");
  bool mounts_config = false;
  for (const Json& volume : pod["volumes"])
    if (volume.contains("configMap") && volume["configMap"]["name"] == "time-slicing-config") mounts_config = true;
  CHECK(mounts_config);
  CHECK(ds["metadata"]["generation"] == generation + 1);

  // Rolled out: the plugin loads the default config through the config-manager.
  for (int tick = 0; tick < 10 && fakekube_sim_test::daemonset_rollout(cluster.get(k_operator_ds)) !=
                                      "daemon set \"nvidia-device-plugin-daemonset\" successfully rolled out";
       ++tick)
    cluster.tick();
  cluster.tick();
  CHECK(cluster.get("/api/v1/nodes/gpu")["status"]["allocatable"]["nvidia.com/gpu"] == "4");

  // And the config stays through a direct edit that drops it.
  cluster.patch(k_operator_ds, {{"spec", {{"template", {{"spec", {{"initContainers", nullptr}}}}}}}});
  cluster.tick();
  CHECK(cluster.get(k_operator_ds)["spec"]["template"]["spec"]["initContainers"][0]["command"][0] == "config-manager");
}
