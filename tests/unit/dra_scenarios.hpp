// SPDX-License-Identifier: Apache-2.0
// A cluster that allocates GPUs through the NVIDIA DRA driver, built from resource.k8s.io/v1
// JSON as the API serves it: two GPU nodes publishing one A10G each in a ResourceSlice, the
// driver's DeviceClass, a running pod holding gpu-1's GPU through its claim, and helpers that
// add a pending pod with a claim made from a template (or named directly).
#pragma once

#include <string>

#include <gpuslice/snapshot.hpp>

#include "unit/builders.hpp"

namespace dra {

using namespace gpuslice::testing;
using gpuslice::Snapshot;

// The selector of the DeviceClass gpu.nvidia.com that NVIDIA's DRA driver chart installs.
inline constexpr const char* k_gpu_class_selector =
    "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'";

inline Json device_class(const std::string& name, const std::string& selector) {
  return {{"apiVersion", "resource.k8s.io/v1"}, {"kind", "DeviceClass"}, {"metadata", {{"name", name}}},
          {"spec", {{"selectors", Json::array({{{"cel", {{"expression", selector}}}}})}}}};
}

inline Json gpu_device(const std::string& name, const std::string& product) {
  return {{"name", name},
          {"attributes", {{"type", {{"string", "gpu"}}}, {"productName", {{"string", product}}},
                          {"index", {{"int", 0}}}, {"driverVersion", {{"version", "570.124.6"}}}}},
          {"capacity", {{"memory", {{"value", "23028Mi"}}}}}};
}

inline Json slice(const std::string& node, const Json& devices) {
  return {{"apiVersion", "resource.k8s.io/v1"}, {"kind", "ResourceSlice"},
          {"metadata", {{"name", node + "-gpu.nvidia.com-x7k2p"}}},
          {"spec", {{"driver", "gpu.nvidia.com"}, {"nodeName", node},
                    {"pool", {{"name", node}, {"generation", 1}, {"resourceSliceCount", 1}}}, {"devices", devices}}}};
}

// spec.devices.requests[] with one `exactly` request.
inline Json requests(const std::string& device_class, long long count, const std::string& selector = "") {
  Json exactly = {{"deviceClassName", device_class}, {"allocationMode", "ExactCount"}, {"count", count}};
  if (!selector.empty()) exactly["selectors"] = Json::array({{{"cel", {{"expression", selector}}}}});
  return Json::array({{{"name", "gpu"}, {"exactly", exactly}}});
}

inline Json claim(const std::string& ns, const std::string& name, const Json& reqs) {
  return {{"apiVersion", "resource.k8s.io/v1"}, {"kind", "ResourceClaim"},
          {"metadata", {{"namespace", ns}, {"name", name}}}, {"spec", {{"devices", {{"requests", reqs}}}}}};
}

// The claim allocated to `device` on `node` and reserved for pod `pod`.
inline Json allocated(Json c, const std::string& node, const std::string& device, const std::string& pod) {
  c["status"] = {
      {"allocation",
       {{"devices", {{"results", Json::array({{{"request", "gpu"}, {"driver", "gpu.nvidia.com"}, {"pool", node},
                                               {"device", device}}})}}},
        {"nodeSelector",
         {{"nodeSelectorTerms",
           Json::array({{{"matchFields", Json::array({{{"key", "metadata.name"}, {"operator", "In"},
                                                         {"values", Json::array({node})}}})}}})}}}}},
      {"reservedFor", Json::array({{{"resource", "pods"}, {"name", pod}, {"uid", "uid-" + pod}}})}};
  return c;
}

inline Json claim_template(const std::string& ns, const std::string& name, const Json& reqs) {
  return {{"apiVersion", "resource.k8s.io/v1"}, {"kind", "ResourceClaimTemplate"},
          {"metadata", {{"namespace", ns}, {"name", name}}},
          {"spec", {{"spec", {{"devices", {{"requests", reqs}}}}}}}};
}

// A pod of ml/trainer whose container uses claim "gpu": from template `template_name`, made
// as `made_claim` ("" while none was made), or naming ResourceClaim `claim_name`.
inline Json claim_pod(const std::string& name, const std::string& template_name, const std::string& made_claim,
                      const std::string& claim_name = "") {
  PodBuilder b("ml", name);
  b.label("app", "trainer").owner("ReplicaSet", "trainer-6b9").container("job", "trainer:1");
  Json pod = b.unschedulable("0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 2 cannot "
                             "allocate all claims. still not schedulable, preemption: 0/3 nodes are available: 3 "
                             "Preemption is not helpful for scheduling.")
                 .json();
  pod["spec"]["containers"][0]["resources"]["claims"] = Json::array({{{"name", "gpu"}}});
  Json ref = {{"name", "gpu"}};
  if (claim_name.empty()) {
    ref["resourceClaimTemplateName"] = template_name;
  } else {
    ref["resourceClaimName"] = claim_name;
  }
  pod["spec"]["resourceClaims"] = Json::array({ref});
  if (!made_claim.empty()) {
    pod["status"]["resourceClaimStatuses"] = Json::array({{{"name", "gpu"}, {"resourceClaimName", made_claim}}});
  }
  return pod;
}

// A running pod of ml/trainer on `node` whose claim "gpu" is ResourceClaim `claim`, made from ml/one-gpu.
inline gpuslice::model::Pod running_claim_pod(const std::string& name, const std::string& node, const std::string& claim) {
  PodBuilder b("ml", name);
  b.label("app", "trainer").container("job", "trainer:1").running_on(node);
  Json pod = b.json();
  pod["spec"]["containers"][0]["resources"]["claims"] = Json::array({{{"name", "gpu"}}});
  pod["spec"]["resourceClaims"] = Json::array({{{"name", "gpu"}, {"resourceClaimTemplateName", "one-gpu"}}});
  pod["status"]["resourceClaimStatuses"] = Json::array({{{"name", "gpu"}, {"resourceClaimName", claim}}});
  return gpuslice::model::pod_from_json(pod);
}

// Two GPU nodes with one A10G each published by the DRA driver (no device plugin), a CPU node,
// the driver's DeviceClass and template ml/one-gpu; pod ml/busy runs on gpu-1 holding its GPU.
inline Snapshot cluster() {
  Snapshot s;
  for (const char* name : {"gpu-1", "gpu-2"}) {
    s.nodes.push_back(NodeBuilder(name).instance_type("g5.xlarge").label("nvidia.com/gpu.present", "true").build());
    s.resource_slices.push_back(gpuslice::model::resource_slice_from_json(
        slice(name, Json::array({gpu_device("gpu-0", "NVIDIA A10G")}))));
  }
  s.nodes.push_back(NodeBuilder("cpu-1").instance_type("m5.large").build());
  s.device_classes.push_back(gpuslice::model::device_class_from_json(device_class("gpu.nvidia.com", k_gpu_class_selector)));
  s.resource_claim_templates.push_back(
      gpuslice::model::resource_claim_template_from_json(claim_template("ml", "one-gpu", requests("gpu.nvidia.com", 1))));
  s.resource_claims.push_back(gpuslice::model::resource_claim_from_json(
      allocated(claim("ml", "busy-gpu-4xk2q", requests("gpu.nvidia.com", 1)), "gpu-1", "gpu-0", "busy")));
  s.pods.push_back(running_claim_pod("busy", "gpu-1", "busy-gpu-4xk2q"));
  return s;
}

// Adds pending pod ml/trainer-0 with a claim made from ml/one-gpu, as ml/trainer-0-gpu-m2x8r
// with the given requests.
inline void add_pending_claim(Snapshot& s, const Json& reqs) {
  s.resource_claims.push_back(gpuslice::model::resource_claim_from_json(claim("ml", "trainer-0-gpu-m2x8r", reqs)));
  s.pods.push_back(gpuslice::model::pod_from_json(claim_pod("trainer-0", "one-gpu", "trainer-0-gpu-m2x8r")));
}

} // namespace dra
