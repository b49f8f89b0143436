// SPDX-License-Identifier: Apache-2.0
// Issue 21: the DRA kinds read alike from resource.k8s.io v1, v1beta2 and v1beta1, whose
// request and device shapes differ, and are written back in the v1 shape.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <gpuslice/model.hpp>

using namespace gpuslice::model;
using nlohmann::json;

namespace {

// One claim asking for a GPU with at least 40 GiB, or else two smaller ones, per version.
json claim_v1(const std::string& api_version) {
  return json::parse(R"({"apiVersion": ")" + api_version + R"(", "kind": "ResourceClaim",
    "metadata": {"namespace": "ml", "name": "big-gpu"},
    "spec": {"devices": {"requests": [
      {"name": "gpu", "exactly": {"deviceClassName": "gpu.nvidia.com",
        "selectors": [{"cel": {"expression": "device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('40Gi')) >= 0"}}]}},
      {"name": "fallback", "firstAvailable": [
        {"name": "two-small", "deviceClassName": "gpu.nvidia.com", "count": 2},
        {"name": "all", "deviceClassName": "gpu.nvidia.com", "allocationMode": "All"}]}]}},
    "status": {"allocation": {
        "devices": {"results": [{"request": "gpu", "driver": "gpu.nvidia.com", "pool": "node-a", "device": "gpu-0"}]},
        "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["node-a"]}]}]}},
      "reservedFor": [{"resource": "pods", "name": "trainer-0", "uid": "u1"}]}})");
}

json claim_v1beta1() {
  return json::parse(R"({"apiVersion": "resource.k8s.io/v1beta1", "kind": "ResourceClaim",
    "metadata": {"namespace": "ml", "name": "big-gpu"},
    "spec": {"devices": {"requests": [
      {"name": "gpu", "deviceClassName": "gpu.nvidia.com",
        "selectors": [{"cel": {"expression": "device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('40Gi')) >= 0"}}]},
      {"name": "fallback", "firstAvailable": [
        {"name": "two-small", "deviceClassName": "gpu.nvidia.com", "count": 2},
        {"name": "all", "deviceClassName": "gpu.nvidia.com", "allocationMode": "All"}]}]}},
    "status": {"allocation": {
        "devices": {"results": [{"request": "gpu", "driver": "gpu.nvidia.com", "pool": "node-a", "device": "gpu-0"}]},
        "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["node-a"]}]}]}},
      "reservedFor": [{"resource": "pods", "name": "trainer-0", "uid": "u1"}]}})");
}

json slice(bool beta1) {
  const std::string device = R"("attributes": {"productName": {"string": "NVIDIA A100-SXM4-40GB"}, "index": {"int": 0},
                                       "driverVersion": {"version": "570.86.15"}, "migCapable": {"bool": true}},
                        "capacity": {"memory": {"value": "40Gi"}})";
  return json::parse(std::string(R"({"apiVersion": ")") + (beta1 ? "resource.k8s.io/v1beta1" : "resource.k8s.io/v1") +
                     R"(", "kind": "ResourceSlice", "metadata": {"name": "node-a-gpu.nvidia.com-x7"},
    "spec": {"driver": "gpu.nvidia.com", "nodeName": "node-a", "pool": {"name": "node-a", "generation": 3, "resourceSliceCount": 1},
      "devices": [{"name": "gpu-0", )" + (beta1 ? "\"basic\": {" + device + "}" : device) + "}]}}");
}

} // namespace

TEST_CASE("a ResourceClaim reads the same from v1, v1beta2 and v1beta1") {
  const ResourceClaim v1 = resource_claim_from_json(claim_v1("resource.k8s.io/v1"));
  CHECK(v1.meta.ns == "ml");
  REQUIRE(v1.requests.size() == 2);
  CHECK(v1.requests[0].name == "gpu");
  CHECK(v1.requests[0].exactly.device_class == "gpu.nvidia.com");
  CHECK(v1.requests[0].exactly.allocation_mode == "ExactCount");
  CHECK(v1.requests[0].exactly.count == 1);
  REQUIRE(v1.requests[0].exactly.selectors.size() == 1);
  CHECK(v1.requests[0].first_available.empty());
  CHECK(v1.requests[1].exactly.device_class.empty());
  REQUIRE(v1.requests[1].first_available.size() == 2);
  CHECK(v1.requests[1].first_available[0].name == "two-small");
  CHECK(v1.requests[1].first_available[0].count == 2);
  CHECK(v1.requests[1].first_available[1].allocation_mode == "All");
  CHECK(v1.allocated);
  CHECK(v1.allocated_node == "node-a");
  REQUIRE(v1.devices.size() == 1);
  CHECK(v1.devices[0] == AllocatedDevice{"gpu", "gpu.nvidia.com", "node-a", "gpu-0"});
  CHECK(v1.reserved_for == std::vector<std::string>{"trainer-0"});

  CHECK(resource_claim_from_json(claim_v1("resource.k8s.io/v1beta2")) == v1);
  CHECK(resource_claim_from_json(claim_v1beta1()) == v1);
  // Written back in the v1 shape, it reads as the same record.
  const json written = to_json(v1);
  CHECK(written["apiVersion"] == "resource.k8s.io/v1");
  CHECK(written["spec"]["devices"]["requests"][0]["exactly"]["deviceClassName"] == "gpu.nvidia.com");
  CHECK(resource_claim_from_json(written) == v1);
}

