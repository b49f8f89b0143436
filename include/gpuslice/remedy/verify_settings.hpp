// SPDX-License-Identifier: Apache-2.0
// What `verify` checks against when flags do not say: the newest apply journal of this cluster
// and the time-slicing config the device plugin is wired to. Pure: the caller reads the files.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <gpuslice/model/taints.hpp>
#include <gpuslice/remedy/execute.hpp>
#include <gpuslice/remedy/plan.hpp>
#include <gpuslice/snapshot.hpp>

namespace gpuslice::remedy {

// What one source says about the intended state; unset fields it does not know.
struct AppliedSettings {
  std::string where;                 // "journal <path>", "configmap <ns>/<name> key <key>"
  std::optional<int> replicas;
  std::string resource;              // e.g. "nvidia.com/gpu"; "" unknown
  bool taint_known = false;          // the source says whether a taint was put on
  std::optional<model::Taint> taint; // meaningful when taint_known
  std::vector<std::string> nodes;    // nodes the source changed; empty unknown
  std::string changed_at;            // when (the journal's startedAt); "" unknown
};

// The journal header belongs to an `apply` run against this context and server.
bool is_apply_journal_for(const nlohmann::json& header, const SnapshotMeta& cluster);

// What a plan is for, as the journal header's "settings": {"replicas","resource"} from its
// time-slicing ConfigMap, {"nodes"} every Node it targets (changed or already right, sorted),
// {"taint"} the taint it puts on them (null when it targets nodes without one). A field is
// absent when the plan does not say (e.g. `nodes label` alone has no ConfigMap).
nlohmann::json plan_settings(const Plan& plan);

// From an apply journal: the header's "settings" (plan_settings), else, for journals written
// before it, replicas and resource from the ConfigMap it wrote, the taint it added to nodes
// (none when it touched nodes without adding one), the nodes it changed.
AppliedSettings settings_from_journal(const JournalFile& journal, const std::string& path);

// From the cluster: the ConfigMap a device plugin DaemonSet mounts (or the ClusterPolicy names)
// and the key it selects (DEFAULT_CONFIG, else "default", else the only key). nullopt when no
// plugin is wired to a usable time-slicing config.
std::optional<AppliedSettings> settings_from_config(const Snapshot& snapshot);

// The settings verify runs with, and where each came from ("flag", the source's where, "none").
struct VerifySettings {
  int replicas = 0;
  std::optional<model::Taint> taint;
  std::string resource;
  std::vector<std::string> nodes;
  std::string changed_at; // the journal's startedAt, "" without one
  std::string replicas_from;
  std::string taint_from;
  std::string resource_from;
  std::string nodes_from;
};

struct SettingFlags {
  std::optional<int> replicas;
  std::optional<model::Taint> taint;
  std::vector<std::string> nodes; // --node; empty: not given
};

// Precedence per setting: flag > journal > config (the config knows no taint or nodes). Throws
// UsageError when nothing gives the replicas, naming where it looked (`looked` lists those
// places, e.g. the journal directory).
VerifySettings choose_verify_settings(const SettingFlags& flags, const std::optional<AppliedSettings>& journal,
                                      const std::optional<AppliedSettings>& config, const std::string& looked);

} // namespace gpuslice::remedy
