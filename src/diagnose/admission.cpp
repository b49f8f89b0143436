// SPDX-License-Identifier: Apache-2.0
// GS603: GPU pods the kubelet refused at admission (phase Failed, UnexpectedAdmissionError).
// The scheduler placed them, the device plugin's Allocate failed, and no one retries a Failed
// pod: they stay until deleted while their ReplicaSet makes replacements that fail alike. A
// request above 1 on a time-sliced GPU is the usual cause, and has its own fix.
#include <algorithm>
#include <array>
#include <map>
#include <string_view>
#include <tuple>

#include <fmt/format.h>

#include "analyzers.hpp"

namespace gpuslice::diagnose {

namespace {

// The device plugin's words for a request above 1 on a shared resource: NVIDIA's
// (failRequestsGreaterThanOne; v0.14 and v0.15+ texts share this part) and GKE's time-sharing.
constexpr std::array<std::string_view, 2> k_shared_request_words = {
    "maximum request size for shared resources is 1",
    "at most 1 nvidia.com/gpu can be requested",
};

// More names than this make a command nobody reads; the rest are deleted on the next run.
constexpr std::size_t k_max_deleted_pods = 20;

bool refused_shared_request(const model::Pod& pod) {
  return std::any_of(k_shared_request_words.begin(), k_shared_request_words.end(),
                     [&](std::string_view words) { return pod.message.find(words) != std::string::npos; });
}

// The largest GPU request of one container (Allocate is asked per container, so two
// containers of 1 each are admitted where one of 2 is not).
long long largest_container_request(const model::PodSpec& spec, std::string_view resource) {
  long long largest = 0;
  for (const auto* list : {&spec.init_containers, &spec.containers})
    for (const model::Container& c : *list) largest = std::max<long long>(largest, c.effective_request(resource).value());
  return largest;
}

// The containers of spec that ask for more than one unit of resource.
std::vector<std::string> containers_above_one(const model::PodSpec& spec, std::string_view resource) {
  std::vector<std::string> names;
  for (const auto* list : {&spec.init_containers, &spec.containers})
    for (const model::Container& c : *list)
      if (c.effective_request(resource).value() > 1) names.push_back(c.name);
  return names;
}

// The failed pods of one workload (or one pod without a workload), of one kind of refusal.
struct AdmissionGroup {
  const model::Workload* owner = nullptr;
  bool shared_request = false;
  std::vector<const model::Pod*> pods;
};

std::string kind_word(const model::Workload& w) { return w.kind == "StatefulSet" ? "statefulset" : "deployment"; }

std::string delete_command(const AdmissionGroup& g) {
  std::string command = fmt::format("kubectl delete pod -n {}", g.pods.front()->meta.ns);
  for (std::size_t i = 0; i < g.pods.size() && i < k_max_deleted_pods; ++i) command += " " + g.pods[i]->meta.name;
  return command;
}

std::string deleted_note(const AdmissionGroup& g) {
  return g.pods.size() > k_max_deleted_pods
             ? fmt::format(" (the command names the first {} of {}; run diagnose again for the rest)",
                           k_max_deleted_pods, g.pods.size())
             : std::string();
}

// The replicas the workload lacks, counted with its Pending GPU pods: both are replicas that
// do not run.
std::string shortfall_line(const Context& ctx, const AdmissionGroup& g) {
  const model::Workload& w = *g.owner;
  const auto pending = std::count_if(ctx.pending.begin(), ctx.pending.end(), [&](const PendingGpuPod& p) {
    return ctx.owner_workload(*p.pod) == &w;
  });
  const long long missing = std::max(0LL, w.replicas - w.ready_replicas);
  return fmt::format("{} {}: {} of {} replica(s) ready, {} missing; its GPU pods not running: {} Pending, {} failed "
                     "admission",
                     w.kind, qualified(w.meta), w.ready_replicas, w.replicas, missing, pending, g.pods.size());
}

Remedy shared_request_remedy(const AdmissionGroup& g, const std::string& resource) {
  const std::string deleted = deleted_note(g);
  if (!g.owner) {
    return {fmt::format("Re-create the pod with a request of 1 {} per container; a Failed pod is never retried. Or set "
                        "failRequestsGreaterThanOne: false in the time-slicing config, which admits the request but "
                        "gives it no more GPU.",
                        resource),
            delete_command(g)};
  }
  const model::Workload& w = *g.owner;
  if (largest_container_request(w.pod_template.spec, resource) <= 1) {
    return {fmt::format("{} {} now requests 1 {} per container: delete the failed pods{}; they are never retried, and "
                        "its controller replaces them.",
                        w.kind, qualified(w.meta), resource, deleted),
            delete_command(g)};
  }
  const std::vector<std::string> above = containers_above_one(w.pod_template.spec, resource);
  const std::string text = fmt::format(
      "Set the GPU request of {} {} to 1 {} per container (a time-sliced GPU gives a container one share at most), "
      "then delete the failed pods ({}){}. Or set failRequestsGreaterThanOne: false in the time-slicing config, which "
      "admits the request but gives it no more GPU.",
      w.kind, qualified(w.meta), resource, delete_command(g), deleted);
  // Exact only for one container: set resources without -c would give every container a GPU.
  if (above.size() != 1) return {text, {}};
  return {text, fmt::format("kubectl -n {} set resources {}/{} -c {} --limits={}=1 --requests={}=1", w.meta.ns,
                            kind_word(w), w.meta.name, above.front(), resource, resource)};
}

Finding admission_finding(const Context& ctx, const AdmissionGroup& g) {
  const model::Pod& first = *g.pods.front();
  const auto [resource, count] = main_gpu_request(first.spec);
  const std::string who = g.owner ? fmt::format("of {} {} ", g.owner->kind, qualified(g.owner->meta)) : std::string();
  Finding f = make_finding(
      FindingCode::GS603,
      g.shared_request
          ? fmt::format("{} pod(s) {}failed admission: a request of {} {} on a shared GPU, where at most 1 is admitted",
                        g.pods.size(), who, count, resource)
          : fmt::format("{} GPU pod(s) {}failed admission (UnexpectedAdmissionError)", g.pods.size(), who));
  if (g.owner) f.objects.push_back(object_ref(g.owner->kind, g.owner->meta));
  std::vector<std::pair<std::string, std::string>> lines;
  for (const model::Pod* pod : g.pods) {
    f.objects.push_back(object_ref("Pod", pod->meta));
    const std::string node = pod->spec.node_name.empty() ? "" : fmt::format(" on node {}", pod->spec.node_name);
    lines.emplace_back(qualified(pod->meta), fmt::format("Failed, UnexpectedAdmissionError{}: \"{}\"", node,
                                                         pod->message.empty() ? "(no message)" : pod->message));
  }
  f.evidence = grouped_evidence(lines, 3);
  if (g.shared_request) {
    f.evidence.push_back(fmt::format("a container asks for {} {}; a time-sliced GPU admits 1 per container, so each "
                                     "such pod is refused and never retried",
                                     largest_container_request(first.spec, resource), resource));
  } else {
    f.evidence.push_back("the device plugin's Allocate failed on the node; the kubelet does not retry a Failed pod");
  }
  if (g.owner) f.evidence.push_back(shortfall_line(ctx, g));
  if (g.shared_request) {
    f.remedy = shared_request_remedy(g, resource);
  } else {
    const std::string node = first.spec.node_name.empty() ? "its node" : "node " + first.spec.node_name;
    f.remedy = {fmt::format("Fix what the message names (the device plugin on {}: its pod's log), then delete the "
                            "failed pods{} so their workload makes new ones.",
                            node, deleted_note(g)),
                delete_command(g)};
  }
  return f;
}

} // namespace

void find_failed_admission(const Context& ctx, std::vector<Finding>& out) {
  // Keyed by namespace, owner name and kind of refusal, so findings come in a stable order.
  std::map<std::tuple<std::string, std::string, bool>, AdmissionGroup> groups;
  for (const model::Pod& pod : ctx.snapshot.pods) {
    if (!pod.failed_admission() || main_gpu_request(pod.spec).second <= 0) continue;
    const model::Workload* owner = ctx.owner_workload(pod);
    const bool shared = refused_shared_request(pod);
    AdmissionGroup& g = groups[{pod.meta.ns, owner ? owner->kind + "/" + owner->meta.name : "Pod/" + pod.meta.name, shared}];
    g.owner = owner;
    g.shared_request = shared;
    g.pods.push_back(&pod);
  }
  for (auto& [key, g] : groups) {
    std::sort(g.pods.begin(), g.pods.end(), [](const model::Pod* a, const model::Pod* b) { return a->meta.name < b->meta.name; });
    out.push_back(admission_finding(ctx, g));
  }
}

} // namespace gpuslice::diagnose
