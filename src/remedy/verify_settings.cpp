// SPDX-License-Identifier: Apache-2.0
#include <gpuslice/remedy/verify_settings.hpp>

#include <algorithm>

#include <fmt/format.h>

#include <gpuslice/error.hpp>
#include <gpuslice/model/addons.hpp>
#include <gpuslice/model/gpu.hpp>
#include <gpuslice/timeslicing.hpp>

namespace gpuslice::remedy {

namespace {

// Replicas and advertised resource of one config text: nvidia.com/gpu when it is shared, else the
// first shared resource.
void read_config_text(const std::string& text, AppliedSettings& out) {
  const diagnose::ConfigCheck check = diagnose::check_time_slicing_config(text);
  if (!check.usable()) return;
  const std::vector<diagnose::SharedResource>& resources = check.config.resources;
  if (resources.empty()) return;
  const auto gpu = std::find_if(resources.begin(), resources.end(),
                                [](const diagnose::SharedResource& r) { return r.name == model::k_gpu_resource; });
  const diagnose::SharedResource& chosen = gpu != resources.end() ? *gpu : resources.front();
  out.replicas = chosen.replicas;
  // renameByDefault: the plugin advertises the shares as <name>.shared.
  out.resource = check.config.rename_by_default ? chosen.name + ".shared" : chosen.name;
}

// The first usable config among a ConfigMap object's data values, unless `out` has replicas already.
void read_config_data(const nlohmann::json& configmap, AppliedSettings& out) {
  if (!configmap.is_object() || !configmap.contains("data") || !configmap["data"].is_object()) return;
  for (const auto& [key, text] : configmap["data"].items())
    if (text.is_string() && !out.replicas) read_config_text(text.get<std::string>(), out);
}

std::vector<model::Taint> taints_of(const nlohmann::json& node) {
  std::vector<model::Taint> out;
  if (!node.is_object() || !node.contains("spec") || !node["spec"].contains("taints")) return out;
  for (const nlohmann::json& taint : node["spec"]["taints"]) out.push_back(model::taint_from_json(taint));
  return out;
}

bool has_taint(const std::vector<model::Taint>& taints, const model::Taint& taint) {
  return std::any_of(taints.begin(), taints.end(), [&](const model::Taint& t) {
    return t.key == taint.key && t.value == taint.value && t.effect == taint.effect;
  });
}

std::string env_of(const model::PodSpec& spec, std::string_view name) {
  for (const model::Container& c : spec.containers) {
    for (const model::EnvVar& e : c.env) {
      if (e.name == name) return e.value;
    }
  }
  return {};
}

// The ConfigMap name and default key the plugin DaemonSet reads; "" when none.
std::pair<std::string, std::string> wired_config(const Snapshot& snapshot, const model::DaemonSet& ds) {
  if (model::is_operator_managed(ds.meta)) {
    for (const model::ClusterPolicy& policy : snapshot.cluster_policies) {
      if (!policy.config_name.empty()) return {policy.config_name, policy.config_default};
    }
    return {};
  }
  if (!model::reads_config_file(ds)) return {};
  for (const model::ConfigMap& cm : snapshot.configmaps) {
    if (cm.meta.ns == ds.meta.ns && model::mounts_plugin_config(ds, cm))
      return {cm.meta.name, env_of(ds.pod_template.spec, "DEFAULT_CONFIG")};
  }
  return {};
}

} // namespace

bool is_apply_journal_for(const nlohmann::json& header, const SnapshotMeta& cluster) {
  return header.value("command", "") == "apply" && header.value("context", "") == cluster.context &&
         header.value("server", "") == cluster.server;
}

nlohmann::json plan_settings(const Plan& plan) {
  nlohmann::json out = nlohmann::json::object();
  AppliedSettings config;
  std::vector<std::string> nodes;
  bool targets_nodes = false;
  nlohmann::json taint;
  for (const Step& step : plan.steps) {
    for (const Change& change : step.changes) {
      if (change.target.kind == "ConfigMap" && step.name == "config apply") read_config_data(change.after, config);
      if (change.target.kind != "Node") continue;
      if (std::find(nodes.begin(), nodes.end(), change.target.name) == nodes.end()) nodes.push_back(change.target.name);
      if (change.edit && change.edit->kind == EditKind::add_taint && taint.is_null()) taint = change.edit->value;
      targets_nodes = true;
    }
  }
  if (config.replicas) {
    out["replicas"] = *config.replicas;
    out["resource"] = config.resource;
  }
  if (targets_nodes) {
    std::sort(nodes.begin(), nodes.end());
    out["nodes"] = nodes;
    out["taint"] = taint.is_object() ? nlohmann::json{{"key", taint.value("key", "")},
                                                      {"value", taint.value("value", "")},
                                                      {"effect", taint.value("effect", "")}}
                                     : nlohmann::json();
  }
  return out;
}

namespace {

// The header's "settings" (plan_settings), when the journal has them.
bool settings_from_header(const nlohmann::json& header, AppliedSettings& out) {
  if (!header.is_object() || !header.contains("settings") || !header["settings"].is_object()) return false;
  const nlohmann::json& settings = header["settings"];
  if (settings.contains("replicas") && settings["replicas"].is_number_integer())
    out.replicas = settings["replicas"].get<int>();
  if (settings.contains("resource") && settings["resource"].is_string())
    out.resource = settings["resource"].get<std::string>();
  if (settings.contains("nodes") && settings["nodes"].is_array()) {
    for (const nlohmann::json& node : settings["nodes"])
      if (node.is_string()) out.nodes.push_back(node.get<std::string>());
  }
  if (settings.contains("taint")) {
    const nlohmann::json& taint = settings["taint"];
    out.taint_known = taint.is_null() || taint.is_object();
    if (taint.is_object() && !taint.value("key", "").empty())
      out.taint = model::Taint{taint.value("key", ""), taint.value("value", ""), taint.value("effect", ""), ""};
  }
  return true;
}

} // namespace

AppliedSettings settings_from_journal(const JournalFile& journal, const std::string& path) {
  AppliedSettings out;
  out.where = "journal " + path;
  if (journal.header.is_object()) out.changed_at = journal.header.value("startedAt", "");
  if (settings_from_header(journal.header, out)) return out;
  for (const JournalEntry& entry : journal.entries) {
    const nlohmann::json& written = entry.done ? entry.result : entry.intended;
    if (entry.target.kind == "ConfigMap") read_config_data(written, out);
    if (entry.target.kind != "Node" || !written.is_object()) continue;
    if (std::find(out.nodes.begin(), out.nodes.end(), entry.target.name) == out.nodes.end())
      out.nodes.push_back(entry.target.name);
    out.taint_known = true;
    const std::vector<model::Taint> before = taints_of(entry.prior);
    for (const model::Taint& taint : taints_of(written)) {
      if (!has_taint(before, taint) && !out.taint) out.taint = model::Taint{taint.key, taint.value, taint.effect, ""};
    }
  }
  return out;
}

std::optional<AppliedSettings> settings_from_config(const Snapshot& snapshot) {
  for (const model::DaemonSet& ds : snapshot.daemonsets) {
    if (model::recognise_gpu_addon(ds) != model::GpuAddon::device_plugin) continue;
    const auto [name, default_key] = wired_config(snapshot, ds);
    if (name.empty()) continue;
    for (const model::ConfigMap& cm : snapshot.configmaps) {
      if (cm.meta.ns != ds.meta.ns || cm.meta.name != name) continue;
      std::string key = default_key;
      if (key.empty() && cm.data.contains("default")) key = "default";
      if (key.empty() && cm.data.size() == 1) key = cm.data.begin()->first;
      const auto text = cm.data.find(key);
      if (text == cm.data.end()) continue;
      AppliedSettings out;
      out.where = fmt::format("configmap {}/{} key {}", cm.meta.ns, cm.meta.name, key);
      read_config_text(std::string(text->second), out);
      if (out.replicas) return out;
    }
  }
  return std::nullopt;
}

VerifySettings choose_verify_settings(const SettingFlags& flags, const std::optional<AppliedSettings>& journal,
                                      const std::optional<AppliedSettings>& config, const std::string& looked) {
  VerifySettings out;
  if (flags.replicas) {
    out.replicas = *flags.replicas;
    out.replicas_from = "flag";
  } else if (journal && journal->replicas) {
    out.replicas = *journal->replicas;
    out.replicas_from = journal->where;
  } else if (config && config->replicas) {
    out.replicas = *config->replicas;
    out.replicas_from = config->where;
  } else {
    throw UsageError(fmt::format("--replicas is required: no replicas found in {}", looked));
  }
  if (flags.taint) {
    out.taint = flags.taint;
    out.taint_from = "flag";
  } else if (journal && journal->taint_known) {
    out.taint = journal->taint;
    out.taint_from = journal->where;
  } else {
    out.taint_from = "none";
  }
  for (const std::optional<AppliedSettings>* source : {&journal, &config}) {
    if (out.resource.empty() && *source && !(*source)->resource.empty()) {
      out.resource = (*source)->resource;
      out.resource_from = (*source)->where;
    }
  }
  if (journal) out.changed_at = journal->changed_at;
  if (!flags.nodes.empty()) {
    out.nodes = flags.nodes;
    out.nodes_from = "flag";
  } else if (journal && !journal->nodes.empty()) {
    out.nodes = journal->nodes;
    out.nodes_from = journal->where;
  }
  return out;
}

} // namespace gpuslice::remedy
