// SPDX-License-Identifier: Apache-2.0
// The NVIDIA device plugin and GFD stand-ins (sim/device_plugin.cpp, sim/plugin_config.cpp,
// sim/kubelet.cpp): where a node's physical GPU count comes from, allocatable = physical ×
// the replicas of the config the plugin's DaemonSet really references, renameByDefault,
// invalid configs crash-looping, no plugin → nothing allocatable, and the GFD labels.
#include <doctest/doctest.h>

#include "fakekube_sim_support.hpp"

namespace {

using fakekube_sim_test::Cluster;
using fakekube_sim_test::Json;

const std::string k_plugin_ns = "nvidia-device-plugin";
const std::string k_plugin_pods = "/api/v1/namespaces/nvidia-device-plugin/pods";
const std::string k_plugin_ds = "/apis/apps/v1/namespaces/nvidia-device-plugin/daemonsets";
const std::string k_plugin_cms = "/api/v1/namespaces/nvidia-device-plugin/configmaps";

std::string time_slicing(int replicas, bool rename = false) {
  return "version: v1\nsharing:\n  timeSlicing:\n" + std::string(rename ? "    renameByDefault: true\n" : "") +
         "    resources:\n    - name: nvidia.com/gpu\n      replicas: " + std::to_string(replicas) + "\n";
}

Json config_map(const std::string& name, Json data) {
  return {{"apiVersion", "v1"}, {"kind", "ConfigMap"},
          {"metadata", {{"name", name}, {"namespace", k_plugin_ns}}}, {"data", std::move(data)}};
}

Json plugin_container(Json extra = Json::object()) {
  Json container = {{"name", "nvidia-device-plugin-ctr"},
                    {"image", "nvcr.io/nvidia/k8s-device-plugin:v0.17.1"},
                    {"command", Json::array({"nvidia-device-plugin"})}};
  container.update(extra);
  return container;
}

// The static manifest's DaemonSet with `container` (and volumes) as its pod.
Json plugin_daemonset(const std::string& name, Json container, Json volumes = Json::array()) {
  Json spec = {{"containers", Json::array({std::move(container)})},
               {"tolerations", Json::array({{{"key", "nvidia.com/gpu"}, {"operator", "Exists"},
                                             {"effect", "NoSchedule"}}})}};
  if (!volumes.empty()) spec["volumes"] = std::move(volumes);
  return fakekube_sim_test::make_daemonset(k_plugin_ns, name, spec);
}

// Plugin reading CONFIG_FILE from a ConfigMap mounted as a directory (key = file name).
Json plugin_with_config_map(const std::string& cm, const std::string& key) {
  return plugin_daemonset(
      "plugin",
      plugin_container({{"env", Json::array({{{"name", "CONFIG_FILE"}, {"value", "/etc/ts/" + key}}})},
                        {"volumeMounts", Json::array({{{"name", "ts"}, {"mountPath", "/etc/ts"}}})}}),
      Json::array({{{"name", "ts"}, {"configMap", {{"name", cm}}}}}));
}

// GFD in a DaemonSet of its own; with `cm`, reading CONFIG_FILE from that ConfigMap's `key`, as
// the plugin does.
Json gfd_daemonset(const std::string& cm = "", const std::string& key = "") {
  Json container = {{"name", "gpu-feature-discovery"},
                    {"image", "nvcr.io/nvidia/k8s-device-plugin:v0.17.1"},
                    {"command", Json::array({"gpu-feature-discovery"})}};
  Json spec = Json::object();
  if (!cm.empty()) {
    container["env"] = Json::array({{{"name", "CONFIG_FILE"}, {"value", "/etc/ts/" + key}}});
    container["volumeMounts"] = Json::array({{{"name", "ts"}, {"mountPath", "/etc/ts"}}});
    spec["volumes"] = Json::array({{{"name", "ts"}, {"configMap", {{"name", cm}}}}});
  }
  spec["containers"] = Json::array({std::move(container)});
  return fakekube_sim_test::make_daemonset(k_plugin_ns, "gfd", spec);
}

Json gpu_node(const std::string& name, const std::string& instance_type, int capacity) {
  Json labels = Json::object();
  if (!instance_type.empty()) labels["node.kubernetes.io/instance-type"] = instance_type;
  return fakekube_sim_test::make_node(name, labels, capacity);
}

Json node_resources(Cluster& cluster, const std::string& node, const std::string& list) {
  return cluster.get("/api/v1/nodes/" + node)["status"][list];
}

std::string allocatable(Cluster& cluster, const std::string& node, const std::string& resource = "nvidia.com/gpu") {
  return node_resources(cluster, node, "allocatable").value(resource, std::string("absent"));
}

void setup_namespace(Cluster& cluster) {
  cluster.api.load(Json{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", k_plugin_ns}}}});
}

// One g4dn.xlarge node ("gpu") and a plugin reading ConfigMap ts/any of `replicas`, ticked `ticks` times.
void start_one_gpu_plugin(Cluster& cluster, int replicas, int ticks) {
  setup_namespace(cluster);
  cluster.api.load(gpu_node("gpu", "g4dn.xlarge", 1));
  cluster.create(k_plugin_cms, config_map("ts", {{"any", time_slicing(replicas)}}));
  cluster.create(k_plugin_ds, plugin_with_config_map("ts", "any"));
  cluster.tick(ticks);
}

} // namespace

TEST_CASE("fakekube::sim::run_device_plugin takes the physical GPU count from the strongest source") {
  Cluster cluster;
  setup_namespace(cluster);
  // Each node has every weaker source too, disagreeing, so only the strongest can explain the result.
  Json annotated = gpu_node("annotated", "g4dn.12xlarge", 8);
  annotated["metadata"]["annotations"]["sim.fakekube.io/physical-gpus"] = "2";
  annotated["metadata"]["labels"]["nvidia.com/gpu.count"] = "3";
  Json labelled = gpu_node("labelled", "g4dn.12xlarge", 8);
  labelled["metadata"]["labels"]["nvidia.com/gpu.count"] = "3";
  cluster.api.load(Json::array({annotated, labelled, gpu_node("catalog", "g4dn.12xlarge", 8),
                                gpu_node("loaded", "", 8), gpu_node("cpu", "m5.xlarge", 0)}));

  // No plugin yet: the kubelet keeps capacity and allocates nothing.
  cluster.tick();
  CHECK(allocatable(cluster, "loaded") == "0");
  CHECK(node_resources(cluster, "loaded", "capacity")["nvidia.com/gpu"] == "8");

  cluster.create(k_plugin_ds, plugin_daemonset("plugin", plugin_container()));
  cluster.tick(3);
  CHECK(allocatable(cluster, "annotated") == "2");
  CHECK(allocatable(cluster, "labelled") == "3");
  CHECK(allocatable(cluster, "catalog") == "4");
  CHECK(allocatable(cluster, "loaded") == "8");
  CHECK(node_resources(cluster, "catalog", "capacity")["nvidia.com/gpu"] == "4");
  CHECK(allocatable(cluster, "cpu") == "absent");

  SUBCASE("the capacity at load is remembered, not the advertised one") {
    cluster.patch("/api/v1/nodes/catalog", {{"metadata", {{"labels", {{"node.kubernetes.io/instance-type", "x1.huge"}}}}}});
    cluster.tick();
    CHECK(allocatable(cluster, "catalog") == "8");
  }
  SUBCASE("without a plugin pod the GPUs stop being allocatable") {
    cluster.remove(k_plugin_ds + "/plugin");
    cluster.tick();
    CHECK(cluster.items(k_plugin_pods).empty());
    CHECK(allocatable(cluster, "annotated") == "0");
    CHECK(allocatable(cluster, "loaded") == "0");
    CHECK(node_resources(cluster, "annotated", "capacity")["nvidia.com/gpu"] == "2");
  }
}

TEST_CASE("fakekube::sim::resolve_plugin_config reads the config the DaemonSet references") {
  Cluster cluster;
  setup_namespace(cluster);
  Json labelled = gpu_node("labelled", "g4dn.12xlarge", 4);
  labelled["metadata"]["labels"]["nvidia.com/device-plugin.config"] = "two";
  cluster.api.load(Json::array({gpu_node("plain", "g4dn.12xlarge", 4), labelled}));
  cluster.create(k_plugin_cms, config_map("ts", {{"any", time_slicing(4)}, {"two", time_slicing(2)},
                                                 {"renamed", time_slicing(3, true)}}));

  SUBCASE("CONFIG_FILE naming a key of a mounted ConfigMap") {
    cluster.create(k_plugin_ds, plugin_with_config_map("ts", "any"));
    cluster.tick(3);
    CHECK(allocatable(cluster, "plain") == "16");
    CHECK(node_resources(cluster, "plain", "capacity")["nvidia.com/gpu"] == "16");
  }
  SUBCASE("--config-file through a ConfigMap volume's items") {
    cluster.create(k_plugin_ds,
                   plugin_daemonset("plugin",
                                    plugin_container({{"args", Json::array({"--config-file=/config/config.yaml"})},
                                                      {"volumeMounts", Json::array({{{"name", "cfg"}, {"mountPath", "/config"}}})}}),
                                    Json::array({{{"name", "cfg"},
                                                  {"configMap", {{"name", "ts"},
                                                                 {"items", Json::array({{{"key", "two"}, {"path", "config.yaml"}}})}}}}})));
    cluster.tick(3);
    CHECK(allocatable(cluster, "plain") == "8");
  }
  SUBCASE("the Helm chart's config-manager: node label first, then DEFAULT_CONFIG") {
    Json env = Json::array({{{"name", "CONFIG_FILE"}, {"value", "/config/config.yaml"}}});
    Json manager = {{"name", "nvidia-device-plugin-init"},
                    {"image", "nvcr.io/nvidia/k8s-device-plugin:v0.17.1"},
                    {"command", Json::array({"config-manager"})},
                    {"env", Json::array({{{"name", "ONESHOT"}, {"value", "true"}},
                                         {{"name", "NODE_LABEL"}, {"value", "nvidia.com/device-plugin.config"}},
                                         {{"name", "CONFIG_FILE_SRCDIR"}, {"value", "/available-configs"}},
                                         {{"name", "CONFIG_FILE_DST"}, {"value", "/config/config.yaml"}},
                                         {{"name", "DEFAULT_CONFIG"}, {"value", "any"}},
                                         {{"name", "FALLBACK_STRATEGIES"}, {"value", "named,single"}}})},
                    {"volumeMounts", Json::array({{{"name", "available-configs"}, {"mountPath", "/available-configs"}},
                                                  {{"name", "config"}, {"mountPath", "/config"}}})}};
    Json ds = plugin_daemonset(
        "plugin",
        plugin_container({{"env", env}, {"volumeMounts", Json::array({{{"name", "config"}, {"mountPath", "/config"}}})}}),
        Json::array({{{"name", "available-configs"}, {"configMap", {{"name", "ts"}}}},
                     {{"name", "config"}, {"emptyDir", Json::object()}}}));
    ds["spec"]["template"]["spec"]["initContainers"] = Json::array({manager});
    ds["spec"]["template"]["spec"]["shareProcessNamespace"] = true;
    cluster.create(k_plugin_ds, ds);
    cluster.tick(3);
    CHECK(allocatable(cluster, "plain") == "16");
    CHECK(allocatable(cluster, "labelled") == "8");
  }
  SUBCASE("renameByDefault advertises nvidia.com/gpu.shared instead") {
    cluster.create(k_plugin_ds, plugin_with_config_map("ts", "renamed"));
    cluster.tick(3);
    CHECK(allocatable(cluster, "plain", "nvidia.com/gpu.shared") == "12");
    CHECK(allocatable(cluster, "plain") == "0");
  }
}

TEST_CASE("fakekube::sim::run_kubelet crash-loops a plugin with an invalid config until it is fixed") {
  Cluster cluster;
  start_one_gpu_plugin(cluster, 1, 5);

  Json pods = cluster.items(k_plugin_pods);
  REQUIRE(pods.size() == 1);
  const Json& container = pods[0]["status"]["containerStatuses"][0];
  CHECK(container["state"]["waiting"]["reason"] == "CrashLoopBackOff");
  CHECK(container["state"]["waiting"]["message"].get<std::string>().find("number of replicas must be >= 2") !=
        std::string::npos);
  CHECK(container["restartCount"].get<int>() >= 1);
  CHECK(allocatable(cluster, "gpu") == "0");
  CHECK(cluster.get(k_plugin_ds + "/plugin")["status"]["numberReady"] == 0);

  // The crash-looping container re-reads the fixed file when it restarts.
  cluster.patch(k_plugin_cms + "/ts", {{"data", {{"any", time_slicing(4)}}}});
  cluster.tick(3);
  CHECK(allocatable(cluster, "gpu") == "4");
  CHECK(fakekube_sim_test::daemonset_rollout(cluster.get(k_plugin_ds + "/plugin")) ==
        "daemon set \"plugin\" successfully rolled out");
}

TEST_CASE("fakekube::sim::run_device_plugin does not reload a changed ConfigMap until the pod restarts") {
  Cluster cluster;
  start_one_gpu_plugin(cluster, 4, 3);
  REQUIRE(allocatable(cluster, "gpu") == "4");
  cluster.patch(k_plugin_cms + "/ts", {{"data", {{"any", time_slicing(2)}}}});
  cluster.tick(3);
  CHECK(allocatable(cluster, "gpu") == "4");
  const Json pods = cluster.items(k_plugin_pods);
  REQUIRE(pods.size() == 1);
  cluster.remove(k_plugin_pods + "/" + pods[0]["metadata"]["name"].get<std::string>());
  cluster.tick(3);
  CHECK(allocatable(cluster, "gpu") == "2");
}

TEST_CASE("fakekube::sim::run_device_plugin writes the GFD labels") {
  Cluster cluster;
  setup_namespace(cluster);
  cluster.api.load(gpu_node("gpu", "g4dn.xlarge", 1));
  cluster.create(k_plugin_cms, config_map("ts", {{"any", time_slicing(4)}, {"renamed", time_slicing(4, true)}}));
  std::string product, replicas, strategy, resource = "nvidia.com/gpu", slots = "4";
  SUBCASE("time-slicing") {
    cluster.create(k_plugin_ds, plugin_with_config_map("ts", "any"));
    cluster.create(k_plugin_ds, gfd_daemonset("ts", "any"));
    product = "Tesla-T4-SHARED", replicas = "4", strategy = "time-slicing";
  }
  SUBCASE("time-slicing, renamed: no -SHARED suffix") {
    cluster.create(k_plugin_ds, plugin_with_config_map("ts", "renamed"));
    cluster.create(k_plugin_ds, gfd_daemonset("ts", "renamed"));
    product = "Tesla-T4", replicas = "4", strategy = "time-slicing", resource = "nvidia.com/gpu.shared";
  }
  SUBCASE("no sharing") {
    cluster.create(k_plugin_ds, plugin_daemonset("plugin", plugin_container()));
    cluster.create(k_plugin_ds, gfd_daemonset());
    product = "Tesla-T4", replicas = "1", strategy = "none", slots = "1";
  }
  SUBCASE("the plugin time-sliced, GFD reading no config: GFD labels what it read, not what the plugin did") {
    cluster.create(k_plugin_ds, plugin_with_config_map("ts", "any"));
    cluster.create(k_plugin_ds, gfd_daemonset());
    product = "Tesla-T4", replicas = "1", strategy = "none";
  }
  cluster.tick(3);
  const Json labels = cluster.get("/api/v1/nodes/gpu")["metadata"]["labels"];
  CHECK(labels["nvidia.com/gpu.product"] == product);
  CHECK(labels["nvidia.com/gpu.count"] == "1");
  CHECK(labels["nvidia.com/gpu.replicas"] == replicas);
  CHECK(labels["nvidia.com/gpu.sharing-strategy"] == strategy);
  CHECK(labels["nvidia.com/gpu.memory"] == "15360"); // NVML's T4, not EC2's nominal 16384
  CHECK(labels["nvidia.com/gpu.family"] == "turing");
  CHECK(allocatable(cluster, "gpu", resource) == slots);
}

TEST_CASE("fakekube::sim::run_kubelet: a plugin on a node without GPUs exits unless failOnInitError is false") {
  Cluster cluster;
  setup_namespace(cluster);
  cluster.api.load(Json::array({gpu_node("gpu", "g4dn.xlarge", 1), gpu_node("cpu", "m5.xlarge", 0)}));
  Json container = plugin_container();
  bool fails = true;
  SUBCASE("the default: CrashLoopBackOff on the CPU node, as eksctl's static manifest does") {}
  SUBCASE("FAIL_ON_INIT_ERROR=false: it waits for devices, Ready") {
    container["env"] = Json::array({{{"name", "FAIL_ON_INIT_ERROR"}, {"value", "false"}}});
    fails = false;
  }
  SUBCASE("--fail-on-init-error=false") {
    container["args"] = Json::array({"--fail-on-init-error=false"});
    fails = false;
  }
  cluster.create(k_plugin_ds, plugin_daemonset("plugin", container));
  cluster.tick(3);
  for (const Json& pod : cluster.items(k_plugin_pods)) {
    const bool on_cpu = pod["spec"]["nodeName"] == "cpu";
    const Json& state = pod["status"]["containerStatuses"][0]["state"];
    if (on_cpu && fails) {
      CHECK(state["waiting"]["reason"] == "CrashLoopBackOff");
      CHECK(state["waiting"]["message"] == "nvml init failed: ERROR_LIBRARY_NOT_FOUND");
    } else {
      CHECK(state.contains("running"));
    }
  }
  CHECK(allocatable(cluster, "gpu") == "1");
  CHECK(fakekube_sim_test::daemonset_rollout(cluster.get(k_plugin_ds + "/plugin")) ==
        (fails ? "Waiting for daemon set \"plugin\" rollout to finish: 1 of 2 updated pods are available..."
               : "daemon set \"plugin\" successfully rolled out"));
}
