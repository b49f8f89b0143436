// SPDX-License-Identifier: Apache-2.0
// DRA records from JSON (any of the three versions) and back, in the resource.k8s.io/v1 shape.
#include <gpuslice/model/dra.hpp>
#include <gpuslice/model/json_fields.hpp>

#include "decode_dra.hpp"

namespace gpuslice::model {

using namespace json_fields;

namespace {

constexpr const char* k_api_version = "resource.k8s.io/v1";

nlohmann::json selectors_json(const std::vector<std::string>& selectors) {
  nlohmann::json out = nlohmann::json::array();
  for (const std::string& s : selectors) out.push_back({{"cel", {{"expression", s}}}});
  return out;
}

nlohmann::json selection_json(const DeviceSelection& s) {
  nlohmann::json out = {{"deviceClassName", s.device_class}, {"allocationMode", s.allocation_mode}};
  put_string(out, "name", s.name);
  if (!s.selectors.empty()) out["selectors"] = selectors_json(s.selectors);
  if (s.allocation_mode == "ExactCount") out["count"] = s.count;
  if (s.admin_access) out["adminAccess"] = true;
  return out;
}

nlohmann::json requests_json(const std::vector<DeviceRequest>& requests, const std::string& gpu_sharing) {
  nlohmann::json out = nlohmann::json::array();
  for (const DeviceRequest& r : requests) {
    nlohmann::json request = {{"name", r.name}};
    if (!r.exactly.device_class.empty()) request["exactly"] = selection_json(r.exactly);
    for (const DeviceSelection& s : r.first_available) request["firstAvailable"].push_back(selection_json(s));
    out.push_back(std::move(request));
  }
  nlohmann::json devices = {{"requests", out}};
  if (!gpu_sharing.empty()) {
    devices["config"] = nlohmann::json::array(
        {{{"opaque",
           {{"driver", std::string(k_nvidia_gpu_driver)},
            {"parameters",
             {{"apiVersion", "resource.nvidia.com/v1beta1"}, {"kind", "GpuConfig"}, {"sharing", {{"strategy", gpu_sharing}}}}}}}}});
  }
  return {{"devices", devices}};
}

nlohmann::json typed(const char* kind, const ObjectMeta& meta) {
  return {{"apiVersion", k_api_version}, {"kind", kind}, {"metadata", to_json(meta)}};
}

} // namespace

DeviceClass device_class_from_json(const nlohmann::json& j) { return decode::device_class(j); }
ResourceSlice resource_slice_from_json(const nlohmann::json& j) { return decode::resource_slice(j); }
ResourceClaim resource_claim_from_json(const nlohmann::json& j) { return decode::resource_claim(j); }
ResourceClaimTemplate resource_claim_template_from_json(const nlohmann::json& j) {
  return decode::resource_claim_template(j);
}

nlohmann::json to_json(const DeviceClass& c) {
  nlohmann::json out = typed("DeviceClass", c.meta);
  out["spec"] = nlohmann::json::object();
  if (!c.selectors.empty()) out["spec"]["selectors"] = selectors_json(c.selectors);
  put_string(out["spec"], "extendedResourceName", c.extended_resource_name);
  return out;
}

nlohmann::json to_json(const ResourceSlice& s) {
  nlohmann::json out = typed("ResourceSlice", s.meta);
  nlohmann::json spec = {{"driver", s.driver},
                         {"pool", {{"name", s.pool}, {"generation", s.pool_generation},
                                   {"resourceSliceCount", s.pool_slice_count}}}};
  put_string(spec, "nodeName", s.node_name);
  if (s.all_nodes) spec["allNodes"] = true;
  spec["devices"] = nlohmann::json::array();
  for (const Device& d : s.devices) {
    nlohmann::json device = {{"name", d.name}};
    for (const DeviceAttribute& a : d.attributes) {
      // Typed values go back as JSON numbers and booleans, as the API writes them.
      nlohmann::json value = a.value;
      if (a.type == "int") value = nlohmann::json::parse(a.value, nullptr, false);
      if (a.type == "bool") value = a.value == "true";
      if (value.is_discarded()) value = a.value;
      device["attributes"][a.name] = {{a.type, value}};
    }
    for (const auto& [name, quantity] : d.capacity) device["capacity"][std::string(name)] = {{"value", quantity.to_string()}};
    spec["devices"].push_back(std::move(device));
  }
  out["spec"] = std::move(spec);
  return out;
}

nlohmann::json to_json(const ResourceClaim& c) {
  nlohmann::json out = typed("ResourceClaim", c.meta);
  out["spec"] = requests_json(c.requests, c.gpu_sharing);
  nlohmann::json status = nlohmann::json::object();
  if (c.allocated) {
    nlohmann::json results = nlohmann::json::array();
    for (const AllocatedDevice& d : c.devices)
      results.push_back({{"request", d.request}, {"driver", d.driver}, {"pool", d.pool}, {"device", d.device}});
    status["allocation"] = {{"devices", {{"results", results}}}};
    if (!c.allocated_node.empty()) {
      status["allocation"]["nodeSelector"] = {
          {"nodeSelectorTerms",
           {{{"matchFields", {{{"key", "metadata.name"}, {"operator", "In"}, {"values", {c.allocated_node}}}}}}}}};
    }
  }
  for (const std::string& pod : c.reserved_for) status["reservedFor"].push_back({{"resource", "pods"}, {"name", pod}});
  out["status"] = std::move(status);
  return out;
}

nlohmann::json to_json(const ResourceClaimTemplate& t) {
  nlohmann::json out = typed("ResourceClaimTemplate", t.meta);
  out["spec"] = {{"spec", requests_json(t.requests, t.gpu_sharing)}};
  return out;
}

} // namespace gpuslice::model
