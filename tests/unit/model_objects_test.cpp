// SPDX-License-Identifier: Apache-2.0
// Node, Event, DaemonSet, Workload, ConfigMap and ClusterPolicy views: reading real shapes
// and writing back what reads the same.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <gpuslice/model.hpp>

#include "unit/builders.hpp"

using namespace gpuslice::model;
using namespace gpuslice::testing;

TEST_CASE("model::node_from_json") {
  Node n = NodeBuilder("gpu-1")
               .instance_type("g4dn.xlarge")
               .gpus(1)
               .taint("nvidia.com/gpu", "true", "NoSchedule")
               .unschedulable()
               .os_image("Bottlerocket OS 1.26.1 (aws-k8s-1.30-nvidia)")
               .build();
  CHECK(n.name() == "gpu-1");
  CHECK(n.instance_type() == "g4dn.xlarge");
  CHECK(n.unschedulable);
  REQUIRE(n.taints.size() == 2);
  CHECK(to_string(n.taints[0]) == "nvidia.com/gpu=true:NoSchedule");
  CHECK(n.ready() == true);
  CHECK(n.os_image.starts_with("Bottlerocket"));
  CHECK(quantity_of(n.capacity, "memory").value() == 16203652LL * 1024);
  CHECK(quantity_of(n.allocatable, "cpu").milli() == 3920);
  CHECK(NodeBuilder("x").not_ready().build().ready() == false);
  CHECK(node_from_json(to_json(n)) == n);
  SUBCASE("beta instance-type label") {
    CHECK(NodeBuilder("y").label("beta.kubernetes.io/instance-type", "p3.2xlarge").build().instance_type() ==
          "p3.2xlarge");
    CHECK(NodeBuilder("z").build().instance_type().empty());
  }
  SUBCASE("bad quantities are skipped, not fatal") {
    nlohmann::json j = NodeBuilder("q").json();
    j["status"]["capacity"]["nvidia.com/gpu"] = "lots";
    j["status"]["allocatable"]["nvidia.com/gpu"] = 2;
    Node q = node_from_json(j);
    CHECK(!q.capacity.contains("nvidia.com/gpu"));
    CHECK(quantity_of(q.allocatable, "nvidia.com/gpu").value() == 2);
  }
}

TEST_CASE("model::event_from_json") {
  SUBCASE("core/v1") {
    Event e = EventBuilder("NotTriggerScaleUp", "ml")
                  .pod("ml", "p-1")
                  .source("cluster-autoscaler")
                  .type("Normal")
                  .message("pod didn't trigger scale-up: 6 max node group size reached")
                  .count(12)
                  .last_timestamp(k_later)
                  .build();
    CHECK(e.reason == "NotTriggerScaleUp");
    CHECK(e.regarding.kind == "Pod");
    CHECK(e.regarding.ns == "ml");
    CHECK(e.regarding.name == "p-1");
    CHECK(e.component() == "cluster-autoscaler");
    CHECK(e.occurrences() == 12);
    CHECK(e.last_seen() == k_later);
    CHECK(event_from_json(to_json(e)) == e);
  }
  SUBCASE("events.k8s.io/v1") {
    Event e = EventBuilder("FailedScheduling", "ml").pod("ml", "p-2").message("0/3 nodes").events_v1(6).build();
    CHECK(e.message == "0/3 nodes");
    CHECK(e.regarding.name == "p-2");
    CHECK(e.source_component.empty());
    CHECK(e.component() == "default-scheduler"); // falls back to reportingController
    CHECK(e.occurrences() == 6);
    CHECK(e.last_seen() == "2026-01-01T12:05:00.000000Z");
    CHECK(e.action == "Scheduling");
    CHECK(event_from_json(to_json(e)) == e);
  }
  SUBCASE("Karpenter's FailedScheduling is told apart by its component") {
    Event e = EventBuilder("FailedScheduling").pod("ml", "p").source("karpenter").build();
    CHECK(e.component() == "karpenter");
  }
  SUBCASE("no count means once") {
    nlohmann::json j = EventBuilder("FailedScheduling").json();
    j.erase("count");
    CHECK(event_from_json(j).occurrences() == 1);
  }
}

