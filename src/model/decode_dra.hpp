// SPDX-License-Identifier: Apache-2.0
// The DRA records (model/dra.hpp) from any JSON document type, for the three served versions:
// a request's selection sits under `exactly` in v1 and v1beta2 and on the request itself in
// v1beta1; a device's attributes and capacity sit under `basic` in v1beta1 only.
#pragma once

#include <algorithm>

#include <gpuslice/model/dra.hpp>

#include "decode.hpp"

namespace gpuslice::model::decode {

template <class J> std::vector<std::string> cel_selectors(const J& j) {
  std::vector<std::string> out;
  for (const auto& s : array_at(j, "selectors")) {
    const std::string expression = string_at(object_at(s, "cel"), "expression");
    if (!expression.empty()) out.push_back(expression);
  }
  return out;
}

template <class J> DeviceClass device_class(const J& j) {
  DeviceClass c;
  c.meta = meta(object_at(j, "metadata"));
  const auto& spec = object_at(j, "spec");
  c.selectors = cel_selectors(spec);
  c.extended_resource_name = string_at(spec, "extendedResourceName");
  return c;
}

template <class J> DeviceSelection device_selection(const J& j) {
  DeviceSelection s;
  s.name = string_at(j, "name");
  s.device_class = string_at(j, "deviceClassName");
  s.selectors = cel_selectors(j);
  s.allocation_mode = string_at(j, "allocationMode");
  if (s.allocation_mode.empty()) s.allocation_mode = "ExactCount";
  s.count = int_at(j, "count", 1);
  s.admin_access = bool_at(j, "adminAccess");
  return s;
}

template <class J> DeviceRequest device_request(const J& j) {
  DeviceRequest r;
  r.name = string_at(j, "name");
  // v1/v1beta2: `exactly`; v1beta1: the same fields on the request.
  if (auto exactly = field(j, "exactly"); exactly && is_object(*exactly))
    r.exactly = device_selection(*exactly);
  else if (field(j, "deviceClassName"))
    r.exactly = device_selection(j);
  r.exactly.name.clear();
  append_each(r.first_available, array_at(j, "firstAvailable"), [](const auto& s) { return device_selection(s); });
  if (r.exactly.device_class.empty()) r.exactly = {};
  return r;
}

template <class J> std::vector<DeviceRequest> device_requests(const J& claim_spec) {
  std::vector<DeviceRequest> out;
  append_each(out, array_at(object_at(claim_spec, "devices"), "requests"),
              [](const auto& r) { return device_request(r); });
  return out;
}

template <class J> Device device(const J& j) {
  Device d;
  d.name = string_at(j, "name");
  const auto& basic = object_at(j, "basic"); // v1beta1
  const bool is_beta1 = is_object(basic) && (field(basic, "attributes") || field(basic, "capacity"));
  const auto& attributes = is_beta1 ? object_at(basic, "attributes") : object_at(j, "attributes");
  const auto& capacity = is_beta1 ? object_at(basic, "capacity") : object_at(j, "capacity");
  if (is_object(attributes)) {
    JsonAccess<J>::for_each_member(attributes, [&](std::string_view name, const auto& value) {
      for (const char* type : {"string", "int", "bool", "version"}) {
        if (!field(value, type)) continue;
        d.attributes.push_back({std::string(name), type, string_at(value, type)});
        break;
      }
    });
  }
  // By name, as nlohmann reads members: the same record from every document type.
  std::sort(d.attributes.begin(), d.attributes.end(),
            [](const DeviceAttribute& a, const DeviceAttribute& b) { return a.name < b.name; });
  if (is_object(capacity)) {
    JsonAccess<J>::for_each_member(capacity, [&](std::string_view name, const auto& value) {
      // v1beta1 onwards: {"value": "40Gi"}; v1alpha3 wrote the quantity itself.
      std::optional<Quantity> q = Quantity::parse(is_object(value) ? string_at(value, "value") : JsonAccess<J>::text(value));
      if (q) d.capacity.insert_or_assign(name, *q);
    });
  }
  return d;
}

template <class J> ResourceSlice resource_slice(const J& j) {
  ResourceSlice s;
  s.meta = meta(object_at(j, "metadata"));
  const auto& spec = object_at(j, "spec");
  s.driver = string_at(spec, "driver");
  const auto& pool = object_at(spec, "pool");
  s.pool = string_at(pool, "name");
  s.pool_generation = int_at(pool, "generation");
  s.pool_slice_count = int_at(pool, "resourceSliceCount");
  s.node_name = string_at(spec, "nodeName");
  s.all_nodes = bool_at(spec, "allNodes");
  append_each(s.devices, array_at(spec, "devices"), [](const auto& d) { return device(d); });
  return s;
}

// The node an allocation's nodeSelector pins it to: a matchFields metadata.name In [node].
template <class J> std::string allocated_node(const J& node_selector) {
  for (const auto& term : array_at(node_selector, "nodeSelectorTerms")) {
    for (const auto& requirement : array_at(term, "matchFields")) {
      if (string_at(requirement, "key") != "metadata.name" || string_at(requirement, "operator") != "In") continue;
      const std::vector<std::string> values = strings_at(requirement, "values");
      if (values.size() == 1) return values.front();
    }
  }
  return {};
}

// The sharing strategy of the NVIDIA driver's GpuConfig among a claim spec's opaque configs.
template <class J> std::string gpu_sharing(const J& claim_spec) {
  for (const auto& config : array_at(object_at(claim_spec, "devices"), "config")) {
    const auto& opaque = object_at(config, "opaque");
    const auto& parameters = object_at(opaque, "parameters");
    if (string_at(opaque, "driver") != k_nvidia_gpu_driver || string_at(parameters, "kind") != "GpuConfig") continue;
    const std::string strategy = string_at(object_at(parameters, "sharing"), "strategy");
    if (!strategy.empty()) return strategy;
  }
  return {};
}

template <class J> ResourceClaim resource_claim(const J& j) {
  ResourceClaim c;
  c.meta = meta(object_at(j, "metadata"));
  c.requests = device_requests(object_at(j, "spec"));
  c.gpu_sharing = gpu_sharing(object_at(j, "spec"));
  const auto& status = object_at(j, "status");
  if (auto allocation = field(status, "allocation"); allocation && is_object(*allocation)) {
    c.allocated = true;
    c.allocated_node = allocated_node(object_at(*allocation, "nodeSelector"));
    append_each(c.devices, array_at(object_at(*allocation, "devices"), "results"), [](const auto& r) {
      return AllocatedDevice{string_at(r, "request"), string_at(r, "driver"), string_at(r, "pool"),
                             string_at(r, "device")};
    });
  }
  for (const auto& consumer : array_at(status, "reservedFor"))
    if (string_at(consumer, "resource") == "pods") c.reserved_for.push_back(string_at(consumer, "name"));
  return c;
}

template <class J> ResourceClaimTemplate resource_claim_template(const J& j) {
  ResourceClaimTemplate t;
  t.meta = meta(object_at(j, "metadata"));
  t.requests = device_requests(object_at(object_at(j, "spec"), "spec"));
  t.gpu_sharing = gpu_sharing(object_at(object_at(j, "spec"), "spec"));
  return t;
}

} // namespace gpuslice::model::decode
