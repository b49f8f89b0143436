// SPDX-License-Identifier: Apache-2.0
// Pod specs and templates: scheduling constraints, containers, volumes, and the effective
// request rule of k8s.io/component-helpers/resource PodRequests.
#include <algorithm>

#include <nlohmann/json.hpp>

#include <gpuslice/model/json_fields.hpp>

#include "decode.hpp"
#include <gpuslice/model/gpu.hpp>
#include <gpuslice/model/pod.hpp>

#include "resources.hpp"

namespace gpuslice::model {
namespace {

using namespace json_fields;

nlohmann::json container_json(const Container& c) {
  nlohmann::json out = {{"name", c.name}};
  put_string(out, "image", c.image);
  if (!c.command.empty()) out["command"] = c.command;
  if (!c.args.empty()) out["args"] = c.args;
  put_string(out, "restartPolicy", c.restart_policy);
  for (const EnvVar& var : c.env) {
    nlohmann::json env = {{"name", var.name}};
    put_string(env, "value", var.value);
    // Only the kind of source is kept; what it points at is not part of the model.
    if (!var.value_from.empty()) env["valueFrom"][var.value_from] = nlohmann::json::object();
    out["env"].push_back(std::move(env));
  }
  for (const VolumeMount& m : c.volume_mounts) {
    nlohmann::json mount = {{"name", m.name}, {"mountPath", m.mount_path}};
    put_string(mount, "subPath", m.sub_path);
    if (m.read_only) mount["readOnly"] = true;
    out["volumeMounts"].push_back(std::move(mount));
  }
  out["resources"] = nlohmann::json::object();
  if (!c.requests.empty()) out["resources"]["requests"] = to_json(c.requests);
  if (!c.limits.empty()) out["resources"]["limits"] = to_json(c.limits);
  return out;
}

nlohmann::json volume_json(const Volume& v) {
  nlohmann::json out = {{"name", v.name}};
  if (!v.config_map.empty()) {
    out["configMap"] = {{"name", v.config_map}};
    for (const std::string& key : v.items) out["configMap"]["items"].push_back({{"key", key}, {"path", key}});
  }
  if (!v.host_path.empty()) out["hostPath"] = {{"path", v.host_path}};
  return out;
}

// The resources `keep` admits that a container asks for: requests, plus limits for resources
// with no request.
template <class Keep> ResourceList container_requests(const Container& c, const Keep& keep) {
  ResourceList result;
  for (const auto& [name, quantity] : c.requests)
    if (keep(name)) result.insert_or_assign(name, quantity);
  for (const auto& [name, quantity] : c.limits)
    if (keep(name)) result.emplace(name, quantity);
  return result;
}

template <class Keep> void add_into(ResourceList& total, const ResourceList& more, const Keep& keep) {
  for (const auto& [name, quantity] : more)
    if (keep(name)) total[name] += quantity;
}

void add_into(ResourceList& total, const ResourceList& more) {
  add_into(total, more, [](std::string_view) { return true; });
}

void max_into(ResourceList& total, const ResourceList& other) {
  for (const auto& [name, quantity] : other) {
    Quantity& current = total[name];
    if (quantity > current) current = quantity;
  }
}

} // namespace

Quantity Container::effective_request(std::string_view resource) const {
  auto it = requests.find(resource);
  if (it != requests.end()) return it->second;
  return quantity_of(limits, resource);
}

namespace {

// effective_requests of the resources `keep` admits: each resource's total depends on that
// resource alone, so leaving the others out changes no total.
template <class Keep> ResourceList effective_requests_of(const PodSpec& spec, const Keep& keep) {
  ResourceList sum;
  for (const Container& c : spec.containers) add_into(sum, container_requests(c, keep));
  // Init containers run one at a time, but sidecars (restartPolicy Always) keep running next
  // to everything that starts after them and next to the main containers.
  ResourceList sidecars;
  ResourceList init_peak;
  for (const Container& c : spec.init_containers) {
    ResourceList asks = container_requests(c, keep);
    if (c.restart_policy == "Always") {
      add_into(sum, asks);
      add_into(sidecars, asks);
      asks = sidecars;
    } else {
      add_into(asks, sidecars);
    }
    max_into(init_peak, asks);
  }
  max_into(sum, init_peak);
  add_into(sum, spec.overhead, keep);
  return sum;
}

} // namespace

ResourceList effective_requests(const PodSpec& spec) {
  return effective_requests_of(spec, [](std::string_view) { return true; });
}

ResourceList effective_gpu_requests(const PodSpec& spec) {
  return effective_requests_of(spec, [](std::string_view name) { return is_gpu_resource(name); });
}

Quantity effective_request(const PodSpec& spec, std::string_view resource) {
  return quantity_of(effective_requests(spec), resource);
}

PodSpec pod_spec_from_json(const nlohmann::json& spec) { return decode::pod_spec(spec); }

nlohmann::json to_json(const PodSpec& s) {
  nlohmann::json out = nlohmann::json::object();
  put_string(out, "nodeName", s.node_name);
  put_string(out, "schedulerName", s.scheduler_name);
  put_string(out, "serviceAccountName", s.service_account);
  put_string(out, "priorityClassName", s.priority_class);
  put_string(out, "runtimeClassName", s.runtime_class);
  put_map(out, "nodeSelector", s.node_selector);
  if (s.required_affinity)
    out["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] =
        node_selector_json(*s.required_affinity);
  for (const Toleration& t : s.tolerations) out["tolerations"].push_back(to_json(t));
  for (const Container& c : s.init_containers) out["initContainers"].push_back(container_json(c));
  out["containers"] = nlohmann::json::array();
  for (const Container& c : s.containers) out["containers"].push_back(container_json(c));
  for (const Volume& v : s.volumes) out["volumes"].push_back(volume_json(v));
  if (!s.overhead.empty()) out["overhead"] = to_json(s.overhead);
  for (const PodResourceClaim& c : s.resource_claims) {
    nlohmann::json claim = {{"name", c.name}};
    put_string(claim, "resourceClaimName", c.claim_name);
    put_string(claim, "resourceClaimTemplateName", c.template_name);
    out["resourceClaims"].push_back(std::move(claim));
  }
  return out;
}

PodTemplate pod_template_from_json(const nlohmann::json& template_json) { return decode::pod_template(template_json); }

nlohmann::json to_json(const PodTemplate& pod_template) {
  nlohmann::json metadata = nlohmann::json::object();
  put_map(metadata, "labels", pod_template.labels);
  put_map(metadata, "annotations", pod_template.annotations);
  return {{"metadata", metadata}, {"spec", to_json(pod_template.spec)}};
}

ResourceList resource_list_from_json(const nlohmann::json& object) { return decode::resource_list(object); }

nlohmann::json to_json(const ResourceList& list) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [name, quantity] : list) out[name] = quantity.to_string();
  return out;
}

} // namespace gpuslice::model
