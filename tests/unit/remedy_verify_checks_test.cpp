// SPDX-License-Identifier: Apache-2.0
#include <algorithm>

#include <doctest/doctest.h>

#include <gpuslice/remedy/verify.hpp>

#include "unit/builders.hpp"

using gpuslice::Snapshot;
using gpuslice::remedy::CheckResult;
using gpuslice::remedy::CheckRow;
using gpuslice::remedy::verify;
using gpuslice::remedy::VerifyOptions;
using gpuslice::remedy::VerifyReport;
using namespace gpuslice::testing;

namespace {

constexpr const char* k_verify_image = "nvcr.io/nvidia/k8s-device-plugin:v0.20.0";

// A g4dn.xlarge (1 T4) time-sliced 4 ways with GFD labels, the present label and the taint.
NodeBuilder healthy_node(const std::string& name) {
  NodeBuilder node(name);
  node.instance_type("g4dn.xlarge").gpus(4).gfd("Tesla-T4-SHARED", 1, 4).label("nvidia.com/gpu.present", "true")
      .taint("nvidia.com/gpu", "present", "NoSchedule");
  return node;
}

gpuslice::model::Pod plugin_pod(const std::string& node, bool ready = true) {
  PodBuilder pod("nvidia", "nvdp-" + node);
  pod.container("nvidia-device-plugin-ctr", k_verify_image).owner("DaemonSet", "nvdp-nvidia-device-plugin").running_on(node);
  if (!ready) pod.waiting("CrashLoopBackOff", 5);
  return pod.build();
}

Snapshot healthy_cluster() {
  Snapshot s;
  s.nodes.push_back(healthy_node("gpu-a").build());
  s.nodes.push_back(NodeBuilder("cpu-a").instance_type("m5.large").build());
  s.daemonsets.push_back(DaemonSetBuilder("nvidia", "nvdp-nvidia-device-plugin").container("nvidia-device-plugin-ctr", k_verify_image).build());
  s.pods.push_back(plugin_pod("gpu-a"));
  s.deployments.push_back(DeploymentBuilder("ml", "infer").gpus(1).toleration("nvidia.com/gpu").build());
  return s;
}

VerifyOptions four_with_taint() {
  VerifyOptions o;
  o.replicas = 4;
  o.taint = gpuslice::model::parse_taint("nvidia.com/gpu=present:NoSchedule");
  return o;
}

CheckRow row_of(const VerifyReport& report, std::string_view check, const std::string& object) {
  for (const CheckRow& r : report.rows)
    if (r.check == check && r.object == object) return r;
  FAIL("no row " << check << " " << object);
  throw std::logic_error("unreachable");
}

} // namespace

TEST_CASE("remedy::verify — a healthy time-sliced cluster passes every check") {
  const VerifyReport report = verify(healthy_cluster(), four_with_taint());
  for (const CheckRow& r : report.rows) CHECK_MESSAGE(r.result != CheckResult::fail, r.check << " " << r.object << ": " << r.detail);
  CHECK(report.passed());
  CHECK(row_of(report, "allocatable", "node/gpu-a").expected == "4");
  CHECK(row_of(report, "workload-toleration", "deployment/ml/infer").result == CheckResult::pass);
  CHECK(row_of(report, "pending-scheduled", "cluster").result == CheckResult::pass);
  CHECK(row_of(report, "autoscaler-template", "cluster").result == CheckResult::skipped);
  // CPU nodes are not checked.
  for (const CheckRow& r : report.rows) CHECK(r.object != "node/cpu-a");
}

TEST_CASE("remedy::verify — plugin-ready") {
  Snapshot s = healthy_cluster();
  SUBCASE("no plugin pod on the node") {
    s.pods.clear();
    const CheckRow row = row_of(verify(s, four_with_taint()), "plugin-ready", "node/gpu-a");
    CHECK(row.result == CheckResult::fail);
    CHECK(row.actual == "no plugin pod");
  }
  SUBCASE("crash-looping plugin pod") {
    s.pods = {plugin_pod("gpu-a", false)};
    const CheckRow row = row_of(verify(s, four_with_taint()), "plugin-ready", "node/gpu-a");
    CHECK(row.result == CheckResult::fail);
    CHECK(row.actual.find("CrashLoopBackOff") != std::string::npos);
  }
  SUBCASE("Bottlerocket runs it on the host") {
    s.pods.clear();
    s.nodes[0] = healthy_node("gpu-a").os_image("Bottlerocket OS 1.26.1 (aws-k8s-1.30-nvidia)").build();
    CHECK(row_of(verify(s, four_with_taint()), "plugin-ready", "node/gpu-a").result == CheckResult::pass);
  }
}

