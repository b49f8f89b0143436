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
  // The scheduler's own words, quoted with the pod's first line.
  s.pods.back().conditions[0].message = "0/3 nodes are available: request gpu: device class gpu.nvidia.con does not exist";
  const Diagnosis quoted = analyze(s);
  REQUIRE(find(quoted, "GS801"));
  CHECK(evidence_has(*find(quoted, "GS801"), "does not exist; the scheduler says \"0/3 nodes are available: request gpu: "
                                             "device class gpu.nvidia.con does not exist\""));
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

TEST_CASE("GS805: cluster-autoscaler without --enable-dynamic-resource-allocation before 1.35") {
  Snapshot s = cluster();
  hold_gpu_2(s);
  add_pending_claim(s, requests("gpu.nvidia.com", 1));
  auto with_ca = [&](const std::string& image, std::vector<std::string> args) {
    Snapshot copy = s;
    copy.deployments.push_back(
        DeploymentBuilder("kube-system", "cluster-autoscaler").container("cluster-autoscaler", image).args(args).build());
    return analyze(copy);
  };
  const Diagnosis off = with_ca("registry.k8s.io/autoscaling/cluster-autoscaler:v1.32.1",
                                {"--cloud-provider=aws", "--enable-dynamic-resource-allocation=false"});
  const Finding* f = find(off, "GS805");
  REQUIRE(f);
  CHECK(std::find(f->objects.begin(), f->objects.end(),
                  gpuslice::diagnose::ObjectRef{"Deployment", "kube-system", "cluster-autoscaler"}) != f->objects.end());
  CHECK(evidence_has(*f, "cluster-autoscaler 1.32 runs without --enable-dynamic-resource-allocation"));
  CHECK(f->remedy.text.find("--enable-dynamic-resource-allocation=true") != std::string::npos);
  CHECK(f->remedy.text.find("kubectl -n kube-system edit deployment cluster-autoscaler") != std::string::npos);
  CHECK(f->summary == "cluster-autoscaler does not handle DRA claims, and pending pods use them");
  // The flag on, or a version where it is always on: nothing to say.
  CHECK_FALSE(find(with_ca("registry.k8s.io/autoscaling/cluster-autoscaler:v1.32.1",
                           {"--enable-dynamic-resource-allocation=true"}),
                   "GS805"));
  CHECK_FALSE(find(with_ca("registry.k8s.io/autoscaling/cluster-autoscaler:v1.32.1",
                           {"--enable-dynamic-resource-allocation"}),
                   "GS805"));
  CHECK_FALSE(find(with_ca("registry.k8s.io/autoscaling/cluster-autoscaler:v1.35.0", {}), "GS805"));
  CHECK_FALSE(find(with_ca("registry.k8s.io/autoscaling/cluster-autoscaler:v1.35.0@sha256:0123abcd", {}), "GS805"));
  // A digest alone names no version: the flag decides.
  const Diagnosis digest = with_ca("registry.k8s.io/autoscaling/cluster-autoscaler@sha256:0123abcd", {});
  const Finding* g = find(digest, "GS805");
  REQUIRE(g);
  CHECK(evidence_has(*g, "cluster-autoscaler without --enable-dynamic-resource-allocation"));
  // Without pending DRA pods the flag does not matter.
  Snapshot idle = cluster();
  idle.deployments.push_back(DeploymentBuilder("kube-system", "cluster-autoscaler")
                                 .container("cluster-autoscaler", "registry.k8s.io/autoscaling/cluster-autoscaler:v1.31.0")
                                 .build());
  CHECK_FALSE(find(analyze(idle), "GS805"));
}

