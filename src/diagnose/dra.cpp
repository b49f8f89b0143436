// SPDX-License-Identifier: Apache-2.0
// GS8xx: why a pod's DRA ResourceClaims cannot be allocated or prepared. The scheduler says only
// "cannot allocate all claims" (or nothing, when a claim was never created); the replay in
// dra_allocation.cpp says which claim, which request and which nodes.
#include <algorithm>
#include <cstdio>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "analyzers.hpp"
#include "dra_allocation.hpp"

namespace gpuslice::diagnose {

namespace {

std::string scheduler_words(const model::Pod& pod) {
  const model::Condition* c = pod.condition("PodScheduled");
  return c && c->status == "False" && !c->message.empty() ? fmt::format("; the scheduler says \"{}\"", c->message)
                                                           : std::string{};
}

void claims_missing(const std::vector<PodClaims>& pods, std::vector<Finding>& out) {
  Finding f = make_finding(FindingCode::GS800, "");
  std::set<std::string> missing_templates;
  bool not_created = false;
  for (const PodClaims& p : pods) {
    if (!p.missing.empty()) f.objects.push_back(object_ref("Pod", p.pod->meta));
    for (const MissingClaim& m : p.missing) {
      const std::string who = qualified(p.pod->meta);
      if (m.template_missing) {
        missing_templates.insert(fmt::format("{}/{}", p.pod->meta.ns, m.template_name));
        f.evidence.push_back(fmt::format("{}: claim {} is made from ResourceClaimTemplate {}, which does not exist", who,
                                         m.pod_claim, m.template_name));
      } else if (m.claim.empty()) {
        not_created = true;
        f.evidence.push_back(fmt::format("{}: claim {} from ResourceClaimTemplate {} has not been made yet (no "
                                         "status.resourceClaimStatuses entry names one)",
                                         who, m.pod_claim, m.template_name));
      } else {
        f.evidence.push_back(fmt::format("{}: claim {} names ResourceClaim {}, which does not exist", who, m.pod_claim,
                                         m.claim));
      }
    }
  }
  if (f.evidence.empty()) return;
  if (f.evidence.size() > 5) {
    const std::size_t more = f.evidence.size() - 5;
    f.evidence.resize(5);
    f.evidence.push_back(fmt::format("and {} more", more));
  }
  f.summary = fmt::format("{} pending pod(s) wait for ResourceClaims that do not exist; the scheduler does not try "
                          "them until they do",
                          f.objects.size());
  if (!missing_templates.empty()) {
    f.remedy.text = fmt::format("Create the ResourceClaimTemplate(s) {} (or fix the pods' resourceClaimTemplateName); "
                                "kube-controller-manager then makes each pod its claim.",
                                name_list({missing_templates.begin(), missing_templates.end()}, 3));
  } else if (not_created) {
    f.remedy.text = "kube-controller-manager makes a pod's claim from its template and has not: check that the "
                    "DynamicResourceAllocation feature is on there and read its log for resource-claim errors.";
  } else {
    f.remedy.text = "Create the named ResourceClaim(s) in the pods' namespace, or have the pods use a "
                    "ResourceClaimTemplate so each gets its own.";
  }
  out.push_back(std::move(f));
}

void classes_missing(const Context& ctx, const std::vector<PodClaims>& pods, std::vector<Finding>& out) {
  Finding f = make_finding(FindingCode::GS801, "");
  std::set<std::string> classes;
  for (const PodClaims& p : pods) {
    bool named = false;
    for (const std::vector<RequestCheck>& alternatives : p.requests) {
      // With firstAvailable one existing class is enough.
      if (std::any_of(alternatives.begin(), alternatives.end(), [](const RequestCheck& r) { return !r.class_missing; })) continue;
      for (const RequestCheck& r : alternatives) {
        classes.insert(r.device_class);
        // The scheduler's PreFilter says "request <r>: device class <c> does not exist": quoted once per pod.
        f.evidence.push_back(fmt::format("{}: claim {} request {} names DeviceClass {}, which does not exist{}",
                                         qualified(p.pod->meta), r.claim, r.request, r.device_class,
                                         named ? std::string{} : scheduler_words(*p.pod)));
        named = true;
      }
      if (std::find(f.objects.begin(), f.objects.end(), object_ref("Pod", p.pod->meta)) == f.objects.end())
        f.objects.push_back(object_ref("Pod", p.pod->meta));
    }
  }
  if (f.evidence.empty()) return;
  std::vector<std::string> existing;
  for (const model::DeviceClass& c : ctx.snapshot.device_classes) existing.push_back(c.meta.name);
  f.summary = fmt::format("{} pending pod(s) request devices of DeviceClass(es) that do not exist: {}", f.objects.size(),
                          name_list({classes.begin(), classes.end()}, 3));
  f.remedy.text = existing.empty()
                      ? std::string("No DeviceClass exists: install the DRA driver (NVIDIA's chart creates "
                                    "gpu.nvidia.com and mig.nvidia.com), or fix the claims' deviceClassName.")
                      : fmt::format("Use an existing class in the claims' deviceClassName ({}), or install the "
                                    "driver that creates the missing one.",
                                    name_list(existing, 5));
  out.push_back(std::move(f));
}

// "gpu-1: 1 matching, 0 free (held by ml/a)", "gpu-2: none of 4 device(s) match".
std::string node_text(const NodeDevices& n) {
  if (n.matching == 0) {
    return fmt::format("{}: none of {} device(s) match{}", n.node, n.devices,
                       n.cel_error ? ", a selector fails on a device here" : "");
  }
  std::string text = fmt::format("{}: {} matching, {} free", n.node, n.matching, n.free);
  if (!n.held_by.empty()) text += fmt::format(" (held by {})", name_list(n.held_by, 2));
  if (n.cel_error) text += ", a selector fails on a device here";
  return text;
}

std::string request_text(const PodClaims& p, const RequestCheck& r) {
  std::vector<std::string> nodes;
  for (const NodeDevices& n : r.nodes) nodes.push_back(node_text(n));
  const std::string wanted = r.all ? std::string("all") : std::to_string(r.count);
  return fmt::format("{}: claim {} request {} wants {} device(s) of class {}; {}/{} node(s) with ResourceSlices have "
                     "them free{}{}",
                     qualified(p.pod->meta), r.claim, r.request, wanted, r.device_class, r.nodes_with_room(),
                     r.nodes.size(), nodes.empty() ? std::string{} : ": ", name_list(nodes, 3));
}

void devices_unavailable(const std::vector<PodClaims>& pods, std::vector<Finding>& out) {
  Finding f = make_finding(FindingCode::GS802, "");
  bool held = false;
  bool none_match = false;
  bool cel_error = false;
  for (const PodClaims& p : pods) {
    bool named = false;
    for (const std::vector<RequestCheck>& alternatives : p.requests) {
      if (request_fits_somewhere(alternatives)) continue;
      if (std::any_of(alternatives.begin(), alternatives.end(), [](const RequestCheck& r) { return r.class_missing; })) continue;
      for (const RequestCheck& r : alternatives) {
        f.evidence.push_back(request_text(p, r) + (named ? std::string{} : scheduler_words(*p.pod)));
        if (!r.cel_error.empty()) {
          cel_error = true;
          f.evidence.push_back(fmt::format("{}: a CEL runtime error, on which the scheduler gives up on the node: {}",
                                           qualified(p.pod->meta), r.cel_error));
        }
        for (const NodeDevices& n : r.nodes) {
          held = held || !n.held_by.empty();
          none_match = none_match || n.matching == 0;
        }
      }
      if (!named) f.objects.push_back(object_ref("Pod", p.pod->meta));
      named = true;
    }
  }
  if (f.evidence.empty()) return;
  f.summary = fmt::format("{} pending pod(s) have claim requests that no node's free devices satisfy",
                          f.objects.size());
  std::vector<std::string> fixes;
  if (cel_error) fixes.push_back("guard the selector against devices without the attribute (`\"name\" in "
                                 "device.attributes[\"domain\"] && …`) or select on the driver first");
  if (held) fixes.push_back("free devices held by claims of finished or idle pods (delete those pods or claims)");
  if (none_match) fixes.push_back("check the request's selectors and count against the devices the slices publish "
                                  "(kubectl get resourceslices -o yaml)");
  fixes.push_back("add nodes whose DRA driver publishes such devices");
  f.remedy.text = fmt::format("No node can take these claims as they are: {}.", fmt::join(fixes, "; or "));
  out.push_back(std::move(f));
}

// The cluster allocates NVIDIA GPUs through DRA: a DeviceClass or a ResourceSlice of the driver.
bool uses_nvidia_dra(const Snapshot& s) {
  return std::any_of(s.resource_slices.begin(), s.resource_slices.end(),
                     [](const model::ResourceSlice& r) { return r.driver == model::k_nvidia_gpu_driver; }) ||
         std::any_of(s.device_classes.begin(), s.device_classes.end(), [](const model::DeviceClass& c) {
           return std::any_of(c.selectors.begin(), c.selectors.end(), [](const std::string& e) {
             return e.find(model::k_nvidia_gpu_driver) != std::string::npos;
           });
         });
}

void gpu_nodes_without_slices(const Context& ctx, bool pods_wait, std::vector<Finding>& out) {
  if (!uses_nvidia_dra(ctx.snapshot)) return;
  Finding f = make_finding(FindingCode::GS803, "");
  for (const GpuNode& n : ctx.gpu_nodes) {
    // A node whose GPUs the device plugin advertises is not the DRA driver's.
    if (n.inventory.allocatable > 0 || !n.inventory.mig.empty() || n.inventory.dra.devices > 0) continue;
    f.objects.push_back(object_ref("Node", n.node->meta));
    f.evidence.push_back(fmt::format("node {}: a GPU node ({}), with no device-plugin GPUs and no ResourceSlice of "
                                     "driver {}",
                                     n.node->name(), n.gpus.product.empty() ? std::string("GPU labels") : n.gpus.product,
                                     model::k_nvidia_gpu_driver));
  }
  if (f.objects.empty()) return;
  if (pods_wait) f.severity = Severity::error;
  f.summary = fmt::format("{} GPU node(s) publish no GPUs to DRA: the NVIDIA DRA driver's kubelet plugin is not "
                          "running there, or found no healthy GPU",
                          f.objects.size());
  f.remedy.text = fmt::format("Check the DRA driver's kubelet-plugin pod on these nodes (its log says whether it "
                              "registered and which GPUs it found); its slices appear with `kubectl get "
                              "resourceslices --field-selector spec.nodeName={}`.",
                              f.objects.front().name);
  out.push_back(std::move(f));
}

// The kubelet could not prepare a pod's claims (FailedPrepareDynamicResources): most often the
// driver's kubelet plugin is not registered on the node.
void prepare_failed(const Context& ctx, std::vector<Finding>& out) {
  Finding f = make_finding(FindingCode::GS804, "");
  std::set<std::string> nodes;
  bool unregistered = false;
  std::vector<std::pair<std::string, std::string>> lines;
  for (const model::Event& e : ctx.snapshot.events) {
    if (e.reason != "FailedPrepareDynamicResources" || e.regarding.kind != "Pod") continue;
    const auto pod = std::find_if(ctx.snapshot.pods.begin(), ctx.snapshot.pods.end(), [&](const model::Pod& p) {
      return p.meta.ns == e.regarding.ns && p.meta.name == e.regarding.name;
    });
    if (pod == ctx.snapshot.pods.end() || pod->phase == "Running" || pod->phase == "Succeeded") continue;  // it recovered
    f.objects.push_back(object_ref("Pod", pod->meta));
    if (!pod->spec.node_name.empty()) nodes.insert(pod->spec.node_name);
    unregistered = unregistered || e.message.find("is not registered") != std::string::npos ||
                   e.message.find("not found in the list of registered DRA plugins") != std::string::npos;
    lines.emplace_back(fmt::format("{} on {}", qualified(pod->meta), pod->spec.node_name.empty() ? "?" : pod->spec.node_name),
                       fmt::format("kubelet: \"{}\"", e.message));
  }
  if (f.objects.empty()) return;
  f.evidence = grouped_evidence(lines, 5);
  const std::string where = name_list({nodes.begin(), nodes.end()}, 3);
  f.summary = fmt::format("the kubelet cannot prepare the DRA claims of {} pod(s) on {}", f.objects.size(), where);
  f.remedy.text = unregistered
                      ? fmt::format("The DRA driver's kubelet plugin is not registered on {}: check that its pod "
                                    "runs there (and is Ready), then read its log; the pods start once it registers.",
                                    where)
                      : fmt::format("The driver failed to prepare the devices on {}: read the kubelet-plugin pod's "
                                    "log there for the driver's error.",
                                    where);
  out.push_back(std::move(f));
}

// cluster-autoscaler before 1.35 models DRA claims only with --enable-dynamic-resource-allocation
// (off by default; on and locked from 1.35). The Deployment it runs as says which.
struct CaDraSetting {
  const model::Workload* deployment = nullptr;
  std::string version;  // "1.32" from the image tag, "" when the tag says nothing
  bool enabled = false;
};

CaDraSetting cluster_autoscaler_dra(const Snapshot& s) {
  CaDraSetting out;
  for (const model::Workload& w : s.deployments) {
    for (const model::Container& c : w.pod_template.spec.containers) {
      if (c.image.find("cluster-autoscaler") == std::string::npos) continue;
      out.deployment = &w;
      const std::string image = c.image.substr(0, c.image.find('@'));  // a digest says no version
      const std::size_t colon = image.rfind(':');
      const std::string tag = colon == std::string::npos ? std::string{} : image.substr(colon + 1);
      int major = 0;
      int minor = 0;
      if (std::sscanf(tag.c_str(), "v%d.%d", &major, &minor) == 2) {
        out.version = fmt::format("{}.{}", major, minor);
        out.enabled = major > 1 || (major == 1 && minor >= 35);
      }
      for (const auto* args : {&c.command, &c.args}) {
        for (const std::string& arg : *args) {
          if (arg == "--enable-dynamic-resource-allocation" || arg == "--enable-dynamic-resource-allocation=true") {
            out.enabled = true;
          }
        }
      }
      return out;
    }
  }
  return out;
}

// Karpenter (IGNORE_DRA_REQUESTS, its default) provisions no node for a pod with claims; nor
// does a cluster-autoscaler that does not handle DRA objects.
void autoscaler_ignores_dra(const Context& ctx, bool claim_pods_wait, std::vector<Finding>& out) {
  Finding f = make_finding(FindingCode::GS805, "");
  for (const model::Event& e : ctx.snapshot.events) {
    if (e.regarding.kind != "Pod" || e.component() != "karpenter" ||
        e.message.find("Dynamic Resource Allocation requirements that are not yet supported by Karpenter") ==
            std::string::npos) {
      continue;
    }
    const ObjectRef pod{"Pod", e.regarding.ns, e.regarding.name};
    if (std::find(f.objects.begin(), f.objects.end(), pod) != f.objects.end()) continue;
    f.objects.push_back(pod);
    if (f.evidence.size() < 5) f.evidence.push_back(fmt::format("{}/{}: karpenter says \"{}\"", pod.ns, pod.name, e.message));
  }
  const bool karpenter = !f.objects.empty();
  const CaDraSetting ca = claim_pods_wait ? cluster_autoscaler_dra(ctx.snapshot) : CaDraSetting{};
  const bool ca_blind = ca.deployment && !ca.enabled;
  if (!karpenter && !ca_blind) return;
  std::vector<std::string> fixes;
  if (karpenter) {
    f.summary = fmt::format("Karpenter adds no node for {} pending pod(s) because they use DRA claims",
                            f.objects.size());
    fixes.push_back("Karpenter does not provision for DRA pods: give them nodes it does not manage (a static or "
                    "cluster-autoscaler node group whose nodes run the DRA driver), or free devices on existing nodes");
  }
  if (ca_blind) {
    f.objects.push_back(object_ref("Deployment", ca.deployment->meta));
    f.evidence.push_back(fmt::format("deployment {}: cluster-autoscaler {}without --enable-dynamic-resource-allocation, "
                                     "which is off by default before 1.35: it does not model the pods' ResourceClaims "
                                     "when it simulates a scale-up",
                                     qualified(ca.deployment->meta),
                                     ca.version.empty() ? std::string{} : fmt::format("{} runs ", ca.version)));
    if (!karpenter) f.summary = "cluster-autoscaler does not handle DRA claims, and pending pods use them";
    fixes.push_back(fmt::format("add --enable-dynamic-resource-allocation=true to {}'s container args (kubectl -n {} "
                                "edit deployment {}), or run cluster-autoscaler 1.35 or later, where it is always on; "
                                "it also needs RBAC to list the resource.k8s.io kinds",
                                ca.deployment->meta.name, ca.deployment->meta.ns, ca.deployment->meta.name));
  }
  f.remedy.text = fmt::format("{}.", fmt::join(fixes, "; and "));
  out.push_back(std::move(f));
}

// The device plugin and the DRA driver both hand out a node's GPUs: each can give away a GPU
// the other already gave.
void two_allocators(const Context& ctx, std::vector<Finding>& out) {
  Finding f = make_finding(FindingCode::GS806, "");
  for (const GpuNode& n : ctx.gpu_nodes) {
    if (n.inventory.dra.devices == 0 || (n.inventory.allocatable == 0 && n.inventory.mig.empty())) continue;
    f.objects.push_back(object_ref("Node", n.node->meta));
    if (f.evidence.size() < 5) {
      f.evidence.push_back(fmt::format("node {}: {} {} in allocatable (device plugin) and {} device(s) of {} in "
                                       "ResourceSlices (DRA driver)",
                                       n.node->name(), n.inventory.allocatable, n.inventory.resource,
                                       n.inventory.dra.devices, model::k_nvidia_gpu_driver));
    }
  }
  if (f.objects.empty()) return;
  f.summary = fmt::format("{} node(s) have their GPUs managed by both the device plugin and the DRA driver",
                          f.objects.size());
  f.remedy.text = "Run one GPU allocator per node: keep the device plugin DaemonSet off the DRA driver's nodes (a "
                  "node label and a nodeAffinity on one of them), or remove one of the two.";
  out.push_back(std::move(f));
}

} // namespace

void find_dra(const Context& ctx, std::vector<Finding>& out) {
  const Snapshot& s = ctx.snapshot;
  prepare_failed(ctx, out);
  two_allocators(ctx, out);
  if (s.device_classes.empty() && s.resource_slices.empty() && s.resource_claims.empty() &&
      std::none_of(s.pods.begin(), s.pods.end(), [](const model::Pod& p) { return !p.spec.resource_claims.empty(); })) {
    return;  // no DRA here: nothing to replay
  }
  const std::vector<PodClaims> pods = check_pending_claims(s);
  claims_missing(pods, out);
  classes_missing(ctx, pods, out);
  devices_unavailable(pods, out);
  find_dra_pinned_claims(ctx, out);
  find_dra_unshared_templates(ctx, out);
  autoscaler_ignores_dra(ctx, !pods.empty(), out);
  gpu_nodes_without_slices(ctx, !pods.empty(), out);
}

} // namespace gpuslice::diagnose
