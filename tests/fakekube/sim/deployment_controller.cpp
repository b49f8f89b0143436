// SPDX-License-Identifier: Apache-2.0
// The Deployment controller: the ReplicaSet whose template is the Deployment's (a new one,
// with a pod-template-hash and the next revision, when the template changed), scaled by the
// RollingUpdate (maxSurge/maxUnavailable) or Recreate strategy; status and the Available /
// Progressing conditions as `kubectl rollout status` reads them (reference/kubeclient.md §5).
#include <algorithm>
#include <cstdlib>
#include <cstdint>

#include "../object_meta.hpp"
#include "memory.hpp"
#include "pods.hpp"

namespace fakekube::sim {
namespace {

using nlohmann::json;

json without_hash(json pod_template) {
  if (pod_template.contains("metadata") && pod_template["metadata"].contains("labels"))
    pod_template["metadata"]["labels"].erase("pod-template-hash");
  return pod_template;
}

// A pod-template-hash: FNV-1a of the template, in the API's vowel-free alphabet.
std::string template_hash(const json& pod_template) {
  std::uint32_t hash = 2166136261u;
  for (unsigned char c : pod_template.dump()) hash = (hash ^ c) * 16777619u;
  static const char k_alphabet[] = "bcdfghjklmnpqrstvwxz2456789";
  std::string out;
  std::uint64_t value = hash;
  for (int i = 0; i < 10; ++i) {
    out.push_back(k_alphabet[value % 27]);
    value = value / 27 + (static_cast<std::uint64_t>(hash) << (i % 5));
  }
  return out;
}

// An int-or-percent of replicas; percentages round up for surge, down for unavailable.
long long resolve(const json& value, long long replicas, bool round_up, long long fallback_percent) {
  std::string text = value.is_string() ? value.get<std::string>() : "";
  if (value.is_number_integer()) return value.get<long long>();
  long long percent = text.empty() ? fallback_percent : std::atoll(text.c_str());
  if (!text.empty() && !text.ends_with("%")) return percent;
  return round_up ? (replicas * percent + 99) / 100 : replicas * percent / 100;
}

long long revision_of(const json& object) {
  return std::atoll(object["metadata"].value("annotations", json::object())
                        .value("deployment.kubernetes.io/revision", std::string("0")).c_str());
}

long long replicas_of(const json& rs) { return rs["spec"].value("replicas", 1LL); }
long long available_of(const json& rs) { return rs.value("status", json::object()).value("availableReplicas", 0LL); }

void scale(TickContext& context, json rs, long long replicas, long long desired, long long surge) {
  if (replicas_of(rs) == replicas) return;
  rs["spec"]["replicas"] = replicas;
  rs["metadata"]["annotations"]["deployment.kubernetes.io/desired-replicas"] = std::to_string(desired);
  rs["metadata"]["annotations"]["deployment.kubernetes.io/max-replicas"] = std::to_string(desired + surge);
  context.store.update(k_replicasets, rs, "deployment-controller");
}

json create_replicaset(TickContext& context, json& deployment, long long max_revision, long long replicas,
                       long long surge) {
  const json& meta = deployment["metadata"];
  json pod_template = deployment["spec"]["template"];
  const std::string hash = template_hash(pod_template);
  pod_template["metadata"]["labels"]["pod-template-hash"] = hash;
  json selector = deployment["spec"].value("selector", json::object());
  selector["matchLabels"]["pod-template-hash"] = hash;
  const long long desired = deployment["spec"].value("replicas", 1LL);
  const std::string revision = std::to_string(max_revision + 1);
  json rs = {{"apiVersion", "apps/v1"},
             {"kind", "ReplicaSet"},
             {"metadata",
              {{"name", meta.value("name", "") + "-" + hash},
               {"namespace", meta.value("namespace", "")},
               {"labels", pod_template["metadata"]["labels"]},
               {"annotations",
                {{"deployment.kubernetes.io/desired-replicas", std::to_string(desired)},
                 {"deployment.kubernetes.io/max-replicas", std::to_string(desired + surge)},
                 {"deployment.kubernetes.io/revision", revision}}},
               {"ownerReferences",
                json::array({{{"apiVersion", "apps/v1"}, {"kind", "Deployment"},
                              {"name", meta.value("name", "")}, {"uid", meta.value("uid", "")},
                              {"controller", true}, {"blockOwnerDeletion", true}}})}}},
             {"spec", {{"replicas", replicas}, {"selector", selector}, {"template", pod_template}}}};
  deployment["metadata"]["annotations"]["deployment.kubernetes.io/revision"] = revision;
  context.store.update(k_deployments, deployment, "deployment-controller");
  std::optional<json> stored = context.store.create(k_replicasets, rs, "deployment-controller");
  return stored ? *stored : json();
}

void write_status(TickContext& context, const json& deployment, const json& new_rs,
                  const std::vector<json>& olds, long long desired, long long max_unavailable, bool paused) {
  long long replicas = 0, ready = 0, available = 0, total_spec = 0;
  std::vector<json> all = olds;
  if (!new_rs.is_null()) all.push_back(new_rs);
  for (const json& rs : all) {
    const json status = rs.value("status", json::object());
    replicas += status.value("replicas", 0LL);
    ready += status.value("readyReplicas", 0LL);
    available += status.value("availableReplicas", 0LL);
    total_spec += replicas_of(rs);
  }
  const long long updated = new_rs.is_null() ? 0 : new_rs.value("status", json::object()).value("replicas", 0LL);
  json status = deployment.value("status", json::object());
  status["observedGeneration"] = deployment["metadata"].value("generation", 1);
  // All omitempty: zero counts are left out.
  auto put = [&](const char* key, long long value) {
    if (value > 0) status[key] = value; else status.erase(key);
  };
  put("replicas", replicas);
  put("updatedReplicas", updated);
  put("readyReplicas", ready);
  put("availableReplicas", available);
  put("unavailableReplicas", std::max(0LL, total_spec - available));
  const std::string now = timestamp_now();
  json deployment_copy = deployment;
  deployment_copy["status"] = status;
  const bool available_ok = available >= desired - max_unavailable;
  auto condition = [&](json entry) {
    const json* old = find_condition(deployment_copy, entry.value("type", std::string()));
    const bool same = old != nullptr && old->value("status", "") == entry.value("status", "") &&
                      old->value("reason", "") == entry.value("reason", "");
    entry["lastUpdateTime"] = same ? old->value("lastUpdateTime", json(now)) : json(now);
    set_condition(deployment_copy, entry, now);
  };
  condition({{"type", "Available"},
             {"status", available_ok ? "True" : "False"},
             {"reason", available_ok ? "MinimumReplicasAvailable" : "MinimumReplicasUnavailable"},
             {"message", available_ok ? "Deployment has minimum availability."
                                      : "Deployment does not have minimum availability."}});
  const std::string rs_name = new_rs.is_null() ? "" : new_rs["metadata"].value("name", std::string());
  const bool complete = updated == desired && replicas == desired && available >= desired;
  if (paused)
    condition({{"type", "Progressing"}, {"status", "Unknown"}, {"reason", "DeploymentPaused"},
               {"message", "Deployment is paused"}});
  else
    condition({{"type", "Progressing"},
               {"status", "True"},
               {"reason", complete ? "NewReplicaSetAvailable" : "ReplicaSetUpdated"},
               {"message", "ReplicaSet \"" + rs_name + (complete ? "\" has successfully progressed."
                                                                 : "\" is progressing.")}});
  if (deployment_copy["status"] != deployment.value("status", json::object()))
    context.store.update(k_deployments, deployment_copy, "deployment-controller", true);
}

void reconcile(TickContext& context, json deployment, const std::vector<json>& replicasets) {
  const std::string uid = deployment["metadata"].value("uid", std::string());
  const json spec = deployment["spec"];
  const long long desired = spec.value("replicas", 1LL);
  const json strategy = spec.value("strategy", json::object());
  const bool recreate = strategy.value("type", std::string("RollingUpdate")) == "Recreate";
  const json rolling = strategy.value("rollingUpdate", json::object());
  const long long surge = recreate ? 0 : resolve(rolling.value("maxSurge", json()), desired, true, 25);
  long long max_unavailable = recreate ? desired : resolve(rolling.value("maxUnavailable", json()), desired, false, 25);
  if (!recreate && surge == 0 && max_unavailable == 0) max_unavailable = 1;
  json new_rs;
  std::vector<json> olds;
  long long max_revision = 0;
  const json wanted = without_hash(spec.value("template", json::object()));
  for (const json& rs : replicasets) {
    if (controller_uid(rs) != uid) continue;
    max_revision = std::max(max_revision, revision_of(rs));
    if (new_rs.is_null() && without_hash(rs["spec"].value("template", json::object())) == wanted)
      new_rs = rs;
    else
      olds.push_back(rs);
  }
  // Paused: no new ReplicaSet and no scaling, but the status (and observedGeneration) is
  // still written, with Progressing Unknown / DeploymentPaused.
  if (spec.value("paused", false)) {
    write_status(context, deployment, new_rs, olds, desired, max_unavailable, true);
    return;
  }
  long long old_total = 0, old_available = 0;
  for (const json& rs : olds) {
    old_total += replicas_of(rs);
    old_available += available_of(rs);
  }
  if (new_rs.is_null()) {
    const long long start = recreate ? (old_total == 0 ? desired : 0)
                                     : std::max(0LL, std::min(desired, desired + surge - old_total));
    new_rs = create_replicaset(context, deployment, max_revision, start, surge);
    if (new_rs.is_null()) return;
    std::optional<json> fresh = context.store.get(k_deployments, deployment["metadata"].value("namespace", ""),
                                                  deployment["metadata"].value("name", ""));
    if (fresh) deployment = *fresh;
  } else if (revision_of(deployment) != revision_of(new_rs)) {
    deployment["metadata"]["annotations"]["deployment.kubernetes.io/revision"] = std::to_string(revision_of(new_rs));
    context.store.update(k_deployments, deployment, "deployment-controller");
    if (std::optional<json> fresh = context.store.get(k_deployments, deployment["metadata"].value("namespace", ""),
                                                      deployment["metadata"].value("name", "")))
      deployment = *fresh;
  }
  if (recreate) {
    for (const json& rs : olds) scale(context, rs, 0, desired, surge);
    if (old_total == 0 && new_rs.value("status", json::object()).value("replicas", 0LL) >= 0)
      scale(context, new_rs, desired, desired, surge);
  } else {
    const long long new_replicas = replicas_of(new_rs);
    if (olds.empty() || old_total == 0) {
      scale(context, new_rs, desired, desired, surge);
    } else {
      if (new_replicas < desired) {
        const long long room = desired + surge - (old_total + new_replicas);
        if (room > 0) scale(context, new_rs, std::min(desired, new_replicas + room), desired, surge);
      }
      // Scale old ReplicaSets down: their unavailable pods first, then as availability allows.
      long long allowed = std::max(0LL, old_available + available_of(new_rs) - (desired - max_unavailable));
      for (const json& rs : olds) {
        const long long unhealthy = replicas_of(rs) - std::min(replicas_of(rs), available_of(rs));
        const long long down = std::min(replicas_of(rs), unhealthy + allowed);
        allowed -= std::max(0LL, down - unhealthy);
        if (down > 0) scale(context, rs, replicas_of(rs) - down, desired, surge);
      }
    }
  }
  write_status(context, deployment, new_rs, olds, desired, max_unavailable, false);
}

} // namespace

void run_deployments(TickContext& context) {
  const std::vector<json> replicasets = context.store.list(k_replicasets);
  for (const json& deployment : context.store.list(k_deployments))
    if (!deployment["metadata"].contains("deletionTimestamp")) reconcile(context, deployment, replicasets);
}

} // namespace fakekube::sim
