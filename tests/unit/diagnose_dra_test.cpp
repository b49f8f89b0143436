// SPDX-License-Identifier: Apache-2.0
// GS8xx: each cause of an unallocatable ResourceClaim on a DRA cluster, and the healthy twin.
#include <algorithm>
#include <string>

#include <doctest/doctest.h>

#include <gpuslice/diagnose.hpp>

#include "unit/dra_scenarios.hpp"

using gpuslice::Snapshot;
using gpuslice::diagnose::analyze;
using gpuslice::diagnose::Diagnosis;
using gpuslice::diagnose::Finding;
using namespace dra;

namespace {

const Finding* find(const Diagnosis& d, const std::string& code) {
  const auto it = std::find_if(d.findings.begin(), d.findings.end(),
                               [&](const Finding& f) { return gpuslice::diagnose::to_string(f.code) == code; });
  return it == d.findings.end() ? nullptr : &*it;
}

bool any_dra_finding(const Diagnosis& d) {
  return std::any_of(d.findings.begin(), d.findings.end(), [](const Finding& f) { return static_cast<int>(f.code) >= 800; });
}

bool evidence_has(const Finding& f, const std::string& text) {
  return std::any_of(f.evidence.begin(), f.evidence.end(),
                     [&](const std::string& e) { return e.find(text) != std::string::npos; });
}

// gpu-2's GPU held by pod ml/busy-2 as well: no free A10G left.
void hold_gpu_2(Snapshot& s) {
  s.resource_claims.push_back(gpuslice::model::resource_claim_from_json(
      allocated(claim("ml", "busy-2-gpu-9sd1v", requests("gpu.nvidia.com", 1)), "gpu-2", "gpu-0", "busy-2")));
  s.pods.push_back(running_claim_pod("busy-2", "gpu-2", "busy-2-gpu-9sd1v"));
}

} // namespace

TEST_CASE("DRA healthy twin: a pending claim a free device satisfies raises no GS8xx") {
  Snapshot s = cluster();
  add_pending_claim(s, requests("gpu.nvidia.com", 1));
  CHECK_FALSE(any_dra_finding(analyze(s)));
  // No finding at all: DRA nodes need no device plugin and advertise no allocatable GPUs.
  const Diagnosis quiet = analyze(cluster());
  std::string codes;
  for (const Finding& f : quiet.findings) codes += gpuslice::diagnose::to_string(f.code) + " " + f.summary + "\n";
  CHECK_MESSAGE(quiet.findings.empty(), codes);
}

TEST_CASE("GS800: the claim's template does not exist, or the claim was not made from it") {
  Snapshot s = cluster();
  s.pods.push_back(gpuslice::model::pod_from_json(claim_pod("trainer-0", "two-gpus", "")));
  const Diagnosis missing_template = analyze(s);
  const Finding* f = find(missing_template, "GS800");
  REQUIRE(f);
  CHECK(f->objects.at(0).name == "trainer-0");
  CHECK(evidence_has(*f, "ml/trainer-0: claim gpu is made from ResourceClaimTemplate two-gpus, which does not exist"));
  CHECK(f->remedy.text.find("Create the ResourceClaimTemplate(s) ml/two-gpus") != std::string::npos);
  CHECK(f->remedy.command.empty());

  Snapshot not_made = cluster();
  not_made.pods.push_back(gpuslice::model::pod_from_json(claim_pod("trainer-0", "one-gpu", "")));
  const Diagnosis d_not_made = analyze(not_made);
  const Finding* g = find(d_not_made, "GS800");
  REQUIRE(g);
  CHECK(evidence_has(*g, "claim gpu from ResourceClaimTemplate one-gpu has not been made yet"));
  CHECK(g->remedy.text.find("kube-controller-manager") != std::string::npos);

  Snapshot named = cluster();
  named.pods.push_back(gpuslice::model::pod_from_json(claim_pod("trainer-0", "", "", "shared-a10g")));
  const Diagnosis d_named = analyze(named);
  const Finding* h = find(d_named, "GS800");
  REQUIRE(h);
  CHECK(evidence_has(*h, "claim gpu names ResourceClaim shared-a10g, which does not exist"));
}