TEST_CASE("remedy::verify — allocatable and GFD labels") {
  Snapshot s = healthy_cluster();
  SUBCASE("config not picked up: physical GPUs only") {
    s.nodes[0] = NodeBuilder("gpu-a").instance_type("g4dn.xlarge").gpus(1).gfd("Tesla-T4", 1, 1)
                     .label("nvidia.com/gpu.present", "true").build();
    s.daemonsets.push_back(DaemonSetBuilder("nvidia", "nvdp-nvidia-device-plugin-gpu-feature-discovery")
                               .container("gpu-feature-discovery-ctr", k_verify_image)
                               .command({"gpu-feature-discovery"})
                               .build());
    const VerifyReport report = verify(s, four_with_taint());
    const CheckRow alloc = row_of(report, "allocatable", "node/gpu-a");
    CHECK(alloc.result == CheckResult::fail);
    CHECK(alloc.actual == "1");
    CHECK(alloc.expected == "4");
    const CheckRow gfd = row_of(report, "gfd-labels", "node/gpu-a");
    CHECK(gfd.result == CheckResult::fail);
    CHECK(gfd.actual == "replicas=1,sharing-strategy=none");
  }
  SUBCASE("stale GFD labels, no GFD running: skipped with the reason and the fix") {
    s.nodes[0] = NodeBuilder("gpu-a").instance_type("g4dn.xlarge").gpus(4).gfd("Tesla-T4", 1, 1)
                     .label("nvidia.com/gpu.present", "true").build();
    const VerifyReport report = verify(s, four_with_taint());
    const CheckRow gfd = row_of(report, "gfd-labels", "node/gpu-a");
    CHECK(gfd.result == CheckResult::skipped);
    CHECK(gfd.actual == "replicas=1,sharing-strategy=none (stale)");
    CHECK(gfd.detail == "stale GFD labels, gpu-feature-discovery is not running (GS408): kubectl label node gpu-a "
                        "nvidia.com/gpu.count- nvidia.com/gpu.memory- nvidia.com/gpu.product- nvidia.com/gpu.replicas- "
                        "nvidia.com/gpu.sharing-strategy- (or apply --gfd)");
    // The chart's GFD container in the plugin DaemonSet runs GFD: the labels are checked again.
    s.daemonsets[0] = DaemonSetBuilder("nvidia", "nvdp-nvidia-device-plugin")
                          .container("nvidia-device-plugin-ctr", k_verify_image)
                          .container("gpu-feature-discovery", k_verify_image)
                          .build();
    CHECK(row_of(verify(s, four_with_taint()), "gfd-labels", "node/gpu-a").result == CheckResult::fail);
  }
  SUBCASE("no GFD labels at all") {
    s.nodes[0] = NodeBuilder("gpu-a").instance_type("g4dn.xlarge").gpus(4).label("nvidia.com/gpu.present", "true").build();
    const VerifyReport report = verify(s, four_with_taint());
    CHECK(row_of(report, "allocatable", "node/gpu-a").result == CheckResult::pass); // from the instance type
    const CheckRow gfd = row_of(report, "gfd-labels", "node/gpu-a");
    CHECK(gfd.actual == "no GFD labels");
    // GFD is optional: without a GFD DaemonSet the check is skipped, with one it fails.
    CHECK(gfd.result == CheckResult::skipped);
    s.daemonsets.push_back(DaemonSetBuilder("nvidia", "nvdp-nvidia-device-plugin-gpu-feature-discovery")
                               .container("gpu-feature-discovery-ctr", k_verify_image)
                               .command({"gpu-feature-discovery"})
                               .build());
    CHECK(row_of(verify(s, four_with_taint()), "gfd-labels", "node/gpu-a").result == CheckResult::fail);
  }
  SUBCASE("unknown instance type without GFD: physical count unknown") {
    s.nodes[0] = NodeBuilder("gpu-a").instance_type("x9.huge").gpus(4).label("nvidia.com/gpu.present", "true").build();
    CHECK(row_of(verify(s, four_with_taint()), "allocatable", "node/gpu-a").result == CheckResult::unknown);
  }
}

TEST_CASE("remedy::verify — present label and taint") {
  Snapshot s = healthy_cluster();
  s.nodes[0] = NodeBuilder("gpu-a").instance_type("g4dn.xlarge").gpus(4).gfd("Tesla-T4-SHARED", 1, 4).build();
  const VerifyReport report = verify(s, four_with_taint());
  CHECK(row_of(report, "present-label", "node/gpu-a").result == CheckResult::fail);
  const CheckRow taint = row_of(report, "gpu-taint", "node/gpu-a");
  CHECK(taint.result == CheckResult::fail);
  CHECK(taint.detail == "kubectl taint node gpu-a nvidia.com/gpu=present:NoSchedule --overwrite");
  VerifyOptions no_taint = four_with_taint();
  no_taint.taint.reset();
  CHECK(row_of(verify(s, no_taint), "gpu-taint", "node/gpu-a").result == CheckResult::skipped);
}

