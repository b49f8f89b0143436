// SPDX-License-Identifier: Apache-2.0
// GS6xx: each code fires on a cluster built to trigger it and stays silent on its twin.
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "unit/diagnose_scenarios.hpp"

using namespace scenarios;
using gpuslice::diagnose::analyze;

TEST_CASE("diagnose::find_workloads") {
  SUBCASE("GS600 workload-lacks-gpu-toleration: judged on the pods the API returns") {
    gpuslice::Snapshot s = healthy();
    s.deployments.push_back(DeploymentBuilder("ml", "trainer").container("job", "trainer:1").gpus(1).build());
    const Diagnosis d = analyze(s);
    const Finding& f = finding(d, "GS600");
    CHECK(f.summary == "Deployment ml/trainer requests GPUs but does not tolerate nvidia.com/gpu=present:NoSchedule");
    CHECK(f.evidence[1] == "judged on the pod template (no pod of it exists)");
    // EKS: the template has no toleration, but its pod got one from ExtendedResourceToleration.
    PodBuilder admitted("ml", "trainer-7c9-x");
    admitted.label("app", "trainer").container("job", "trainer:1").gpus(1).toleration("nvidia.com/gpu").running_on("gpu-1");
    s.pods.push_back(admitted.build());
    CHECK_FALSE(has(analyze(s), "GS600"));
    CHECK_FALSE(has(analyze(healthy()), "GS600"));
  }

  SUBCASE("GS601 multi-gpu-request-time-sliced") {
    gpuslice::Snapshot s = healthy();
    s.pods.push_back(inference_pod("big").node_selector("x", "y").gpus(2).running_on("gpu-1").build());
    const Diagnosis d = analyze(s);
    const Finding& f = finding(d, "GS601");
    CHECK(f.remedy.command == "kubectl -n ml set resources deployment/gpu-inference --limits=nvidia.com/gpu=1");
    CHECK_FALSE(has(analyze(healthy()), "GS601"));
  }

  SUBCASE("GS602 selector-on-shared-product-label") {
    gpuslice::Snapshot s = healthy();
    s.pods.push_back(inference_pod("pinned").node_selector("nvidia.com/gpu.product", "Tesla-T4")
                         .unschedulable("0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector.")
                         .build());
    const Diagnosis d = analyze(s);
    const Finding& f = finding(d, "GS602");
    CHECK(f.remedy.command.find(R"("nvidia.com/gpu.product":"Tesla-T4-SHARED")") != std::string::npos);
    CHECK_FALSE(has(d, "GS103"));  // the one cause, said once
    gpuslice::Snapshot twin = healthy();
    twin.pods.push_back(inference_pod("pinned").node_selector("nvidia.com/gpu.product", "Tesla-T4-SHARED")
                            .unschedulable(k_scheduler_message).build());
    CHECK_FALSE(has(analyze(twin), "GS602"));
  }
}

namespace {

constexpr const char* k_nvidia_refusal =
    "Allocate failed due to rpc error: code = Unknown desc = request for 'nvidia.com/gpu: 2' too large: maximum "
    "request size for shared resources is 1, which is unexpected";

// A pod of ml/gpu-inference the kubelet on gpu-1 refused with `message`.
gpuslice::model::Pod admission_refused(PodBuilder p, const std::string& message,
                             const std::string& reason = "UnexpectedAdmissionError") {
  p.node_name("gpu-1").phase("Failed");
  nlohmann::json j = p.json();
  j["status"]["reason"] = reason;
  j["status"]["message"] = message;
  return gpuslice::model::pod_from_json(j);
}

gpuslice::model::Pod refused_pod(const std::string& name, int gpus, const std::string& message,
                                 const std::string& reason = "UnexpectedAdmissionError") {
  PodBuilder p = inference_pod(name);
  p.gpus(gpus);
  return admission_refused(p, message, reason);
}

} // namespace