TEST_CASE("GS801: a request names a DeviceClass that does not exist") {
  Snapshot s = cluster();
  add_pending_claim(s, requests("gpu.nvidia.con", 1));
  const Diagnosis d = analyze(s);
  const Finding* f = find(d, "GS801");
  REQUIRE(f);
  CHECK(evidence_has(*f, "ml/trainer-0: claim ml/trainer-0-gpu-m2x8r request gpu names DeviceClass gpu.nvidia.con"));
  CHECK(f->remedy.text.find("(gpu.nvidia.com)") != std::string::npos);
  CHECK_FALSE(find(d, "GS802"));  // not also "no devices": the class is the cause
}

TEST_CASE("GS802: no node has the devices a request wants free") {
  SUBCASE("every matching GPU is held by another claim") {
    Snapshot s = cluster();
    hold_gpu_2(s);
    add_pending_claim(s, requests("gpu.nvidia.com", 1));
    const Diagnosis ds = analyze(s);
    const Finding* f = find(ds, "GS802");
    REQUIRE(f);
    CHECK(evidence_has(*f, "claim ml/trainer-0-gpu-m2x8r request gpu wants 1 device(s) of class gpu.nvidia.com; 0/2 "
                           "node(s) with ResourceSlices have them free: gpu-1: 1 matching, 0 free (held by "
                           "ml/busy-gpu-4xk2q), gpu-2: 1 matching, 0 free (held by ml/busy-2-gpu-9sd1v)"));
    CHECK(evidence_has(*f, "the scheduler says \"0/3 nodes are available"));
    CHECK(f->remedy.text.find("free devices held by claims") != std::string::npos);
  }
  SUBCASE("the request's selector matches no device") {
    Snapshot s = cluster();
    add_pending_claim(s, requests("gpu.nvidia.com", 1, "device.attributes['gpu.nvidia.com'].productName == 'NVIDIA H100 80GB HBM3'"));
    const Diagnosis ds = analyze(s);
    const Finding* f = find(ds, "GS802");
    REQUIRE(f);
    CHECK(evidence_has(*f, "gpu-1: none of 1 device(s) match, gpu-2: none of 1 device(s) match"));
    CHECK(f->remedy.text.find("selectors and count") != std::string::npos);
  }
  SUBCASE("a count no single node has") {
    Snapshot s = cluster();
    add_pending_claim(s, requests("gpu.nvidia.com", 2));
    const Diagnosis ds = analyze(s);
    const Finding* f = find(ds, "GS802");
    REQUIRE(f);
    CHECK(evidence_has(*f, "wants 2 device(s) of class gpu.nvidia.com; 0/2 node(s)"));
    CHECK(evidence_has(*f, "gpu-2: 1 matching, 1 free"));
  }
  SUBCASE("a selector that fails at run time on the devices (an attribute they lack)") {
    Snapshot s = cluster();
    add_pending_claim(s, requests("gpu.nvidia.com", 1, "device.attributes['gpu.nvidia.com'].cudaComputeCapability == '8.6'"));
    const Diagnosis ds = analyze(s);
    const Finding* f = find(ds, "GS802");
    REQUIRE(f);
    CHECK(evidence_has(*f, "gpu-2: none of 1 device(s) match, a selector fails on a device here"));
    CHECK(evidence_has(*f, "a CEL runtime error, on which the scheduler gives up on the node: selector "
                           "\"device.attributes['gpu.nvidia.com'].cudaComputeCapability == '8.6'\" on device "
                           "gpu.nvidia.com/gpu-1/gpu-0"));
    CHECK(f->remedy.text.find("guard the selector") != std::string::npos);
  }
  SUBCASE("a selector beyond the evaluator is not called a shortage") {
    Snapshot s = cluster();
    hold_gpu_2(s);
    add_pending_claim(s, requests("gpu.nvidia.com", 1, "size(device.attributes['gpu.nvidia.com']) > 2"));
    const Diagnosis ds = analyze(s);
    CHECK_FALSE(find(ds, "GS802"));
  }
  SUBCASE("an allocated claim is not replayed") {
    Snapshot s = cluster();
    hold_gpu_2(s);
    add_pending_claim(s, requests("gpu.nvidia.com", 1));
    s.resource_claims.back() = gpuslice::model::resource_claim_from_json(
        allocated(claim("ml", "trainer-0-gpu-m2x8r", requests("gpu.nvidia.com", 1)), "gpu-2", "gpu-0", "trainer-0"));
    const Diagnosis ds = analyze(s);
    CHECK_FALSE(find(ds, "GS802"));
  }
}