TEST_CASE("an unallocated claim and a claim template") {
  json pending = claim_v1("resource.k8s.io/v1");
  pending.erase("status");
  const ResourceClaim c = resource_claim_from_json(pending);
  CHECK_FALSE(c.allocated);
  CHECK(c.allocated_node.empty());
  CHECK(c.devices.empty());

  const json template_json = {{"apiVersion", "resource.k8s.io/v1beta1"},
                              {"kind", "ResourceClaimTemplate"},
                              {"metadata", {{"namespace", "ml"}, {"name", "one-gpu"}}},
                              {"spec", {{"spec", pending["spec"]}}}};
  const ResourceClaimTemplate t = resource_claim_template_from_json(template_json);
  CHECK(t.meta.name == "one-gpu");
  CHECK(t.requests == c.requests);
  CHECK(resource_claim_template_from_json(to_json(t)) == t);
}

TEST_CASE("a ResourceSlice's devices read the same with and without v1beta1's basic") {
  const ResourceSlice s = resource_slice_from_json(slice(false));
  CHECK(s.driver == "gpu.nvidia.com");
  CHECK(s.node_name == "node-a");
  CHECK(s.pool == "node-a");
  CHECK(s.pool_generation == 3);
  CHECK(s.pool_slice_count == 1);
  REQUIRE(s.devices.size() == 1);
  const Device& d = s.devices[0];
  CHECK(d.name == "gpu-0");
  REQUIRE(d.attributes.size() == 4);
  bool found_product = false;
  for (const DeviceAttribute& a : d.attributes) {
    if (a.name == "productName") {
      found_product = true;
      CHECK(a.type == "string");
      CHECK(a.value == "NVIDIA A100-SXM4-40GB");
    }
    if (a.name == "index") CHECK(a.type == "int");
  }
  CHECK(found_product);
  CHECK(quantity_of(d.capacity, "memory") == *Quantity::parse("40Gi"));
  CHECK(resource_slice_from_json(slice(true)) == s);
  const json written = to_json(s);
  CHECK(written["spec"]["devices"][0]["attributes"]["index"]["int"] == 0);
  CHECK(written["spec"]["devices"][0]["attributes"]["migCapable"]["bool"] == true);
  CHECK(resource_slice_from_json(written) == s);
}

TEST_CASE("a DeviceClass and a pod's claims") {
  const DeviceClass c = device_class_from_json(json::parse(R"({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
    "metadata": {"name": "gpu.nvidia.com"},
    "spec": {"selectors": [{"cel": {"expression": "device.driver == 'gpu.nvidia.com'"}}], "extendedResourceName": "nvidia.com/gpu"}})"));
  CHECK(c.selectors == std::vector<std::string>{"device.driver == 'gpu.nvidia.com'"});
  CHECK(c.extended_resource_name == "nvidia.com/gpu");
  CHECK(device_class_from_json(to_json(c)) == c);

  const Pod p = pod_from_json(json::parse(R"({"apiVersion": "v1", "kind": "Pod", "metadata": {"namespace": "ml", "name": "trainer-0"},
    "spec": {"containers": [{"name": "job", "image": "t:1", "resources": {"claims": [{"name": "gpu"}]}}],
             "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "one-gpu"}, {"name": "shared", "resourceClaimName": "big-gpu"}]},
    "status": {"phase": "Pending", "resourceClaimStatuses": [{"name": "gpu", "resourceClaimName": "trainer-0-gpu-x2b"}],
               "extendedResourceClaimStatus": {"resourceClaimName": "trainer-0-extended-resources-q9"}}})"));
  REQUIRE(p.spec.resource_claims.size() == 2);
  CHECK(p.spec.resource_claims[0] == PodResourceClaim{"gpu", "", "one-gpu"});
  CHECK(p.spec.resource_claims[1] == PodResourceClaim{"shared", "big-gpu", ""});
  REQUIRE(p.claim_statuses.size() == 1);
  CHECK(p.claim_statuses[0] == PodResourceClaimStatus{"gpu", "trainer-0-gpu-x2b"});
  CHECK(p.extended_resource_claim == "trainer-0-extended-resources-q9");
  CHECK(pod_from_json(to_json(p)) == p);
}

TEST_CASE("the NVIDIA GpuConfig's sharing strategy of a claim or template, and back") {
  json spec = claim_v1("resource.k8s.io/v1")["spec"];
  spec["devices"]["config"] = json::parse(R"([
    {"requests": ["gpu"], "opaque": {"driver": "other.example.com", "parameters": {"kind": "GpuConfig", "sharing": {"strategy": "Other"}}}},
    {"requests": ["gpu"], "opaque": {"driver": "gpu.nvidia.com", "parameters": {"apiVersion": "resource.nvidia.com/v1beta1",
      "kind": "GpuConfig", "sharing": {"strategy": "TimeSlicing", "timeSlicingConfig": {"interval": "Long"}}}}}])");
  const json template_json = {{"apiVersion", "resource.k8s.io/v1"},
                              {"kind", "ResourceClaimTemplate"},
                              {"metadata", {{"namespace", "ml"}, {"name", "timesliced-gpu"}}},
                              {"spec", {{"spec", spec}}}};
  const ResourceClaimTemplate t = resource_claim_template_from_json(template_json);
  CHECK(t.gpu_sharing == "TimeSlicing");  // the other driver's config is not ours
  CHECK(resource_claim_template_from_json(to_json(t)) == t);
  json claim = claim_v1("resource.k8s.io/v1");
  claim["spec"] = spec;
  claim["spec"]["devices"]["config"][1]["opaque"]["parameters"]["sharing"]["strategy"] = "MPS";
  const ResourceClaim c = resource_claim_from_json(claim);
  CHECK(c.gpu_sharing == "MPS");
  CHECK(resource_claim_from_json(to_json(c)) == c);
  CHECK(resource_claim_from_json(claim_v1("resource.k8s.io/v1")).gpu_sharing.empty());
}