TEST_CASE("diagnose::find_failed_admission") {
  SUBCASE("GS603 a request of 2 on a shared GPU, the Deployment still asks for 2: set it to 1 first") {
    gpuslice::Snapshot s = healthy();
    s.deployments.front() = inference_deployment(3).ready(2).gpus(2).build();
    s.pods.push_back(refused_pod("gpu-inference-5d8f-x", 2, k_nvidia_refusal));
    s.pods.push_back(refused_pod("gpu-inference-5d8f-y", 2, k_nvidia_refusal));
    const Diagnosis d = analyze(s);
    const Finding& f = finding(d, "GS603");
    CHECK(f.severity == gpuslice::diagnose::Severity::error);
    CHECK(f.summary == "2 pod(s) of Deployment ml/gpu-inference failed admission: a request of 2 nvidia.com/gpu on a "
                       "shared GPU, where at most 1 is admitted");
    REQUIRE(f.objects.size() == 3);
    CHECK(f.objects[0].kind == "Deployment");
    CHECK(f.evidence[0] == fmt::format("ml/gpu-inference-5d8f-x, ml/gpu-inference-5d8f-y: Failed, "
                                       "UnexpectedAdmissionError on node gpu-1: \"{}\"", k_nvidia_refusal));
    CHECK(f.evidence.back() == "Deployment ml/gpu-inference: 2 of 3 replica(s) ready, 1 missing; its GPU pods not "
                               "running: 0 Pending, 2 failed admission");
    CHECK(f.remedy.command ==
          "kubectl -n ml set resources deployment/gpu-inference -c server --limits=nvidia.com/gpu=1 "
          "--requests=nvidia.com/gpu=1");
    CHECK(f.remedy.text.find("failRequestsGreaterThanOne: false") != std::string::npos);
    CHECK(f.remedy.text.find("kubectl delete pod -n ml gpu-inference-5d8f-x gpu-inference-5d8f-y") != std::string::npos);
  }

  SUBCASE("GS603 the Deployment now asks for 1: delete the failed pods; GKE's words; Pending pods counted too") {
    gpuslice::Snapshot s = healthy();
    s.deployments.front() = inference_deployment(4).ready(2).build();
    s.pods.push_back(refused_pod("gpu-inference-5d8f-x", 2,
                                 "invalid request for sharing GPU (time-sharing), at most 1 nvidia.com/gpu can be "
                                 "requested on GPU nodes"));
    s.pods.push_back(inference_pod("gpu-inference-5d8f-p").unschedulable(k_scheduler_message).build());
    const Diagnosis d = analyze(s);
    const Finding& f = finding(d, "GS603");
    CHECK(f.remedy.command == "kubectl delete pod -n ml gpu-inference-5d8f-x");
    CHECK(f.evidence.back() == "Deployment ml/gpu-inference: 2 of 4 replica(s) ready, 2 missing; its GPU pods not "
                               "running: 1 Pending, 1 failed admission");
  }

  SUBCASE("GS603 other admission errors are named generically, quoting the kubelet") {
    gpuslice::Snapshot s = healthy();
    s.pods.push_back(refused_pod("gpu-inference-5d8f-z", 1,
                                 "Allocate failed due to no healthy devices present; cannot allocate unhealthy devices "
                                 "nvidia.com/gpu, which is unexpected"));
    const Diagnosis d = analyze(s);
    const Finding& f = finding(d, "GS603");
    CHECK(f.summary == "1 GPU pod(s) of Deployment ml/gpu-inference failed admission (UnexpectedAdmissionError)");
    CHECK(f.evidence[0].find("cannot allocate unhealthy devices") != std::string::npos);
    CHECK(f.remedy.command == "kubectl delete pod -n ml gpu-inference-5d8f-z");
  }

  SUBCASE("healthy twins: another Failed reason, a Succeeded pod, a refused pod without a GPU") {
    gpuslice::Snapshot s = healthy();
    s.pods.push_back(refused_pod("gpu-inference-5d8f-e", 2, "The node was low on resource: memory.", "Evicted"));
    gpuslice::model::Pod done = refused_pod("gpu-inference-5d8f-s", 2, "", "");
    done.phase = "Succeeded";
    s.pods.push_back(done);
    PodBuilder cpu("ml", "cpu-pod");
    cpu.container("web", "nginx:1");
    s.pods.push_back(admission_refused(cpu, k_nvidia_refusal));
    CHECK_FALSE(has(analyze(s), "GS603"));
    CHECK_FALSE(has(analyze(healthy()), "GS603"));
  }
}