TEST_CASE("remedy::verify — workload-toleration") {
  Snapshot s = healthy_cluster();
  s.deployments = {DeploymentBuilder("ml", "train").gpus(1).build()};
  SUBCASE("template without toleration and no pod: fails with the patch that adds the list") {
    const CheckRow row = row_of(verify(s, four_with_taint()), "workload-toleration", "deployment/ml/train");
    CHECK(row.result == CheckResult::fail);
    CHECK(row.detail.find("\"path\":\"/spec/template/spec/tolerations\"") != std::string::npos);
  }
  SUBCASE("a scheduled pod with the admission-added toleration passes") {
    s.pods.push_back(PodBuilder("ml", "train-1").label("app", "train").gpus(1).toleration("nvidia.com/gpu").running_on("gpu-a").build());
    CHECK(row_of(verify(s, four_with_taint()), "workload-toleration", "deployment/ml/train").result == CheckResult::pass);
  }
  SUBCASE("a Pending pod went through admission too: its tolerations count") {
    s.pods.push_back(PodBuilder("ml", "train-2").label("app", "train").gpus(1).toleration("nvidia.com/gpu")
                         .unschedulable("0/2 nodes are available").build());
    const CheckRow row = row_of(verify(s, four_with_taint()), "workload-toleration", "deployment/ml/train");
    CHECK(row.result == CheckResult::pass);
    CHECK(row.detail.find("train-2") != std::string::npos);
  }
  SUBCASE("a pod of another workload does not count") {
    s.pods.push_back(PodBuilder("ml", "other-1").label("app", "other").gpus(1).toleration("nvidia.com/gpu").running_on("gpu-a").build());
    CHECK(row_of(verify(s, four_with_taint()), "workload-toleration", "deployment/ml/train").result == CheckResult::fail);
  }
}

TEST_CASE("remedy::verify — pending-scheduled") {
  Snapshot s = healthy_cluster();
  s.pods.push_back(PodBuilder("ml", "stuck").gpus(1).unschedulable("0/2 nodes are available: 1 Insufficient nvidia.com/gpu.").build());
  s.pods.push_back(PodBuilder("ml", "placed").gpus(1).running_on("gpu-a").build());
  VerifyOptions o = four_with_taint();
  o.formerly_pending = {"ml/placed", "ml/gone"};
  const VerifyReport report = verify(s, o);
  CHECK(row_of(report, "pending-scheduled", "pod/ml/placed").result == CheckResult::pass);
  CHECK(row_of(report, "pending-scheduled", "pod/ml/gone").result == CheckResult::unknown);
  CHECK(row_of(report, "pending-scheduled", "pod/ml/stuck").result == CheckResult::fail);
  CHECK_FALSE(report.passed());
}

TEST_CASE("remedy::verify — autoscaler-template") {
  Snapshot s = healthy_cluster();
  s.autoscaler_status = gpuslice::AutoscalerStatus{"kube-system", "Cluster-autoscaler status at 2026-01-01", ""};
  CHECK(row_of(verify(s, four_with_taint()), "autoscaler-template", "cluster").result == CheckResult::unknown);
  VerifyOptions unshared = four_with_taint();
  unshared.replicas = 1;
  CHECK(row_of(verify(s, unshared), "autoscaler-template", "cluster").result == CheckResult::pass);
}

TEST_CASE("remedy::verify — the shares' resource and the nodes the change was for") {
  Snapshot s = healthy_cluster();
  SUBCASE("renamed resource: only nvidia.com/gpu.shared counts") {
    s.nodes[0] = healthy_node("gpu-a").build();
    s.nodes[0].allocatable.erase("nvidia.com/gpu");
    s.nodes[0].allocatable.insert_or_assign("nvidia.com/gpu.shared", gpuslice::model::Quantity::from_units(4));
    VerifyOptions options = four_with_taint();
    options.resource = "nvidia.com/gpu.shared";
    const CheckRow alloc = row_of(verify(s, options), "allocatable", "node/gpu-a");
    CHECK(alloc.result == CheckResult::pass);
    CHECK(alloc.actual == "4 nvidia.com/gpu.shared");
    CHECK(alloc.expected == "4 nvidia.com/gpu.shared");
    // The plugin still advertising the base name is not the renamed shares.
    s.nodes[0] = healthy_node("gpu-a").build();
    const CheckRow base = row_of(verify(s, options), "allocatable", "node/gpu-a");
    CHECK(base.result == CheckResult::fail);
    CHECK(base.actual == "0 nvidia.com/gpu.shared");
  }
  SUBCASE("only the nodes named are checked; one that is gone is unknown") {
    s.nodes.push_back(NodeBuilder("gpu-b").instance_type("g4dn.xlarge").gpus(1).build()); // never changed
    VerifyOptions options = four_with_taint();
    options.nodes = {"gpu-a", "gpu-gone"};
    const VerifyReport report = verify(s, options);
    CHECK(row_of(report, "allocatable", "node/gpu-a").result == CheckResult::pass);
    CHECK(std::none_of(report.rows.begin(), report.rows.end(), [](const CheckRow& r) { return r.object == "node/gpu-b"; }));
    const CheckRow gone = row_of(report, "plugin-ready", "node/gpu-gone");
    CHECK(gone.result == CheckResult::unknown);
    CHECK(gone.actual == "gone");
    CHECK(report.passed());
    // Without names every GPU node is checked, gpu-b too.
    CHECK_FALSE(verify(s, four_with_taint()).passed());
  }
}

