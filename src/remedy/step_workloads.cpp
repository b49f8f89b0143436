// SPDX-License-Identifier: Apache-2.0
// `workloads tolerate`: the GPU taint's toleration on GPU Deployments and StatefulSets — only
// where the pods the API returns lack it (EKS's ExtendedResourceToleration adds it to pods
// requesting nvidia.com/gpu, not nvidia.com/gpu.shared), since every patch rolls the pods.
#include <gpuslice/remedy/plan.hpp>

#include <algorithm>

#include <fmt/format.h>

#include <gpuslice/error.hpp>
#include <gpuslice/model.hpp>

namespace gpuslice::remedy {

namespace {

nlohmann::json workload_display(const model::Workload& workload) {
  nlohmann::json out = model::to_json(workload);
  out.erase("status");
  out["metadata"].erase("resourceVersion");
  return out;
}

std::vector<const model::Pod*> pods_of_workload(const Snapshot& snapshot, const model::Workload& workload) {
  std::vector<const model::Pod*> out;
  if (!workload.selector || workload.selector->requirements.empty()) return out;
  for (const model::Pod& pod : snapshot.pods) {
    if (pod.meta.ns == workload.meta.ns && model::selector_matches(*workload.selector, pod.meta.labels)) {
      out.push_back(&pod);
    }
  }
  return out;
}

bool workload_requests_gpu(const model::Workload& workload) {
  return model::gpu_units(model::effective_gpu_requests(workload.pod_template.spec)) > 0;
}

} // namespace

Step plan_workloads_tolerate(const Snapshot& snapshot, const WorkloadSelection& selection,
                             const TaintOptions& taint) {
  std::optional<model::LabelSelector> selector;
  if (!selection.selector.empty()) {
    model::Parsed<model::LabelSelector> parsed = model::parse_selector_string(selection.selector);
    if (!parsed) throw UsageError(fmt::format("--selector \"{}\": {}", selection.selector, parsed.error));
    selector = *parsed.value;
  }
  for (const std::string& wanted : selection.deployments) {
    if (wanted.find('/') == std::string::npos) {
      throw UsageError(fmt::format("--deployment {}: must be namespace/name", wanted));
    }
    const bool known = std::any_of(snapshot.deployments.begin(), snapshot.deployments.end(),
                                   [&](const model::Workload& w) { return w.meta.ns + "/" + w.meta.name == wanted; });
    if (!known) throw UsageError(fmt::format("--deployment {}: no GPU Deployment of that name", wanted));
  }

  const model::Taint model_taint{taint.key, taint.value, taint.effect, ""};
  const nlohmann::json toleration = {{"key", taint.key}, {"operator", "Exists"}, {"effect", taint.effect}};
  const Edit edit{EditKind::add_toleration, toleration};
  Step step;
  step.name = "workloads tolerate";

  std::vector<const model::Workload*> workloads;
  for (const model::Workload& w : snapshot.deployments) workloads.push_back(&w);
  if (selection.deployments.empty()) {
    for (const model::Workload& w : snapshot.statefulsets) workloads.push_back(&w);
  }
  int rollouts = 0;
  for (const model::Workload* workload : workloads) {
    const std::string id = workload->meta.ns + "/" + workload->meta.name;
    if (!workload_requests_gpu(*workload)) continue;
    if (!selection.deployments.empty() &&
        std::find(selection.deployments.begin(), selection.deployments.end(), id) == selection.deployments.end()) {
      continue;
    }
    if (selector && !model::selector_matches(*selector, workload->meta.labels)) continue;

    Change change;
    change.action = Action::patch;
    change.target = target_for(workload->kind, workload->meta.ns, workload->meta.name);
    change.before = workload_display(*workload);
    change.edit = edit;
    const bool template_tolerates = model::tolerated(workload->pod_template.spec.tolerations, model_taint);
    const std::vector<const model::Pod*> pods = pods_of_workload(snapshot, *workload);
    const bool pods_tolerate =
        !pods.empty() && std::all_of(pods.begin(), pods.end(), [&](const model::Pod* pod) {
          return model::tolerated(pod->spec.tolerations, model_taint);
        });
    if (template_tolerates || pods_tolerate) {
      change.after = change.before;
      change.changed = false;
      if (!template_tolerates) {
        step.notes.push_back(fmt::format("{} {}: its pods get the toleration at admission "
                                         "(ExtendedResourceToleration); template left unchanged",
                                         workload->kind, id));
      }
    } else {
      change.after = apply_edit(edit, change.before);
      change.changed = true;
      ++rollouts;
      step.notes.push_back(fmt::format("{} {}: patching its pod template rolls out its {} pod(s)", workload->kind,
                                       id, workload->replicas));
    }
    step.changes.push_back(std::move(change));
  }
  step.summary = fmt::format("toleration {}:{} (Exists) on {} GPU workload(s), {} rollout(s)", taint.key,
                             taint.effect, step.changes.size(), rollouts);
  return step;
}

} // namespace gpuslice::remedy
