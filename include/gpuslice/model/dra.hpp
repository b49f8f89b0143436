// SPDX-License-Identifier: Apache-2.0
// Dynamic Resource Allocation (resource.k8s.io): DeviceClasses, ResourceSlices, ResourceClaims
// and ResourceClaimTemplates, as diagnosis reads them. One record for the three served
// versions: v1 and v1beta2 nest a request's device selection under `exactly` and a device's
// attributes at its top; v1beta1 has both flat on the request and under the device's `basic`.
// Records are written back (to_json) in the v1 shape.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include <gpuslice/model/meta.hpp>
#include <gpuslice/model/quantity.hpp>

namespace gpuslice::model {

inline constexpr std::string_view k_dra_group = "resource.k8s.io";
// The driver name of NVIDIA's DRA driver for GPUs (kubernetes-sigs/dra-driver-nvidia-gpu).
inline constexpr std::string_view k_nvidia_gpu_driver = "gpu.nvidia.com";

struct DeviceClass {
  ObjectMeta meta;
  std::vector<std::string> selectors; // CEL expressions of spec.selectors[].cel.expression
  std::string extended_resource_name; // spec.extendedResourceName (1.34+), "" when unset
  bool operator==(const DeviceClass&) const = default;
};

// One attribute of a device: its name as published (unqualified names belong to the driver's
// domain), the value's type (int | bool | string | version) and the value as text.
struct DeviceAttribute {
  std::string name;
  std::string type;
  std::string value;
  bool operator==(const DeviceAttribute&) const = default;
};

struct Device {
  std::string name;
  std::vector<DeviceAttribute> attributes; // by name
  ResourceList capacity;                   // capacity[name].value
  bool operator==(const Device&) const = default;
};

struct ResourceSlice {
  ObjectMeta meta;
  std::string driver;
  std::string pool;
  long long pool_generation = 0;
  long long pool_slice_count = 0;
  std::string node_name;   // "" when the devices are not local to one node
  bool all_nodes = false;
  std::vector<Device> devices;
  bool operator==(const ResourceSlice&) const = default;
};

// One way to satisfy a request: a device class, selectors, how many.
struct DeviceSelection {
  std::string name;                   // the subrequest's name under firstAvailable, else ""
  std::string device_class;           // deviceClassName
  std::vector<std::string> selectors; // CEL expressions
  std::string allocation_mode;        // ExactCount (the default) | All
  long long count = 1;                // ExactCount only
  bool admin_access = false;
  bool operator==(const DeviceSelection&) const = default;
};

struct DeviceRequest {
  std::string name;
  DeviceSelection exactly;                     // empty device_class when first_available is used
  std::vector<DeviceSelection> first_available; // alternatives in order of preference
  bool operator==(const DeviceRequest&) const = default;
};

// One device an allocation gave a request (status.allocation.devices.results[]).
struct AllocatedDevice {
  std::string request; // "<request>" or "<request>/<subrequest>"
  std::string driver;
  std::string pool;
  std::string device;
  bool operator==(const AllocatedDevice&) const = default;
};

struct ResourceClaim {
  ObjectMeta meta;
  std::vector<DeviceRequest> requests;
  // sharing.strategy of the NVIDIA driver's GpuConfig in spec.devices.config (TimeSlicing, MPS),
  // "" when the claim configures none.
  std::string gpu_sharing;
  bool allocated = false;              // status.allocation is present
  std::string allocated_node;          // the node the allocation's nodeSelector names, if one
  std::vector<AllocatedDevice> devices;
  std::vector<std::string> reserved_for; // names of the pods in status.reservedFor
  bool operator==(const ResourceClaim&) const = default;
};

struct ResourceClaimTemplate {
  ObjectMeta meta;
  std::vector<DeviceRequest> requests; // spec.spec.devices.requests
  std::string gpu_sharing;             // as ResourceClaim's, of spec.spec
  bool operator==(const ResourceClaimTemplate&) const = default;
};

DeviceClass device_class_from_json(const nlohmann::json& device_class);
ResourceSlice resource_slice_from_json(const nlohmann::json& slice);
ResourceClaim resource_claim_from_json(const nlohmann::json& claim);
ResourceClaimTemplate resource_claim_template_from_json(const nlohmann::json& claim_template);
nlohmann::json to_json(const DeviceClass& device_class);
nlohmann::json to_json(const ResourceSlice& slice);
nlohmann::json to_json(const ResourceClaim& claim);
nlohmann::json to_json(const ResourceClaimTemplate& claim_template);

} // namespace gpuslice::model
