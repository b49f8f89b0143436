// SPDX-License-Identifier: Apache-2.0
// The DaemonSet controller: one pod per node the DaemonSet should run on (nodeSelector,
// required node affinity, taints against the template's tolerations plus the ones the
// controller adds), pinned by a metadata.name node affinity and bound by the scheduler;
// RollingUpdate replaces pods of an older template generation at most maxUnavailable at a
// time; status as `kubectl rollout status` reads it (reference/kubeclient.md §5).
#include <algorithm>
#include <cstdlib>

#include <gpuslice/model.hpp>

#include "memory.hpp"
#include "pods.hpp"

namespace fakekube::sim {
namespace {

using nlohmann::json;
namespace model = gpuslice::model;

// daemon.AddOrUpdateDaemonPodTolerations.
void add_daemon_tolerations(json& spec) {
  json& tolerations = spec["tolerations"];
  if (!tolerations.is_array()) tolerations = json::array();
  auto add = [&](const char* key, const char* effect) {
    for (const json& t : tolerations)
      if (t.value("key", std::string()) == key && t.value("effect", std::string()) == effect) return;
    tolerations.push_back({{"key", key}, {"operator", "Exists"}, {"effect", effect}});
  };
  add("node.kubernetes.io/not-ready", "NoExecute");
  add("node.kubernetes.io/unreachable", "NoExecute");
  add("node.kubernetes.io/disk-pressure", "NoSchedule");
  add("node.kubernetes.io/memory-pressure", "NoSchedule");
  add("node.kubernetes.io/pid-pressure", "NoSchedule");
  add("node.kubernetes.io/unschedulable", "NoSchedule");
  if (spec.value("hostNetwork", false)) add("node.kubernetes.io/network-unavailable", "NoSchedule");
}

struct Placement {
  bool should_run = false;      // a new pod belongs here
  bool should_continue = false; // an existing pod may stay
};

Placement placement(const model::PodSpec& spec, const model::Node& node) {
  const bool selected = model::node_labels_match(spec.node_selector, node.meta.labels) &&
                        (!spec.required_affinity ||
                         model::node_selector_matches(*spec.required_affinity, node.name(), node.meta.labels));
  if (!selected) return {};
  Placement result{true, true};
  for (const model::Taint& taint : model::untolerated_taints(spec.tolerations, node.taints)) {
    result.should_run = false;
    if (taint.effect == "NoExecute") result.should_continue = false;
  }
  return result;
}

// maxUnavailable as a count of desired pods (int or percent, rounded up; at least 1).
long long max_unavailable(const json& ds, long long desired) {
  const json value = ds["spec"].value("updateStrategy", json::object())
                         .value("rollingUpdate", json::object())
                         .value("maxUnavailable", json(1));
  long long count = 1;
  if (value.is_number_integer()) count = value.get<long long>();
  if (value.is_string()) {
    const std::string text = value.get<std::string>();
    const long long number = std::atoll(text.c_str());
    count = text.ends_with("%") ? (desired * number + 99) / 100 : number;
  }
  return std::max<long long>(count, 1);
}

json pod_for(const json& ds, const std::string& node_name, const std::string& generation) {
  json pod = pod_from_template(ds["spec"]["template"], ds, ds["metadata"].value("name", "") + "-");
  pod["metadata"]["labels"]["pod-template-generation"] = generation;
  add_daemon_tolerations(pod["spec"]);
  // ReplaceDaemonSetPodNodeNameNodeAffinity: the scheduler binds it to this node only.
  pod["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] = {
      {"nodeSelectorTerms",
       json::array({{{"matchFields", json::array({{{"key", "metadata.name"},
                                                   {"operator", "In"},
                                                   {"values", json::array({node_name})}}})}}})}};
  return pod;
}

void reconcile(TickContext& context, const json& ds, const std::vector<model::Node>& nodes,
               const std::vector<json>& pods) {
  const json& meta = ds["metadata"];
  const std::string uid = meta.value("uid", std::string());
  const std::string ns = meta.value("namespace", std::string());
  const std::string generation = meta.value("annotations", json::object())
                                     .value("deprecated.daemonset.template.generation",
                                            std::to_string(meta.value("generation", 1)));
  json template_spec = ds["spec"]["template"].value("spec", json::object());
  add_daemon_tolerations(template_spec);
  const model::PodSpec spec = model::pod_spec_from_json(template_spec);
  std::map<std::string, std::vector<const json*>> by_node;
  for (const json& pod : pods)
    if (controller_uid(pod) == uid && !pod["metadata"].contains("deletionTimestamp"))
      by_node[pod["spec"].value("nodeName", std::string())].push_back(&pod);
  // Unbound pods: find their node from the affinity the controller wrote.
  if (auto unbound = by_node.find(""); unbound != by_node.end()) {
    std::vector<const json*> pending = std::move(unbound->second);
    by_node.erase(unbound);
    for (const json* pod : pending) {
      const json terms = (*pod)["spec"].value("affinity", json::object()).value("nodeAffinity", json::object())
                             .value("requiredDuringSchedulingIgnoredDuringExecution", json::object())
                             .value("nodeSelectorTerms", json::array());
      std::string target;
      if (!terms.empty() && terms[0].contains("matchFields"))
        target = terms[0]["matchFields"][0]["values"][0].get<std::string>();
      by_node[target].push_back(pod);
    }
  }
  auto drop = [&](const json* pod) {
    context.store.remove(k_pods, ns, (*pod)["metadata"].value("name", std::string()));
  };
  auto updated = [&](const json* pod) {
    return (*pod)["metadata"].value("labels", json::object()).value("pod-template-generation", "") == generation;
  };
  long long desired = 0, current = 0, misscheduled = 0, ready = 0, updated_count = 0;
  std::vector<const json*> old_pods;
  long long unavailable = 0;
  for (const model::Node& node : nodes) {
    const Placement place = placement(spec, node);
    std::vector<const json*>& here = by_node[node.name()];
    if (!place.should_run) {
      if (!here.empty()) ++misscheduled;
      if (!place.should_continue) for (const json* pod : here) drop(pod);
      continue;
    }
    ++desired;
    if (here.empty()) {
      context.store.create(k_pods, pod_for(ds, node.name(), generation), "daemon-set-controller");
      ++unavailable;
      continue;
    }
    for (std::size_t i = 1; i < here.size(); ++i) drop(here[i]); // one per node
    const json* pod = here.front();
    ++current;
    if (pod_ready(*pod)) ++ready; else ++unavailable;
    if (updated(pod)) ++updated_count; else old_pods.push_back(pod);
  }
  for (auto& [node_name, here] : by_node) // pods of nodes that are gone
    if (std::none_of(nodes.begin(), nodes.end(), [&](const model::Node& n) { return n.name() == node_name; }))
      for (const json* pod : here) drop(pod);
  const std::string strategy =
      ds["spec"].value("updateStrategy", json::object()).value("type", std::string("RollingUpdate"));
  if (strategy == "RollingUpdate") {
    // Old pods that are not available go first; then as many as maxUnavailable allows.
    std::stable_partition(old_pods.begin(), old_pods.end(), [](const json* p) { return !pod_ready(*p); });
    long long budget = max_unavailable(ds, desired) - unavailable;
    for (const json* pod : old_pods) {
      if (pod_ready(*pod)) {
        if (budget <= 0) break;
        --budget;
      }
      drop(pod);
    }
  }
  json status = {{"currentNumberScheduled", current},
                 {"desiredNumberScheduled", desired},
                 {"numberMisscheduled", misscheduled},
                 {"numberReady", ready},
                 {"observedGeneration", meta.value("generation", 1)}};
  // omitempty fields appear only when non-zero, as the API serialises them.
  if (updated_count > 0) status["updatedNumberScheduled"] = updated_count;
  if (ready > 0) status["numberAvailable"] = ready;
  if (desired - ready > 0) status["numberUnavailable"] = desired - ready;
  if (ds.value("status", json::object()) != status) {
    json written = ds;
    written["status"] = status;
    context.store.update(k_daemonsets, written, "daemon-set-controller", true);
  }
}

} // namespace

void run_daemonsets(TickContext& context) {
  std::vector<model::Node> nodes;
  for (const json& node : context.store.list(k_nodes)) nodes.push_back(model::node_from_json(node));
  const std::vector<json> pods = context.store.list(k_pods);
  for (const json& ds : context.store.list(k_daemonsets))
    if (!ds["metadata"].contains("deletionTimestamp")) reconcile(context, ds, nodes, pods);
}

} // namespace fakekube::sim
