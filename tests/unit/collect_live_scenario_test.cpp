// SPDX-License-Identifier: Apache-2.0
// The live collector against fakekube over HTTPS, on the runbook's EKS incident: the same
// snapshot as reading the scenario file, minus what the query plan deliberately leaves out.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <set>

#include "collect/live_assemble.hpp"
#include "unit/collect_live_support.hpp"

using namespace collect_test;
using gpuslice::Snapshot;

namespace {

// What the query plan keeps of a full dump: all nodes; pods that are Pending and request a
// GPU or that sit unfinished on a GPU node; events about those pending pods or GPU nodes;
// GPU-stack DaemonSets; GPU workloads and the cluster-autoscaler Deployment. The scenario file
// also holds CPU-node pods (aws-node, kube-proxy, coredns), the coredns Deployment and the
// aws-node/kube-proxy DaemonSets: a diagnosis needs none of them, so live collection skips them.
Snapshot expected_subset(Snapshot file) {
  std::set<std::string> gpu_nodes;
  for (const auto& node : file.nodes)
    if (gpuslice::model::is_gpu_node(node)) gpu_nodes.insert(node.name());
  std::set<std::pair<std::string, std::string>> pending;
  std::erase_if(file.pods, [&](const gpuslice::model::Pod& pod) {
    const bool pending_gpu = pod.phase == "Pending" && gpuslice::collect::requests_gpu(pod.spec);
    if (pending_gpu) pending.emplace(pod.meta.ns, pod.meta.name);
    const bool on_gpu_node = gpu_nodes.contains(pod.spec.node_name) && pod.phase != "Succeeded" && pod.phase != "Failed";
    return !pending_gpu && !on_gpu_node;
  });
  std::erase_if(file.events, [&](const gpuslice::model::Event& e) {
    return !(e.regarding.kind == "Pod" && pending.contains({e.regarding.ns, e.regarding.name})) &&
           !(e.regarding.kind == "Node" && gpu_nodes.contains(e.regarding.name));
  });
  std::erase_if(file.daemonsets, [](const gpuslice::model::DaemonSet& ds) {
    return gpuslice::collect::recognise_daemonset(ds) == gpuslice::collect::GpuComponent::none;
  });
  std::erase_if(file.deployments, [](const gpuslice::model::Workload& w) {
    return !gpuslice::collect::requests_gpu(w.pod_template.spec) && !gpuslice::collect::is_cluster_autoscaler(w);
  });
  std::erase_if(file.statefulsets,
                [](const gpuslice::model::Workload& w) { return !gpuslice::collect::requests_gpu(w.pod_template.spec); });
  std::vector<Snapshot> one{std::move(file)};
  return gpuslice::collect::assemble(one); // the collector's order: by namespace and name
}

} // namespace

TEST_CASE("collect::collect live equals the scenario file") {
  kube_test::Cluster cluster(incident());
  Snapshot live = gpuslice::collect::collect(*cluster.admin(), {});
  Snapshot file = gpuslice::collect::load_snapshot_files({incident_path()});

  SUBCASE("what the runbook's incident holds") {
    CHECK(live.nodes.size() == 9);
    // 4 Pending GPU pods, and on the 3 GPU nodes: aws-node, kube-proxy, the device plugin and one GPU pod each.
    CHECK(live.pods.size() == 4 + 3 * 4);
    CHECK(live.events.size() == 8);
    CHECK(names(live.daemonsets) == std::vector<std::string>{"nvidia-device-plugin/nvdp-nvidia-device-plugin",
                                                             "nvidia-device-plugin/nvdp-nvidia-device-plugin-mps-control-daemon"});
    CHECK(names(live.deployments) ==
          std::vector<std::string>{"kube-system/cluster-autoscaler", "ml/embeddings-worker", "ml/gpu-inference"});
    REQUIRE(live.helm_releases.size() == 1);
    CHECK(live.helm_releases[0].name == "nvdp");
    CHECK(live.helm_releases[0].chart_name == "nvidia-device-plugin");
    REQUIRE(live.autoscaler_status.has_value());
    CHECK(live.autoscaler_status->ns == "kube-system");
    CHECK(live.autoscaler_status->text.find("nodeGroups:") != std::string::npos);
    CHECK(live.meta.notes.empty());
  }
  SUBCASE("equal to the file's subset the query plan covers") {
    Snapshot want = normalised(expected_subset(file));
    Snapshot got = normalised(live);
    CHECK(names(got.nodes) == names(want.nodes));
    CHECK(names(got.pods) == names(want.pods));
    CHECK(names(got.events) == names(want.events));
    CHECK(got.nodes == want.nodes);
    CHECK(got.pods == want.pods);
    CHECK(got.events == want.events);
    CHECK(got.daemonsets == want.daemonsets);
    CHECK(got.deployments == want.deployments);
    CHECK(got.statefulsets == want.statefulsets);
    CHECK(got.configmaps == want.configmaps);
    CHECK(got.helm_releases == want.helm_releases);
    CHECK(got.cluster_policies == want.cluster_policies);
    CHECK(got.autoscaler_status == want.autoscaler_status);
    CHECK(got == want);
  }
  SUBCASE("meta names the cluster and the time") {
    CHECK(live.meta.server == cluster.server.url());
    CHECK_FALSE(live.meta.context.empty());
    CHECK(live.meta.namespace_scope.empty());
    CHECK(gpuslice::model::parse_time(live.meta.collected_at).has_value());
    CHECK(live.meta.collected_at.ends_with("Z"));
  }
}

