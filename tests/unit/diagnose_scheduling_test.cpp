// SPDX-License-Identifier: Apache-2.0
// GS1xx: each code fires on a cluster built to trigger it and stays silent on its twin.
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "unit/diagnose_scenarios.hpp"

using namespace scenarios;
using gpuslice::diagnose::analyze;

namespace {

const char* k_taint_message = "0/3 nodes are available: 2 node(s) had untolerated taint {nvidia.com/gpu: present}, "
                              "1 node(s) didn't match Pod's node affinity/selector.";

// A pending pod in ml built by the caller (tolerations, selector and request chosen there).
gpuslice::Snapshot with_pending(PodBuilder pod, const std::string& message = k_taint_message) {
  gpuslice::Snapshot s = healthy();
  s.pods.push_back(pod.unschedulable(message).build());
  return s;
}

PodBuilder bare_pod(const std::string& name) {
  PodBuilder p("ml", name);
  p.container("job", "trainer:1");
  return p;
}

} // namespace

TEST_CASE("diagnose::find_scheduling") {
  SUBCASE("GS100 gpu-pods-pending") {
    gpuslice::Snapshot s = healthy();
    add_pending(s, "gpu-inference-5d8f-c", k_scheduler_message);
    const Diagnosis d = analyze(s);
    const Finding& f = finding(d, "GS100");
    CHECK(f.objects.size() == 1);
    CHECK(f.objects[0].name == "gpu-inference-5d8f-c");
    CHECK(f.remedy.command == "kubectl -n ml describe pod gpu-inference-5d8f-c");
    CHECK_FALSE(has(analyze(healthy()), "GS100"));
  }

  SUBCASE("GS101 insufficient-gpu, and not for a taint-only verdict") {
    gpuslice::Snapshot s = healthy();
    add_pending(s, "p", k_scheduler_message);
    const Diagnosis f_d = analyze(s);
    const Finding& f = finding(f_d, "GS101");
    CHECK(f.evidence.front().find("Insufficient nvidia.com/gpu") != std::string::npos);
    gpuslice::Snapshot twin = healthy();
    add_pending(twin, "p", k_taint_message);
    CHECK_FALSE(has(analyze(twin), "GS101"));
  }

  SUBCASE("GS102 untolerated-gpu-taint: judged on the pod's own tolerations") {
    const Diagnosis d = analyze(with_pending(bare_pod("trainer").gpus(1)));
    const Finding& f = finding(d, "GS102");
    CHECK(f.summary.find("nvidia.com/gpu=present:NoSchedule") != std::string::npos);
    CHECK(f.evidence.front() == "ml/trainer tolerates: nothing");
    // The same pod as EKS admits it (ExtendedResourceToleration added the toleration).
    CHECK_FALSE(has(analyze(with_pending(bare_pod("trainer").gpus(1).toleration("nvidia.com/gpu"))), "GS102"));
  }

  SUBCASE("GS102 and GS103: pods that differ only in tolerations, selector or resource are judged apart") {
    // Pods that place alike share one judgement against the nodes; these pairs must not.
    gpuslice::Snapshot s = healthy();
    s.pods.push_back(bare_pod("a-blocked").gpus(1).unschedulable(k_taint_message).build());
    s.pods.push_back(bare_pod("b-tolerates").gpus(1).toleration("nvidia.com/gpu").unschedulable(k_taint_message).build());
    s.pods.push_back(bare_pod("c-blocked").gpus(1).unschedulable(k_taint_message).build());
    s.pods.push_back(bare_pod("d-pool").gpus(1).toleration("nvidia.com/gpu").node_selector("pool", "a100")
                         .unschedulable(k_taint_message).build());
    s.pods.push_back(bare_pod("e-shared").gpus(1, "nvidia.com/gpu.shared").unschedulable(k_taint_message).build());
    const Diagnosis d = analyze(s);
    std::vector<std::string> blocked;
    for (const auto& object : finding(d, "GS102").objects) blocked.push_back(object.name);
    // e-shared: no node advertises its resource, so every admitted node is judged, and all are tainted.
    CHECK(blocked == std::vector<std::string>{"a-blocked", "c-blocked", "e-shared"});
    std::vector<std::string> unmatched;
    for (const auto& object : finding(d, "GS103").objects) unmatched.push_back(object.name);
    CHECK(unmatched == std::vector<std::string>{"d-pool"});
  }

  SUBCASE("GS102 remedy patches the owning Deployment") {
    gpuslice::Snapshot s = healthy();
    s.deployments.push_back(DeploymentBuilder("ml", "trainer").container("job", "trainer:1").gpus(1).build());
    s.pods.push_back(bare_pod("trainer-7c9-x").label("app", "trainer").gpus(1).unschedulable(k_taint_message).build());
    const Diagnosis f_d = analyze(s);
    const Finding& f = finding(f_d, "GS102");
    CHECK(f.remedy.command ==
          R"(kubectl -n ml patch deployment trainer --type json -p '[{"op":"add","path":"/spec/template/spec/tolerations","value":[{"key":"nvidia.com/gpu","operator":"Exists","effect":"NoSchedule"}]}]')");
  }

  SUBCASE("GS103 gpu-selector-mismatch") {
    const Diagnosis d = analyze(with_pending(bare_pod("trainer").gpus(1).toleration("nvidia.com/gpu")
                                                 .node_selector("pool", "a100")));
    const Finding& f = finding(d, "GS103");
    CHECK(f.remedy.command == "kubectl get nodes -L pool");
    CHECK(f.evidence.front() == "ml/trainer nodeSelector: pool=a100");
    CHECK_FALSE(has(analyze(with_pending(bare_pod("trainer").gpus(1).toleration("nvidia.com/gpu")
                                             .node_selector("nvidia.com/gpu.present", "true"))),
                    "GS103"));
  }

  SUBCASE("GS104 gpu-resource-not-advertised") {
    gpuslice::Snapshot s = healthy();
    s.nodes[0] = NodeBuilder("gpu-1").instance_type("g4dn.xlarge").label("nvidia.com/gpu.present", "true").build();
    s.nodes[1] = NodeBuilder("gpu-2").instance_type("g4dn.xlarge").label("nvidia.com/gpu.present", "true").build();
    add_pending(s, "p", k_scheduler_message);
    CHECK(has(analyze(s), "GS104"));
    CHECK_FALSE(has(analyze(s), "GS105"));
    gpuslice::Snapshot twin = healthy();
    add_pending(twin, "p", k_scheduler_message);
    CHECK_FALSE(has(analyze(twin), "GS104"));
  }

  SUBCASE("GS105 gpu-resource-name-mismatch") {
    const Diagnosis d = analyze(with_pending(bare_pod("trainer").gpus(1, "nvidia.com/gpu.shared")
                                                 .toleration("nvidia.com/gpu")));
    const Finding& f = finding(d, "GS105");
    CHECK(f.summary == "1 pod(s) request nvidia.com/gpu.shared but the nodes advertise nvidia.com/gpu");
    CHECK_FALSE(has(d, "GS104"));
    CHECK_FALSE(has(analyze(with_pending(bare_pod("trainer").gpus(1).toleration("nvidia.com/gpu"))), "GS105"));
  }
}
