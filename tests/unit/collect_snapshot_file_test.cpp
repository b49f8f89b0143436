// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <gpuslice/collect.hpp>
#include <gpuslice/snapshot.hpp>

#include "unit/builders.hpp"

using namespace gpuslice;
using namespace gpuslice::testing;

namespace {

Snapshot sample() {
  Snapshot s;
  s.meta = {"prod-eks", "https://ABCD.gr7.us-west-2.eks.amazonaws.com", "2026-12-01T09:05:00Z", "",
            {"could not read secrets in kube-system: forbidden"}};
  s.nodes.push_back(NodeBuilder("gpu-1").instance_type("g4dn.xlarge").gpus(1).taint("nvidia.com/gpu", "true",
                                                                                     "NoSchedule").build());
  s.nodes.push_back(NodeBuilder("cpu-1").instance_type("m5.xlarge").unschedulable().build());
  s.pods.push_back(PodBuilder("ml", "infer-0")
                       .container("app", "triton")
                       .gpus(1)
                       .request("cpu", "1500m")
                       .affinity("nvidia.com/gpu.product", "In", {"Tesla-T4"})
                       .toleration("nvidia.com/gpu")
                       .unschedulable("0/2 nodes are available: 1 Insufficient nvidia.com/gpu.")
                       .owner("ReplicaSet", "infer-abc")
                       .build());
  s.pods.push_back(PodBuilder("kube-system", "nvdp-x").container("ctr", "k8s-device-plugin:v0.17.1")
                       .running_on("gpu-1").waiting("CrashLoopBackOff", 4).build());
  s.events.push_back(EventBuilder("FailedScheduling", "ml").pod("ml", "infer-0").message("0/2 nodes").count(3).build());
  s.events.push_back(EventBuilder("FailedScheduling", "ml").pod("ml", "infer-1").message("m").events_v1(5).build());
  s.daemonsets.push_back(DaemonSetBuilder("kube-system", "nvdp")
                             .image("nvcr.io/nvidia/k8s-device-plugin:v0.17.1")
                             .args({"--config-file=/config/config.yaml"})
                             .env("FAIL_ON_INIT_ERROR", "false")
                             .config_map_volume("config", "time-slicing-config", "/config")
                             .toleration("nvidia.com/gpu")
                             .affinity("nvidia.com/gpu.present", "In", {"true"})
                             .owner("ClusterPolicy", "cluster-policy", true, "nvidia.com/v1")
                             .status(3, 2)
                             .build());
  s.deployments.push_back(DeploymentBuilder("ml", "infer").replicas(5).gpus(1).ready(2).build());
  s.statefulsets.push_back(DeploymentBuilder("ml", "db").kind("StatefulSet").replicas(1).build());
  s.configmaps.push_back(ConfigMapBuilder("kube-system", "time-slicing-config").data("any", "version: v1\n").build());
  s.helm_releases.push_back({"sh.helm.release.v1.nvdp.v1", "nvdp", "kube-system", 1, "deployed",
                             "nvidia-device-plugin", "0.17.1", "0.17.1", "2026-11-30T10:00:00Z",
                             {{"DaemonSet", "kube-system", "nvdp-nvidia-device-plugin"}}});
  model::ClusterPolicy policy;
  policy.meta.name = "cluster-policy";
  policy.config_name = "time-slicing-config";
  policy.config_default = "any";
  s.cluster_policies.push_back(policy);
  s.autoscaler_status = AutoscalerStatus{"kube-system", "Cluster-autoscaler status at 2026-12-01 …\n",
                                         "2026-12-01 09:03:14.551871 +0000 UTC"};
  return s;
}

} // namespace

TEST_CASE("gpuslice::snapshot_to_json") {
  Snapshot s = sample();
  nlohmann::json list = snapshot_to_json(s);
  CHECK(list["apiVersion"] == "v1");
  CHECK(list["kind"] == "List");
  const nlohmann::json& annotations = list["metadata"]["annotations"];
  CHECK(annotations["gpuslice.dev/snapshot"] == "1");
  CHECK(annotations["gpuslice.dev/context"] == "prod-eks");
  CHECK(nlohmann::json::parse(annotations["gpuslice.dev/notes"].get<std::string>()).size() == 1);
  for (const nlohmann::json& item : list["items"]) {
    CHECK(item.contains("apiVersion"));
    CHECK(item.contains("kind"));
    CHECK(item["metadata"].contains("name"));
    if (item["kind"] == "Secret") CHECK(!item.contains("data"));
  }
  CHECK(list["items"][0]["kind"] == "Node");
  CHECK(list["items"].back()["kind"] == "Secret");
}

TEST_CASE("gpuslice::write_snapshot round trip") {
  Snapshot original = sample();
  std::string text = write_snapshot(original);
  CHECK(text.ends_with("\n"));
  Snapshot again;
  collect::merge_text(again, text, "snapshot.json");
  CHECK(again.meta == original.meta);
  CHECK(again.nodes == original.nodes);
  CHECK(again.pods == original.pods);
  CHECK(again.events == original.events);
  CHECK(again.daemonsets == original.daemonsets);
  CHECK(again.deployments == original.deployments);
  CHECK(again.statefulsets == original.statefulsets);
  CHECK(again.configmaps == original.configmaps);
  CHECK(again.helm_releases == original.helm_releases);
  CHECK(again.cluster_policies == original.cluster_policies);
  CHECK(again.autoscaler_status == original.autoscaler_status);
  CHECK(again == original);
  SUBCASE("writing again gives the same bytes") { CHECK(write_snapshot(again) == text); }
}
