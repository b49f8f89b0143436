// SPDX-License-Identifier: Apache-2.0
// The ReplicaSet controller: as many pods as spec.replicas (surplus removed unscheduled
// first, then not ready, then newest), and status.
#include <algorithm>
#include <tuple>

#include "memory.hpp"
#include "pods.hpp"

namespace fakekube::sim {
namespace {

using nlohmann::json;

// Lower deletes first: unscheduled, not ready, then newer.
std::tuple<int, int, std::string> deletion_rank(const json* pod) {
  const bool bound = !(*pod)["spec"].value("nodeName", std::string()).empty();
  const std::string created = (*pod)["metadata"].value("creationTimestamp", std::string());
  std::string inverted = created;
  for (char& c : inverted) c = static_cast<char>(255 - static_cast<unsigned char>(c));
  return {bound ? 1 : 0, pod_ready(*pod) ? 1 : 0, inverted};
}

void reconcile(TickContext& context, const json& rs, const std::vector<json>& pods) {
  const json& meta = rs["metadata"];
  const std::string uid = meta.value("uid", std::string());
  std::vector<const json*> owned;
  for (const json& pod : pods)
    if (controller_uid(pod) == uid && !pod_finished(pod) && !pod["metadata"].contains("deletionTimestamp"))
      owned.push_back(&pod);
  const long long want = rs["spec"].value("replicas", 1LL);
  long long count = static_cast<long long>(owned.size());
  for (; count < want; ++count)
    context.store.create(k_pods, pod_from_template(rs["spec"]["template"], rs, meta.value("name", "") + "-"),
                         "replicaset-controller");
  if (count > want) {
    std::sort(owned.begin(), owned.end(), [](const json* a, const json* b) {
      return deletion_rank(a) < deletion_rank(b);
    });
    for (std::size_t i = 0; i < static_cast<std::size_t>(count - want); ++i)
      context.store.remove(k_pods, meta.value("namespace", ""), (*owned[i])["metadata"].value("name", ""));
    owned.erase(owned.begin(), owned.begin() + (count - want));
    count = want;
  }
  long long ready = 0;
  for (const json* pod : owned) ready += pod_ready(*pod) ? 1 : 0;
  // replicas is always serialised; the rest are omitempty.
  json status = {{"replicas", static_cast<long long>(owned.size())},
                 {"observedGeneration", meta.value("generation", 1)}};
  if (!owned.empty()) status["fullyLabeledReplicas"] = static_cast<long long>(owned.size());
  if (ready > 0) {
    status["readyReplicas"] = ready;
    status["availableReplicas"] = ready;
  }
  if (rs.value("status", json::object()) != status) {
    json written = rs;
    written["status"] = status;
    context.store.update(k_replicasets, written, "replicaset-controller", true);
  }
}

} // namespace

void run_replicasets(TickContext& context) {
  const std::vector<json> pods = context.store.list(k_pods);
  for (const json& rs : context.store.list(k_replicasets))
    if (!rs["metadata"].contains("deletionTimestamp")) reconcile(context, rs, pods);
}

} // namespace fakekube::sim