TEST_CASE("remedy::verify — GPU nodes that joined after the change are checked, with the restart for #1645") {
  Snapshot s = healthy_cluster();
  // gpu-new joined after the apply; its plugin pod came up before the config and registered
  // the physical GPU only.
  s.nodes.push_back(NodeBuilder("gpu-new").instance_type("g4dn.xlarge").gpus(1).label("nvidia.com/gpu.present", "true")
                        .taint("nvidia.com/gpu", "present", "NoSchedule").created("2026-12-01T10:05:00Z").build());
  s.pods.push_back(plugin_pod("gpu-new"));
  VerifyOptions options = four_with_taint();
  options.nodes = {"gpu-a"};
  options.changed_at = "2026-12-01T10:00:00Z";
  const VerifyReport report = verify(s, options);
  const CheckRow fresh = row_of(report, "allocatable", "node/gpu-new");
  CHECK(fresh.result == CheckResult::fail);
  CHECK(fresh.detail == "joined after the change (2026-12-01T10:05:00Z) and registers 1: the config-manager race of "
                        "NVIDIA/k8s-device-plugin#1645; restart its plugin pod: kubectl -n nvidia delete pod nvdp-gpu-new");
  CHECK(row_of(report, "present-label", "node/gpu-new").result == CheckResult::pass);
  // apply --wait names it with the restart command too.
  const gpuslice::remedy::RolloutStatus waiting = gpuslice::remedy::rollout_status(s, options);
  CHECK(std::any_of(waiting.waiting_for.begin(), waiting.waiting_for.end(), [](const std::string& w) {
    return w == "allocatable node/gpu-new: 1 (want 4): joined after the change (2026-12-01T10:05:00Z) and registers 1: "
                "the config-manager race of NVIDIA/k8s-device-plugin#1645; restart its plugin pod: kubectl -n nvidia "
                "delete pod nvdp-gpu-new";
  }));
  SUBCASE("once it advertises the shares it passes") {
    s.nodes.back() = NodeBuilder("gpu-new").instance_type("g4dn.xlarge").gpus(4).label("nvidia.com/gpu.present", "true")
                         .taint("nvidia.com/gpu", "present", "NoSchedule").created("2026-12-01T10:05:00Z").build();
    CHECK(verify(s, options).passed());
  }
  SUBCASE("a node older than the change that apply was not for stays out") {
    options.changed_at = "2026-12-01T11:00:00Z";
    const VerifyReport older = verify(s, options);
    CHECK(std::none_of(older.rows.begin(), older.rows.end(), [](const CheckRow& r) { return r.object == "node/gpu-new"; }));
  }
}

TEST_CASE("remedy::report_changes: what verify --watch prints between rounds") {
  VerifyReport before;
  before.rows.push_back({"allocatable", "node/gpu-a", CheckResult::pass, "4", "4", "1 GPU(s) × 4 replicas"});
  VerifyReport after = before;
  CHECK(gpuslice::remedy::report_changes(before, after).empty());
  after.rows.push_back({"allocatable", "node/gpu-new", CheckResult::fail, "4", "1", "restart it"});
  after.rows[0].result = CheckResult::fail;
  after.rows[0].actual = "0";
  CHECK(gpuslice::remedy::report_changes(before, after) ==
        std::vector<std::string>{"node/gpu-a allocatable: pass -> fail (0): 1 GPU(s) × 4 replicas",
                                 "node/gpu-new allocatable: new, fail (1, want 4): restart it"});
  CHECK(gpuslice::remedy::report_changes(after, before) ==
        std::vector<std::string>{"node/gpu-a allocatable: fail -> pass (4)"});
}