TEST_CASE("collect::collect reads no Secret data and no Secret outside GPU namespaces") {
  kube_test::Cluster cluster(incident());
  cluster.server.clear_request_log();
  Snapshot live = gpuslice::collect::collect(*cluster.admin(), {});
  const auto log = cluster.server.request_log();
  // Secrets are listed only where GPU DaemonSets run, by Helm's owner label.
  CHECK(count_requests(log, "/api/v1/secrets") == 0);
  CHECK(count_requests(log, "/api/v1/namespaces/nvidia-device-plugin/secrets", "labelSelector=owner=helm") == 1);
  CHECK(count_requests(log, "/api/v1/namespaces/kube-system/secrets") == 0);
  const std::string written = gpuslice::write_snapshot(live);
  CHECK(written.find("\"release\":") == std::string::npos); // the encoded release payload is gone
}

TEST_CASE("collect::collect live and --from-file read the same DRA objects and claim pods") {
  const std::string dra_objects = std::string(GPUSLICE_SOURCE_DIR) + "/tests/fixtures/objects/dra-gpu-v1.json";
  fakekube::Scenario scenario = incident();
  scenario.server_version = "v1.34.2";  // resource.k8s.io/v1 is served from 1.34
  kube_test::Cluster cluster(scenario);
  std::ifstream in(dra_objects);
  cluster.server.api().load(nlohmann::json::parse(in)["items"]);
  Snapshot live = gpuslice::collect::collect(*cluster.admin(), {});
  Snapshot file = gpuslice::collect::load_snapshot_files({incident_path(), dra_objects});
  // What the server adds on create is not what either side read.
  auto bare = [](Snapshot& s) {
    auto strip = [](gpuslice::model::ObjectMeta& m) {
      normalise(m);
      m.uid.clear();
      m.creation_timestamp.clear();
    };
    for (auto& x : s.device_classes) strip(x.meta);
    for (auto& x : s.resource_slices) strip(x.meta);
    for (auto& x : s.resource_claims) strip(x.meta);
    for (auto& x : s.resource_claim_templates) strip(x.meta);
    for (auto& x : s.pods) strip(x.meta);
  };
  bare(live);
  bare(file);
  REQUIRE(live.resource_claims.size() == 1);
  CHECK(live.device_classes == file.device_classes);
  CHECK(live.resource_slices == file.resource_slices);
  CHECK(live.resource_claims == file.resource_claims);
  CHECK(live.resource_claim_templates == file.resource_claim_templates);
  auto trainer = [](const Snapshot& s) {
    const auto it = std::find_if(s.pods.begin(), s.pods.end(), [](const auto& p) { return p.meta.name == "trainer-0"; });
    REQUIRE(it != s.pods.end());
    return *it;
  };
  CHECK(trainer(live) == trainer(file));
}
