// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <gpuslice/report.hpp>

using namespace gpuslice;

namespace {

diagnose::Diagnosis incident() {
  diagnose::Diagnosis d;
  diagnose::NodeInventory n;
  n.name = "ip-10-0-1-5";
  n.instance_type = "g4dn.xlarge";
  n.gpu_product = "Tesla-T4";
  n.resource = "nvidia.com/gpu";
  n.physical_gpus = 1;
  n.allocatable = 1;
  n.requested = 1;
  n.taints = {"nvidia.com/gpu=true:NoSchedule"};
  d.nodes.push_back(n);

  diagnose::PendingPod p;
  p.ns = "ml";
  p.name = "gpu-inference-7d9f-abcde";
  p.resource = "nvidia.com/gpu";
  p.gpu_request = 1;
  p.scheduler.source = "event";
  p.scheduler.message = "0/9 nodes are available: 3 Insufficient nvidia.com/gpu, 6 node(s) didn't "
                        "match Pod's node affinity/selector.";
  p.scheduler.parsed = diagnose::parse_scheduler_message(p.scheduler.message);
  p.scaler.verdict = "NotTriggerScaleUp";
  p.scaler.component = "cluster-autoscaler";
  p.scaler.message = "pod didn't trigger scale-up: 6 max node group size reached";
  p.scaler.autoscaler = diagnose::parse_autoscaler_message(p.scaler.message);
  d.pending_pods.push_back(p);

  diagnose::Finding f = diagnose::make_finding(diagnose::FindingCode::GS300, "1 GPU pod Pending; GPUs are not shared");
  f.objects.push_back({"Node", "", "ip-10-0-1-5"});
  f.evidence.push_back("ip-10-0-1-5 advertises nvidia.com/gpu: 1");
  f.remedy = {"Enable time-slicing with 4 replicas per GPU.", "kubectl gpuslice apply --replicas 4"};
  d.findings.push_back(f);
  d.findings.push_back(diagnose::make_finding(diagnose::FindingCode::GS501, "untainted"));
  return d;
}

} // namespace

TEST_CASE("report::diagnosis_to_json") {
  REQUIRE(incident().pending_pods[0].scheduler.parsed.has_value());
  const nlohmann::ordered_json j = report::diagnosis_to_json(incident(), {"prod", "https://k.example"});
  CHECK(j["apiVersion"] == "gpuslice/v1alpha1");
  CHECK(j["kind"] == "Diagnosis");
  CHECK(j["cluster"]["context"] == "prod");
  CHECK(j["summary"]["pendingGpuPods"] == 1);
  CHECK(j["summary"]["gpuNodes"] == 1);
  CHECK(j["summary"]["physicalGpus"] == 1);
  CHECK(j["summary"]["gpuSlots"] == 1);
  CHECK(j["summary"]["gpuSlotsRequested"] == 1);
  CHECK(j["summary"]["findings"] == nlohmann::ordered_json{{"error", 1}, {"warning", 1}, {"info", 0}});
  const auto& f = j["findings"][0];
  CHECK(f["code"] == "GS300");
  CHECK(f["name"] == "time-slicing-disabled");
  CHECK(f["severity"] == "error");
  CHECK(f["objects"][0] == nlohmann::ordered_json{{"kind", "Node"}, {"name", "ip-10-0-1-5"}});
  CHECK(f["remedy"]["command"] == "kubectl gpuslice apply --replicas 4");
  CHECK(j["nodes"][0]["physicalGpus"].is_number_integer());
  CHECK(j["nodes"][0]["instanceType"] == "g4dn.xlarge");
  const auto& pod = j["pendingPods"][0];
  CHECK(pod["gpuRequest"] == 1);
  CHECK(pod["scheduler"]["nodesTotal"] == 9);
  CHECK(pod["scheduler"]["reasons"][0] ==
        nlohmann::ordered_json{{"count", 3}, {"reason", "Insufficient nvidia.com/gpu"}});
  CHECK(pod["autoscaler"]["verdict"] == "NotTriggerScaleUp");
  CHECK(pod["autoscaler"]["reasons"][0]["count"] == 6);
}

TEST_CASE("report::render_diagnosis") {
  const report::Style plain;
  SUBCASE("table: verdict, findings with remedy, node and pod tables") {
    const std::string out = report::render_diagnosis(incident(), {"prod", ""}, report::Format::table, plain);
    CHECK(out.rfind("1 GPU pod Pending: 1 error, 1 warning, 0 info (context prod)\n", 0) == 0);
    CHECK(out.find("ERRORS\n  GS300 time-slicing-disabled  1 GPU pod Pending; GPUs are not shared\n") != std::string::npos);
    CHECK(out.find("      $ kubectl gpuslice apply --replicas 4\n") != std::string::npos);
    CHECK(out.find("WARNINGS\n  GS501 gpu-node-untainted") != std::string::npos);
    CHECK(out.find("ip-10-0-1-5   g4dn.xlarge   Tesla-T4") != std::string::npos);
    CHECK(out.find("0/9: 3 Insufficient nvidia.com/gpu") != std::string::npos);
    CHECK(out.find("\x1b[") == std::string::npos);
  }
  SUBCASE("json parses back to the same tree") {
    const std::string out = report::render_diagnosis(incident(), {}, report::Format::json, plain);
    CHECK(nlohmann::ordered_json::parse(out) == report::diagnosis_to_json(incident(), {}));
  }
  SUBCASE("yaml carries the same keys") {
    const std::string out = report::render_diagnosis(incident(), {}, report::Format::yaml, plain);
    CHECK(out.rfind("apiVersion: gpuslice/v1alpha1\nkind: Diagnosis\n", 0) == 0);
    CHECK(out.find("  pendingGpuPods: 1\n") != std::string::npos);
  }
  SUBCASE("no GPU nodes and nothing pending") {
    const std::string out = report::render_diagnosis({}, {}, report::Format::table, plain);
    CHECK(out.rfind("No GPU pods are Pending: 0 errors, 0 warnings, 0 info\n", 0) == 0);
    CHECK(out.find("No GPU nodes found.") != std::string::npos);
  }
}

TEST_CASE("report::parse_format") {
  CHECK(report::parse_format("json") == report::Format::json);
  CHECK(report::parse_format("yaml") == report::Format::yaml);
  CHECK(report::parse_format("") == report::Format::table);
  CHECK_FALSE(report::parse_format("xml").has_value());
}