namespace {

// ml/shared-gpu, allocated on gpu-1's gpu-0 and held by running pod ml/busy; pending pod
// ml/trainer-0 names it too, so it can only go to gpu-1.
Snapshot shared_claim_cluster() {
  Snapshot s = cluster();
  s.resource_claims.clear();
  s.pods.clear();
  s.resource_claims.push_back(gpuslice::model::resource_claim_from_json(
      allocated(claim("ml", "shared-gpu", requests("gpu.nvidia.com", 1)), "gpu-1", "gpu-0", "busy")));
  s.pods.push_back(running_claim_pod("busy", "gpu-1", "shared-gpu"));
  s.pods.push_back(gpuslice::model::pod_from_json(claim_pod("trainer-0", "", "", "shared-gpu")));
  s.deployments.push_back(DeploymentBuilder("ml", "trainer").container("job", "trainer:1").build());
  return s;
}

} // namespace

TEST_CASE("GS807: a shared claim allocated on a node that refuses the pending pod") {
  SUBCASE("the node is cordoned: uncordon it") {
    Snapshot s = shared_claim_cluster();
    s.nodes[0] = NodeBuilder("gpu-1").instance_type("g5.xlarge").label("nvidia.com/gpu.present", "true").unschedulable().build();
    const Diagnosis d = analyze(s);
    const Finding* f = find(d, "GS807");
    REQUIRE(f);
    REQUIRE(f->objects.size() == 1);
    CHECK(f->objects[0].name == "trainer-0");
    CHECK(evidence_has(*f, "ml/trainer-0: claim gpu is ResourceClaim shared-gpu, allocated on node gpu-1 and in use by "
                           "busy: the pod can run only there, but node gpu-1 is cordoned"));
    CHECK(f->remedy.command == "kubectl uncordon gpu-1");
    // Not a missing or unsatisfiable claim: the allocation stands.
    CHECK_FALSE(find(d, "GS800"));
    CHECK_FALSE(find(d, "GS802"));
  }
  SUBCASE("the node has a taint the pod does not tolerate: the owner's toleration patch") {
    Snapshot s = shared_claim_cluster();
    s.nodes[0] = NodeBuilder("gpu-1").instance_type("g5.xlarge").label("nvidia.com/gpu.present", "true")
                     .taint("team", "vision", "NoSchedule").build();
    const Diagnosis d = analyze(s);
    const Finding* f = find(d, "GS807");
    REQUIRE(f);
    CHECK(evidence_has(*f, "node gpu-1 has taint team=vision:NoSchedule, which the pod does not tolerate"));
    CHECK(f->remedy.command.find("kubectl -n ml patch deployment trainer") != std::string::npos);
    CHECK(f->remedy.command.find("\"key\":\"team\"") != std::string::npos);
  }
  SUBCASE("two reasons at once: no single command would place the pod") {
    Snapshot s = shared_claim_cluster();
    s.nodes[0] = NodeBuilder("gpu-1").instance_type("g5.xlarge").label("nvidia.com/gpu.present", "true")
                     .taint("team", "vision", "NoSchedule").unschedulable().build();
    const Diagnosis d = analyze(s);
    const Finding* f = find(d, "GS807");
    REQUIRE(f);
    CHECK(f->remedy.command.empty());
    CHECK(f->remedy.text.find("uncordon it, tolerate its taint") != std::string::npos);
  }
  SUBCASE("the claim's node is gone") {
    Snapshot s = shared_claim_cluster();
    s.nodes.erase(s.nodes.begin());
    const Diagnosis d = analyze(s);
    const Finding* f = find(d, "GS807");
    REQUIRE(f);
    CHECK(evidence_has(*f, "node gpu-1 no longer exists"));
    CHECK(f->remedy.command.empty());
  }
  SUBCASE("healthy twin: the node takes the pod, or nobody else holds the claim") {
    CHECK_FALSE(find(analyze(shared_claim_cluster()), "GS807"));
    Snapshot unheld = shared_claim_cluster();
    unheld.nodes[0] = NodeBuilder("gpu-1").instance_type("g5.xlarge").label("nvidia.com/gpu.present", "true").unschedulable().build();
    unheld.resource_claims[0].reserved_for.clear();  // the scheduler frees an unreserved allocation itself
    CHECK_FALSE(find(analyze(unheld), "GS807"));
  }
}

