// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include <gpuslice/remedy/verify_smoke.hpp>

#include "unit/builders.hpp"

using gpuslice::Snapshot;
using gpuslice::remedy::CheckResult;
using gpuslice::remedy::CheckRow;
using gpuslice::remedy::judge_smoke;
using gpuslice::remedy::plan_smoke;
using gpuslice::remedy::smoke_deployment;
using gpuslice::remedy::SmokeOptions;
using gpuslice::remedy::SmokeOutcome;
using gpuslice::remedy::SmokePlan;
using namespace gpuslice::testing;

namespace {

// Two g4dn.xlarge (1 T4 each, from the instance catalog) advertising `advertised` each, one
// CPU node, and a workload pod holding one slot on gpu-a.
Snapshot smoke_cluster(int advertised, const std::string& resource = "nvidia.com/gpu") {
  Snapshot s;
  s.nodes.push_back(NodeBuilder("gpu-b").instance_type("g4dn.xlarge").gpus(advertised, resource).build());
  s.nodes.push_back(NodeBuilder("gpu-a").instance_type("g4dn.xlarge").gpus(advertised, resource).build());
  s.nodes.push_back(NodeBuilder("cpu-a").instance_type("m5.large").build());
  s.pods.push_back(PodBuilder("ml", "infer-0").container("infer", "infer:1").gpus(1, resource).running_on("gpu-a").build());
  s.pods.push_back(PodBuilder("ml", "done-0").container("job", "job:1").gpus(1, resource).node_name("gpu-b")
                       .phase("Succeeded").build());
  return s;
}

SmokeOptions smoke_options(int replicas) {
  SmokeOptions options;
  options.ns = "gpu-smoke";
  options.run_id = "abc123";
  options.replicas = replicas;
  return options;
}

gpuslice::model::Pod smoke_pod(const std::string& name) {
  return PodBuilder("gpu-smoke", name).container("smoke", "cuda").label("gpuslice.dev/smoke-run", "abc123").build();
}

gpuslice::model::Pod smoke_pod_on(const std::string& name, const std::string& node) {
  return PodBuilder("gpu-smoke", name).container("smoke", "cuda").running_on(node).build();
}

} // namespace

TEST_CASE("remedy::plan_smoke") {
  SUBCASE("fills each GPU node up to physical × replicas, less what running GPU pods hold") {
    const SmokePlan plan = plan_smoke(smoke_cluster(4), smoke_options(4));
    CHECK(plan.resource == "nvidia.com/gpu");
    CHECK(plan.name == "gpuslice-smoke-abc123");
    CHECK(plan.ns == "gpu-smoke");
    CHECK(plan.pod_selector() == "gpuslice.dev/smoke-run=abc123");
    REQUIRE(plan.nodes.size() == 2); // the CPU node is no GPU node
    CHECK(plan.nodes[0].name == "gpu-a");
    CHECK(plan.nodes[0].slots == 4);
    CHECK(plan.nodes[0].in_use == 1);
    CHECK(plan.nodes[0].pods() == 3);
    CHECK(plan.nodes[1].in_use == 0); // a Succeeded pod holds no slot
    CHECK(plan.nodes[1].pods() == 4);
    CHECK(plan.pods() == 7);
  }
  SUBCASE("before time-slicing the intended slots are still physical × replicas") {
    // Nodes advertise 1: the smoke asks for what --replicas promises, so it will not fit.
    const SmokePlan plan = plan_smoke(smoke_cluster(1), smoke_options(4));
    CHECK(plan.pods() == 7);
  }
  SUBCASE("renameByDefault: the resource the nodes advertise is nvidia.com/gpu.shared") {
    const SmokePlan plan = plan_smoke(smoke_cluster(4, "nvidia.com/gpu.shared"), smoke_options(4));
    CHECK(plan.resource == "nvidia.com/gpu.shared");
    CHECK(plan.nodes[0].in_use == 1);
  }
  SUBCASE("unknown physical count: what the node advertises") {
    Snapshot s;
    s.nodes.push_back(NodeBuilder("gpu-x").gpus(3).build());
    const SmokePlan plan = plan_smoke(s, smoke_options(4));
    REQUIRE(plan.nodes.size() == 1);
    CHECK(plan.nodes[0].slots == 3);
  }
}