TEST_CASE("GS803: a GPU node that publishes no ResourceSlice on a DRA cluster") {
  Snapshot s = cluster();
  s.resource_slices.pop_back();  // gpu-2's kubelet plugin is not running
  add_pending_claim(s, requests("gpu.nvidia.com", 1));
  const Diagnosis d = analyze(s);
  const Finding* f = find(d, "GS803");
  REQUIRE(f);
  CHECK(f->objects.size() == 1);
  CHECK(f->objects.at(0).name == "gpu-2");
  CHECK(f->severity == gpuslice::diagnose::Severity::error);  // a DRA pod waits
  CHECK(f->remedy.text.find("spec.nodeName=gpu-2") != std::string::npos);
  // gpu-1's GPU is held and gpu-2 publishes none: the request has no room either.
  CHECK(find(d, "GS802"));

  const Diagnosis quiet = analyze(cluster());
  CHECK_FALSE(find(quiet, "GS803"));
}

TEST_CASE("GS804: the kubelet cannot prepare a bound pod's claims (driver not registered)") {
  Snapshot s = cluster();
  PodBuilder b("ml", "trainer-0");
  b.container("job", "trainer:1").node_name("gpu-2");
  s.pods.push_back(b.build());
  s.events.push_back(EventBuilder("FailedPrepareDynamicResources", "ml").pod("ml", "trainer-0").source("kubelet")
                         .type("Warning")
                         .message("Failed to prepare dynamic resources: prepare dynamic resources: DRA driver "
                                  "gpu.nvidia.com is not registered")
                         .build());
  const Diagnosis d = analyze(s);
  const Finding* f = find(d, "GS804");
  REQUIRE(f);
  CHECK(f->objects.at(0).name == "trainer-0");
  CHECK(evidence_has(*f, "ml/trainer-0 on gpu-2: kubelet: \"Failed to prepare dynamic resources"));
  CHECK(f->remedy.text.find("not registered on gpu-2") != std::string::npos);

  // Once the pod runs, the old event is history.
  s.pods.back() = PodBuilder("ml", "trainer-0").container("job", "trainer:1").running_on("gpu-2").build();
  const Diagnosis recovered = analyze(s);
  CHECK_FALSE(find(recovered, "GS804"));
}

TEST_CASE("GS805: Karpenter ignores pods with DRA claims") {
  Snapshot s = cluster();
  hold_gpu_2(s);
  add_pending_claim(s, requests("gpu.nvidia.com", 1));
  s.events.push_back(EventBuilder("FailedScheduling", "ml").pod("ml", "trainer-0").source("karpenter").type("Warning")
                         .message("Failed to schedule pod, pod has Dynamic Resource Allocation requirements that are "
                                  "not yet supported by Karpenter")
                         .build());
  const Diagnosis d = analyze(s);
  const Finding* f = find(d, "GS805");
  REQUIRE(f);
  CHECK(f->objects.size() == 1);
  CHECK(f->remedy.text.find("Karpenter does not provision for DRA pods") != std::string::npos);
  CHECK(find(d, "GS802"));  // and why no existing node takes it
  const Diagnosis quiet = analyze(cluster());
  CHECK_FALSE(find(quiet, "GS805"));
}

TEST_CASE("GS806: the device plugin and the DRA driver both hand out a node's GPUs") {
  Snapshot s = cluster();
  s.nodes[0] = NodeBuilder("gpu-1").instance_type("g5.xlarge").label("nvidia.com/gpu.present", "true").gpus(1).build();
  const Diagnosis d = analyze(s);
  const Finding* f = find(d, "GS806");
  REQUIRE(f);
  REQUIRE(f->objects.size() == 1);
  CHECK(f->objects[0].name == "gpu-1");
  CHECK(evidence_has(*f, "node gpu-1: 1 nvidia.com/gpu in allocatable (device plugin) and 1 device(s) of gpu.nvidia.com"));
  const Diagnosis quiet = analyze(cluster());
  CHECK_FALSE(find(quiet, "GS806"));
}