namespace {

// ml/timesliced-gpu shares its GPU by TimeSlicing; ml/trainer-0 runs on gpu-2 with a claim made
// from it, ml/trainer-1 waits for a claim of its own; gpu-1's GPU is held by ml/busy.
Snapshot timesliced_template_cluster() {
  Snapshot s = cluster();
  Json t = claim_template("ml", "timesliced-gpu", requests("gpu.nvidia.com", 1));
  t["spec"]["spec"]["devices"]["config"] = Json::array(
      {{{"requests", Json::array({"gpu"})},
        {"opaque",
         {{"driver", "gpu.nvidia.com"},
          {"parameters", {{"apiVersion", "resource.nvidia.com/v1beta1"}, {"kind", "GpuConfig"},
                          {"sharing", {{"strategy", "TimeSlicing"}}}}}}}}});
  s.resource_claim_templates.push_back(gpuslice::model::resource_claim_template_from_json(t));
  s.resource_claims.push_back(gpuslice::model::resource_claim_from_json(
      allocated(claim("ml", "trainer-0-gpu-a1", requests("gpu.nvidia.com", 1)), "gpu-2", "gpu-0", "trainer-0")));
  gpuslice::model::Pod running = running_claim_pod("trainer-0", "gpu-2", "trainer-0-gpu-a1");
  running.spec.resource_claims[0].template_name = "timesliced-gpu";
  s.pods.push_back(running);
  s.resource_claims.push_back(gpuslice::model::resource_claim_from_json(claim("ml", "trainer-1-gpu-b2", requests("gpu.nvidia.com", 1))));
  s.pods.push_back(gpuslice::model::pod_from_json(claim_pod("trainer-1", "timesliced-gpu", "trainer-1-gpu-b2")));
  return s;
}

} // namespace

TEST_CASE("GS808: a time-slicing template gives every pod a GPU of its own") {
  const Diagnosis d = analyze(timesliced_template_cluster());
  const Finding* f = find(d, "GS808");
  REQUIRE(f);
  CHECK(f->summary == "2 pods each get their own claim from ResourceClaimTemplate ml/timesliced-gpu, so its TimeSlicing "
                      "sharing does not share a GPU between them");
  CHECK(f->objects.size() == 2);  // the template and the pending pod
  CHECK(evidence_has(*f, "1 of them wait: ml/trainer-1"));
  // The devices trainer-0's own claim holds on gpu-2 would take the shared claim.
  CHECK(f->remedy.text.find("node gpu-2 has the devices for it") != std::string::npos);
  CHECK(f->remedy.text.find("kubectl -n ml get resourceclaimtemplate timesliced-gpu -o jsonpath='{.spec.spec}'") !=
        std::string::npos);
  CHECK(find(d, "GS802"));  // and the replay still says why trainer-1 waits now

  SUBCASE("no node that admits the pods has the devices: the fix says so") {
    Snapshot s = timesliced_template_cluster();
    s.nodes[1] = NodeBuilder("gpu-2").instance_type("g5.xlarge").label("nvidia.com/gpu.present", "true")
                     .taint("team", "vision", "NoSchedule").build();
    const Diagnosis d2 = analyze(s);
    const Finding* g = find(d2, "GS808");
    REQUIRE(g);
    CHECK(g->remedy.text.find("no node that admits the pods has the devices for one such claim free now") !=
          std::string::npos);
  }
  SUBCASE("healthy twins: one pod per template, or a template without sharing") {
    Snapshot one = timesliced_template_cluster();
    one.pods.pop_back();
    CHECK_FALSE(find(analyze(one), "GS808"));
    Snapshot plain = timesliced_template_cluster();
    plain.resource_claim_templates.back().gpu_sharing.clear();
    CHECK_FALSE(find(analyze(plain), "GS808"));
  }
}
