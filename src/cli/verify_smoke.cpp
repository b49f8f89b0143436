// SPDX-License-Identifier: Apache-2.0
// The smoke run's I/O. Everything it creates is one Deployment; deleting it with Foreground
// propagation and waiting until it is gone means its ReplicaSet and pods are gone too.
#include "cli/verify_smoke.hpp"

#include <algorithm>
#include <filesystem>
#include <random>
#include <thread>

#include <fmt/format.h>

#include <gpuslice/kube/api_error.hpp>
#include <gpuslice/model/gpu.hpp>
#include <gpuslice/remedy/execute.hpp>

#include "cli/apply_run.hpp"
#include "cli/progress.hpp"

namespace gpuslice::cli {

namespace {

const kube::ResourceRef k_smoke_deployments{"apps", "v1", "deployments", true};
const kube::ResourceRef k_smoke_pods{"", "v1", "pods", true};
constexpr auto k_smoke_poll = std::chrono::milliseconds(1000);
// Pods have a 1 s grace period; a minute covers a slow kubelet without hanging a runbook.
constexpr auto k_smoke_removal_wait = std::chrono::seconds(60);

// Six characters of [a-z0-9]: a Deployment name suffix that two runs will not share.
std::string smoke_run_id() {
  static constexpr char k_alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  std::random_device device;
  std::uniform_int_distribution<std::size_t> pick(0, sizeof(k_alphabet) - 2);
  std::string id;
  for (int i = 0; i < 6; ++i) id += k_alphabet[pick(device)];
  return id;
}

void smoke_preflight(kube::Client& client, const remedy::SmokePlan& plan) {
  const std::vector<remedy::Permission> needed = {{"create", "apps", "deployments", plan.ns},
                                                  {"delete", "apps", "deployments", plan.ns},
                                                  {"list", "apps", "deployments", plan.ns},
                                                  {"get", "apps", "deployments", plan.ns},
                                                  {"list", "", "pods", plan.ns}};
  const std::vector<std::string> denied = remedy::denied_permissions(client, needed);
  if (denied.empty()) return;
  std::string list;
  for (const std::string& permission : denied) list += "\n  " + permission;
  throw RuntimeError(fmt::format("verify --smoke: nothing was created: you lack {} permission(s) the smoke test "
                                 "needs (see packaging/rbac/gpuslice-verify-smoke.yaml):{}",
                                 denied.size(), list));
}

// A smoke Deployment left by a killed run (or one running now) holds GPU slots: this run's
// pods would not all fit, so say which and how to remove it instead of failing obscurely.
void refuse_leftover(kube::Client& client, const remedy::SmokePlan& plan) {
  kube::ListOptions options;
  options.namespace_name = plan.ns;
  options.label_selector = "app.kubernetes.io/name=" + std::string(remedy::k_smoke_app);
  const nlohmann::json items = client.list_items(k_smoke_deployments, options);
  if (items.empty()) return;
  const std::string name = items.front()["metadata"].value("name", "");
  throw RuntimeError(fmt::format("verify --smoke: nothing was created: smoke Deployment {}/{} from another run is "
                                 "still there and holds GPU slots; if no smoke test is running, remove it with "
                                 "'kubectl -n {} delete deployment -l app.kubernetes.io/name={}'",
                                 plan.ns, name, plan.ns, remedy::k_smoke_app));
}

std::vector<model::Pod> smoke_pods(kube::Client& client, const remedy::SmokePlan& plan) {
  kube::ListOptions options;
  options.namespace_name = plan.ns;
  options.label_selector = plan.pod_selector();
  std::vector<model::Pod> pods;
  for (const nlohmann::json& item : client.list_items(k_smoke_pods, options)) pods.push_back(model::pod_from_json(item));
  return pods;
}

// With -n the snapshot holds one namespace's pods, but the slots GPU pods hold on a node are
// held by pods of every namespace: read those node by node, as `kubectl describe node` does.
Snapshot with_every_pod_on_gpu_nodes(kube::Client& client, const Snapshot& snapshot, const GlobalFlags& global) {
  if (global.kube.namespace_name.empty()) return snapshot;
  Snapshot whole = snapshot;
  whole.pods.clear();
  for (const model::Node& node : snapshot.nodes) {
    if (!model::is_gpu_node(node)) continue;
    kube::ListOptions options;
    options.field_selector = "spec.nodeName=" + node.name();
    for (const nlohmann::json& item : client.list_items(k_smoke_pods, options))
      whole.pods.push_back(model::pod_from_json(item));
  }
  return whole;
}

long long running_count(const std::vector<model::Pod>& pods) {
  return std::count_if(pods.begin(), pods.end(), remedy::smoke_pod_running);
}

// Deletes the Deployment and waits until the server no longer has it. Never throws: the
// outcome says what was left.
void remove_smoke(kube::Client& client, const remedy::SmokePlan& plan, remedy::SmokeOutcome& outcome) {
  const kube::ObjectRef ref{k_smoke_deployments, plan.ns, plan.name, ""};
  try {
    kube::DeleteOptions options;
    options.propagation_policy = "Foreground"; // gone only once its pods are gone
    client.remove(ref, options);
    const auto deadline = std::chrono::steady_clock::now() + k_smoke_removal_wait;
    for (;;) {
      try {
        client.get(ref);
      } catch (const kube::ApiError& e) {
        if (e.is_not_found()) return;
        throw;
      }
      if (std::chrono::steady_clock::now() > deadline) {
        outcome.removed = false;
        outcome.removal_error = fmt::format("still deleting after {}s", k_smoke_removal_wait.count());
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
  } catch (const kube::ApiError& e) {
    if (e.is_not_found()) return;
    outcome.removed = false;
    outcome.removal_error = e.what();
  }
}

// Once the Deployment is gone the journal has nothing left to undo: remove it, so that
// `undo --smoke` finds the run that was killed, not the ones that cleaned up.
void settle_smoke_journal(const std::string& path, const remedy::SmokePlan& plan, const remedy::SmokeOutcome& outcome,
                          Env& env) {
  if (outcome.removed) {
    std::error_code ignored;
    std::filesystem::remove(path, ignored);
    return;
  }
  env.err << fmt::format("verify --smoke: could not remove {}/{} ({}): {} undo --smoke --yes (journal {})\n", plan.ns,
                         plan.name, outcome.removal_error, env.program, path);
}

} // namespace

std::vector<remedy::CheckRow> run_smoke(kube::Client& client, const Snapshot& snapshot,
                                        const remedy::SmokeOptions& options, std::chrono::seconds timeout,
                                        const std::string& journal_dir, const GlobalFlags& global, Env& env) {
  remedy::SmokeOptions run = options;
  run.run_id = smoke_run_id();
  const remedy::SmokePlan plan = remedy::plan_smoke(with_every_pod_on_gpu_nodes(client, snapshot, global), run);
  remedy::SmokeOutcome outcome;
  if (plan.pods() == 0) return remedy::judge_smoke(plan, outcome); // nothing to create
  smoke_preflight(client, plan);
  refuse_leftover(client, plan);

  const StopSignals signals; // from here on a signal ends the wait, never the cleanup
  // Journaled like apply's changes, so that after a kill -9 `undo --smoke` removes the Deployment.
  remedy::Journal journal(journal_dir.empty() ? remedy::default_journal_dir() : journal_dir,
                          {{"command", std::string(remedy::k_smoke_journal_command)},
                           {"context", snapshot.meta.context},
                           {"server", snapshot.meta.server},
                           {"startedAt", snapshot.meta.collected_at}});
  const nlohmann::json body = remedy::smoke_deployment(plan, run);
  const int seq = journal.record_before("smoke", remedy::Action::create,
                                        remedy::target_for("Deployment", plan.ns, plan.name), nullptr, body);
  journal.record_done(seq, client.create(k_smoke_deployments, plan.ns, body));
  Progress progress(env, global);
  const auto start = std::chrono::steady_clock::now();
  try {
    for (;;) {
      outcome.pods = smoke_pods(client, plan);
      const auto elapsed = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - start);
      progress.update(fmt::format("{}s: {}", elapsed.count(), remedy::smoke_progress(plan, outcome.pods)));
      if (running_count(outcome.pods) >= plan.pods()) break;
      if (stop_signal_received()) {
        outcome.interrupted = true;
        break;
      }
      if (std::chrono::steady_clock::now() + k_smoke_poll > start + timeout) {
        outcome.timed_out = true;
        break;
      }
      sleep_unless_stopped(k_smoke_poll);
    }
  } catch (const std::exception&) {
    progress.clear();
    remove_smoke(client, plan, outcome);
    settle_smoke_journal(journal.path(), plan, outcome, env);
    throw;
  }
  progress.update("removing the smoke Deployment", true);
  remove_smoke(client, plan, outcome);
  progress.clear();
  settle_smoke_journal(journal.path(), plan, outcome, env);
  return remedy::judge_smoke(plan, outcome);
}

} // namespace gpuslice::cli