TEST_CASE("model::daemonset_from_json") {
  DaemonSet d = DaemonSetBuilder("kube-system", "nvidia-device-plugin-daemonset")
                    .image("nvcr.io/nvidia/k8s-device-plugin:v0.17.1")
                    .args({"--fail-on-init-error=false"})
                    .env("CONFIG_FILE", "/config/config.yaml")
                    .config_map_volume("config", "time-slicing-config", "/config")
                    .node_selector("nvidia.com/gpu.deploy.device-plugin", "true")
                    .toleration("nvidia.com/gpu")
                    .owner("ClusterPolicy", "cluster-policy", true, "nvidia.com/v1")
                    .annotation("nvidia.com/last-applied-hash", "1234")
                    .status(3, 1)
                    .build();
  CHECK(d.meta.ns == "kube-system");
  REQUIRE(d.selector.has_value());
  CHECK(selector_matches(*d.selector, d.pod_template.labels));
  const Container& c = d.pod_template.spec.containers.at(0);
  CHECK(c.image == "nvcr.io/nvidia/k8s-device-plugin:v0.17.1");
  CHECK(c.args == std::vector<std::string>{"--fail-on-init-error=false"});
  CHECK(c.env.at(0).value == "/config/config.yaml");
  CHECK(c.volume_mounts.at(0).mount_path == "/config");
  CHECK(d.pod_template.spec.volumes.at(0).config_map == "time-slicing-config");
  CHECK(d.pod_template.spec.node_selector.at("nvidia.com/gpu.deploy.device-plugin") == "true");
  REQUIRE(d.meta.controller() != nullptr);
  CHECK(d.meta.controller()->kind == "ClusterPolicy");
  CHECK(d.status.desired_number_scheduled == 3);
  CHECK(d.status.number_ready == 1);
  CHECK(d.status.number_unavailable == 2);
  CHECK(d.update_strategy == "RollingUpdate");
  CHECK(daemonset_from_json(to_json(d)) == d);
}

TEST_CASE("model::workload_from_json") {
  Workload w = DeploymentBuilder("ml", "gpu-inference").replicas(2).gpus(1).toleration("nvidia.com/gpu").ready(1).build();
  CHECK(w.kind == "Deployment");
  CHECK(w.replicas == 2);
  CHECK(w.ready_replicas == 1);
  CHECK(effective_request(w.pod_template.spec, "nvidia.com/gpu").value() == 1);
  CHECK(workload_from_json(to_json(w)) == w);
  nlohmann::json no_replicas = DeploymentBuilder("ml", "x").json();
  no_replicas["spec"].erase("replicas");
  CHECK(workload_from_json(no_replicas).replicas == 1);
  CHECK(DeploymentBuilder("ml", "db").kind("StatefulSet").build().kind == "StatefulSet");
  nlohmann::json kindless = DeploymentBuilder("ml", "db").json();
  kindless.erase("kind");
  CHECK(workload_from_json(kindless, "StatefulSet").kind == "StatefulSet");
}

TEST_CASE("model::configmap_from_json") {
  ConfigMap c = ConfigMapBuilder("kube-system", "time-slicing-config")
                    .data("any", "version: v1\n")
                    .resource_version("777")
                    .created(k_later)
                    .build();
  CHECK(c.data.at("any") == "version: v1\n");
  CHECK(c.meta.resource_version == "777");
  CHECK(c.meta.creation_timestamp == k_later);
  CHECK(configmap_from_json(to_json(c)) == c);
}

TEST_CASE("model::cluster_policy_from_json") {
  nlohmann::json j = {{"apiVersion", "nvidia.com/v1"},
                      {"kind", "ClusterPolicy"},
                      {"metadata", {{"name", "cluster-policy"}}},
                      {"spec", {{"devicePlugin", {{"config", {{"name", "ts"}, {"default", "any"}}}}}}},
                      {"status", {{"state", "ready"}, {"namespace", "gpu-operator"}}}};
  ClusterPolicy p = cluster_policy_from_json(j);
  CHECK(p.device_plugin_enabled); // absent means enabled
  CHECK(p.config_name == "ts");
  CHECK(p.config_default == "any");
  CHECK(p.operator_namespace == "gpu-operator");
  CHECK(cluster_policy_from_json(to_json(p)) == p);
  j["spec"]["devicePlugin"]["enabled"] = false;
  CHECK(!cluster_policy_from_json(j).device_plugin_enabled);
}

TEST_CASE("model::parse_time") {
  CHECK(format_time(*parse_time("2026-01-01T12:00:00Z")) == "2026-01-01T12:00:00Z");
  CHECK(format_time(*parse_time("2026-12-01T08:58:00.123456Z")) == "2026-12-01T08:58:00Z");
  CHECK(format_time(*parse_time("2026-01-01T12:00:00+02:00")) == "2026-01-01T10:00:00Z");
  CHECK(format_time(*parse_time("2026-01-01T00:30:00-01:00")) == "2026-01-01T01:30:00Z");
  CHECK(*parse_time(k_created) < *parse_time(k_later));
  for (const char* bad : {"", "2026-01-01", "2026-13-01T00:00:00Z", "2026-02-30T00:00:00Z", "2026-01-01T25:00:00Z",
                          "2026-01-01T00:00:00", "2026-01-01T00:00:00.Z", "2026-01-01 00:00:00 +0000 UTC", "garbage"}) {
    CHECK_MESSAGE(!parse_time(bad), bad);
  }
}
