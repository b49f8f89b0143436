// SPDX-License-Identifier: Apache-2.0
// GS6xx: GPU workloads — tolerations against the GPU nodes' taints (judged on the pods the
// API returns, which carry admission-added tolerations such as EKS's
// ExtendedResourceToleration), multi-GPU asks on shared GPUs, and product-label selectors.
#include <algorithm>

#include <fmt/format.h>

#include "analyzers.hpp"

namespace gpuslice::diagnose {

namespace {

// A live pod of the workload, whose spec is what admission made of the template.
const model::Pod* live_pod(const Context& ctx, const model::Workload& w) {
  if (!w.selector || w.selector->requirements.empty()) return nullptr;
  for (const model::Pod& pod : ctx.snapshot.pods) {
    if (pod.meta.ns == w.meta.ns && model::selector_matches(*w.selector, pod.meta.labels)) return &pod;
  }
  return nullptr;
}

void lacks_gpu_toleration(const Context& ctx, std::vector<Finding>& out) {
  for (const auto* list : {&ctx.snapshot.deployments, &ctx.snapshot.statefulsets}) {
    for (const model::Workload& w : *list) {
      if (main_gpu_request(w.pod_template.spec).second <= 0) continue;
      const model::Pod* pod = live_pod(ctx, w);
      const model::PodSpec& spec = pod ? pod->spec : w.pod_template.spec;
      std::vector<const GpuNode*> candidates;
      for (const GpuNode& n : ctx.gpu_nodes) {
        if (selector_admits(spec, *n.node)) candidates.push_back(&n);
      }
      if (candidates.empty()) continue;
      std::string key;
      std::string taint;
      const bool all_blocked = std::all_of(candidates.begin(), candidates.end(), [&](const GpuNode* n) {
        for (const model::Taint& t : blocking_taints(spec, *n->node)) {
          if (is_system_taint(t)) continue;
          if (key.empty()) {
            key = t.key;
            taint = model::to_string(t);
          }
          return true;
        }
        return false;
      });
      if (!all_blocked) continue;
      Finding f = make_finding(FindingCode::GS600,
                               fmt::format("{} {} requests GPUs but does not tolerate {}", w.kind, qualified(w.meta), taint));
      f.objects.push_back(object_ref(w.kind, w.meta));
      f.evidence.push_back(fmt::format("every GPU node its selector admits ({}) carries a taint it does not tolerate",
                                       candidates.size()));
      f.evidence.push_back(pod ? fmt::format("judged on its pod {} (tolerations as admitted)", pod->meta.name)
                               : std::string("judged on the pod template (no pod of it exists)"));
      f.remedy = {fmt::format("Add a toleration of {} to the pod template.", key), toleration_patch_command(w, key)};
      out.push_back(std::move(f));
    }
  }
}

void multi_gpu_time_sliced(const Context& ctx, std::vector<Finding>& out) {
  std::vector<const model::Pod*> pods;
  for (const model::Pod& pod : ctx.snapshot.pods) {
    if (pod.phase == "Succeeded" || pod.phase == "Failed") continue;
    const auto [resource, count] = main_gpu_request(pod.spec);
    if (count <= 1) continue;
    const GpuNode* node = ctx.gpu_node(pod.spec.node_name);
    const bool shared_name = resource == model::k_shared_gpu_resource;
    const bool on_shared_node = node ? node->gpus.replicas > 1 : ctx.time_slicing_on();
    if (shared_name || on_shared_node) pods.push_back(&pod);
  }
  if (pods.empty()) return;
  Finding f = make_finding(FindingCode::GS601,
                           fmt::format("{} pod(s) request more than one time-sliced GPU", pods.size()));
  for (const model::Pod* pod : pods) {
    f.objects.push_back(object_ref("Pod", pod->meta));
    if (f.evidence.size() >= 8) continue;
    const auto [resource, count] = main_gpu_request(pod->spec);
    f.evidence.push_back(fmt::format("{} requests {} {}: the replicas may be one physical GPU, and "
                                     "failRequestsGreaterThanOne rejects it", qualified(pod->meta), count, resource));
  }
  const model::Workload* owner = ctx.owner_workload(*pods.front());
  const std::string resource = main_gpu_request(pods.front()->spec).first;
  f.remedy = {"Request one GPU share per pod, or run it on unshared GPUs.",
              owner ? fmt::format("kubectl -n {} set resources {}/{} --limits={}=1", owner->meta.ns,
                                  owner->kind == "StatefulSet" ? "statefulset" : "deployment", owner->meta.name, resource)
                    : fmt::format("kubectl -n {} edit pod {}", pods.front()->meta.ns, pods.front()->meta.name)};
  out.push_back(std::move(f));
}

void selector_on_shared_product(const Context& ctx, std::vector<Finding>& out) {
  for (const PendingGpuPod& p : ctx.pending) {
    const auto it = p.pod->spec.node_selector.find(model::k_label_gpu_product);
    if (it == p.pod->spec.node_selector.end()) continue;
    const std::string product(it->second);
    std::vector<std::string> shared;
    bool exact = false;
    for (const GpuNode& n : ctx.gpu_nodes) {
      const std::optional<std::string_view> label = n.node->meta.label(model::k_label_gpu_product);
      if (!label) continue;
      if (*label == product) exact = true;
      if (*label == product + "-SHARED") shared.push_back(n.node->name());
    }
    if (exact || shared.empty()) continue;
    Finding f = make_finding(FindingCode::GS602,
                             fmt::format("pod {} pins nvidia.com/gpu.product={} but time-sliced nodes label it {}-SHARED",
                                         qualified(p.pod->meta), product, product));
    f.objects.push_back(object_ref("Pod", p.pod->meta));
    f.evidence.push_back(fmt::format("nodes labelled nvidia.com/gpu.product={}-SHARED: {}", product, name_list(shared)));
    const model::Workload* owner = ctx.owner_workload(*p.pod);
    const std::string patch = fmt::format(
        R"({{"spec":{{"template":{{"spec":{{"nodeSelector":{{"nvidia.com/gpu.product":"{}-SHARED"}}}}}}}}}})", product);
    f.remedy = {"Select the shared product name (GFD appends -SHARED under time-slicing unless resources are renamed).",
                owner ? fmt::format("kubectl -n {} patch {} {} --type merge -p '{}'", owner->meta.ns,
                                    owner->kind == "StatefulSet" ? "statefulset" : "deployment", owner->meta.name, patch)
                      : fmt::format("kubectl -n {} edit pod {}", p.view.ns, p.view.name)};
    out.push_back(std::move(f));
  }
}

} // namespace

void find_workloads(const Context& ctx, std::vector<Finding>& out) {
  lacks_gpu_toleration(ctx, out);
  multi_gpu_time_sliced(ctx, out);
  selector_on_shared_product(ctx, out);
  find_failed_admission(ctx, out);
}

} // namespace gpuslice::diagnose