TEST_CASE("remedy::smoke_deployment") {
  const SmokePlan plan = plan_smoke(smoke_cluster(4), smoke_options(4));
  SUBCASE("one-GPU pods on the GPU nodes, tolerating the GPU taint") {
    const nlohmann::json d = smoke_deployment(plan, smoke_options(4));
    CHECK(d["kind"] == "Deployment");
    CHECK(d["metadata"]["name"] == "gpuslice-smoke-abc123");
    CHECK(d["metadata"]["namespace"] == "gpu-smoke");
    CHECK(d["metadata"]["labels"]["app.kubernetes.io/name"] == "gpuslice-smoke");
    CHECK(d["spec"]["replicas"] == 7);
    CHECK(d["spec"]["selector"]["matchLabels"] == nlohmann::json{{"gpuslice.dev/smoke-run", "abc123"}});
    CHECK(d["spec"]["template"]["metadata"]["labels"]["gpuslice.dev/smoke-run"] == "abc123");
    const nlohmann::json& spec = d["spec"]["template"]["spec"];
    const nlohmann::json& container = spec["containers"][0];
    CHECK(container["image"] == gpuslice::remedy::k_smoke_default_image);
    CHECK(container["resources"]["limits"]["nvidia.com/gpu"] == "1");
    CHECK(container["resources"]["requests"]["nvidia.com/gpu"] == "1");
    CHECK(spec["tolerations"] == nlohmann::json::parse(R"([{"key":"nvidia.com/gpu","operator":"Exists"}])"));
    const nlohmann::json& term =
        spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"][0];
    CHECK(term["matchFields"][0]["key"] == "metadata.name");
    CHECK(term["matchFields"][0]["values"] == nlohmann::json{"gpu-a", "gpu-b"});
    CHECK(spec["securityContext"]["runAsNonRoot"] == true);
    CHECK(spec["automountServiceAccountToken"] == false);
  }
  SUBCASE("--taint and --smoke-image are what the pods tolerate and run") {
    SmokeOptions options = smoke_options(4);
    options.taint = gpuslice::model::Taint{"gpu", "yes", "NoExecute", ""};
    options.image = "registry.example/cuda:1";
    const nlohmann::json d = smoke_deployment(plan, options);
    CHECK(d["spec"]["template"]["spec"]["tolerations"] ==
          nlohmann::json::parse(R"([{"key":"gpu","operator":"Exists","effect":"NoExecute"}])"));
    CHECK(d["spec"]["template"]["spec"]["containers"][0]["image"] == "registry.example/cuda:1");
  }
  SUBCASE("a full node is left out of the node list") {
    Snapshot s = smoke_cluster(1);
    const nlohmann::json d = smoke_deployment(plan_smoke(s, smoke_options(1)), smoke_options(1));
    CHECK(d["spec"]["replicas"] == 1);
    CHECK(d["spec"]["template"]["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
              ["nodeSelectorTerms"][0]["matchFields"][0]["values"] == nlohmann::json{"gpu-b"});
  }
}

TEST_CASE("remedy::judge_smoke") {
  const SmokePlan plan = plan_smoke(smoke_cluster(4), smoke_options(4)); // gpu-a 3, gpu-b 4
  SUBCASE("every pod Running on its node and the Deployment removed: pass") {
    SmokeOutcome outcome;
    for (int i = 0; i < 3; ++i) outcome.pods.push_back(smoke_pod_on("a" + std::to_string(i), "gpu-a"));
    for (int i = 0; i < 4; ++i) outcome.pods.push_back(smoke_pod_on("b" + std::to_string(i), "gpu-b"));
    const std::vector<CheckRow> rows = judge_smoke(plan, outcome);
    REQUIRE(rows.size() == 3);
    CHECK(rows[0] == CheckRow{"smoke", "node/gpu-a", CheckResult::pass, "3 Running", "3 Running",
                              "4 slot(s), 1 held by other GPU pods"});
    CHECK(rows[1].result == CheckResult::pass);
    CHECK(rows[2].object == "deployment/gpu-smoke/gpuslice-smoke-abc123");
    CHECK(rows[2].result == CheckResult::pass);
    CHECK(rows[2].actual == "7 Running, 0 Pending, 0 starting");
    CHECK(rows[2].detail == "removed");
  }
  SUBCASE("pods stuck Pending: how many, and the scheduler's reason") {
    SmokeOutcome outcome;
    outcome.timed_out = true;
    for (int i = 0; i < 3; ++i) outcome.pods.push_back(smoke_pod_on("a" + std::to_string(i), "gpu-a"));
    const std::string message = "0/5 nodes are available: 2 Insufficient nvidia.com/gpu, 3 node(s) didn't match "
                                "Pod's node affinity/selector.";
    for (int i = 0; i < 4; ++i)
      outcome.pods.push_back(
          PodBuilder("gpu-smoke", "p" + std::to_string(i)).container("smoke", "cuda").unschedulable(message).build());
    const std::vector<CheckRow> rows = judge_smoke(plan, outcome);
    REQUIRE(rows.size() == 3);
    CHECK(rows[0].result == CheckResult::pass);
    CHECK(rows[1].result == CheckResult::fail);
    CHECK(rows[1].actual == "0 Running");
    CHECK(rows[2].result == CheckResult::fail);
    CHECK(rows[2].actual == "3 Running, 4 Pending, 0 starting");
    CHECK(rows[2].detail == "timed out; 4 pod(s) Pending: " + message + "; removed");
  }
  SUBCASE("a container that does not start is named") {
    SmokeOutcome outcome;
    outcome.pods.push_back(PodBuilder("gpu-smoke", "s0").container("smoke", "cuda").running_on("gpu-a")
                               .waiting("ImagePullBackOff").build());
    outcome.pods.push_back(smoke_pod("s1"));
    const std::vector<CheckRow> rows = judge_smoke(plan, outcome);
    CHECK(rows.back().actual == "0 Running, 1 Pending, 1 starting");
    CHECK(rows.back().detail == "1 pod(s) Pending, not yet scheduled; s0: smoke ImagePullBackOff; removed");
  }
  SUBCASE("a Deployment that could not be removed fails, with the command to remove it") {
    SmokeOutcome outcome;
    for (int i = 0; i < 7; ++i) outcome.pods.push_back(smoke_pod_on("x" + std::to_string(i), i < 3 ? "gpu-a" : "gpu-b"));
    outcome.removed = false;
    outcome.removal_error = "still deleting after 60s";
    const std::vector<CheckRow> rows = judge_smoke(plan, outcome);
    CHECK(rows.back().result == CheckResult::fail);
    CHECK(rows.back().detail ==
          "NOT removed (still deleting after 60s): kubectl -n gpu-smoke delete deployment gpuslice-smoke-abc123");
  }
  SUBCASE("a node with no free slot is skipped; no GPU node fails") {
    const std::vector<CheckRow> full = judge_smoke(plan_smoke(smoke_cluster(1), smoke_options(1)), SmokeOutcome{});
    CHECK(full[0].result == CheckResult::skipped);
    CHECK(full[0].object == "node/gpu-a");
    const std::vector<CheckRow> none = judge_smoke(plan_smoke(Snapshot{}, smoke_options(4)), SmokeOutcome{});
    REQUIRE(none.size() == 1);
    CHECK(none[0].result == CheckResult::fail);
  }
}
