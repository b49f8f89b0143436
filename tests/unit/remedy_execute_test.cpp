// SPDX-License-Identifier: Apache-2.0
// The executor, journal and undo against fakekube over HTTPS, on the EKS incident scenario.
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <gpuslice/collect.hpp>
#include <gpuslice/remedy/execute.hpp>

#include "remedy/object_delta.hpp"
#include "unit/kube_fakekube_support.hpp"

using namespace gpuslice;

namespace {

fakekube::Scenario incident(std::vector<fakekube::User> extra = {}) {
  fakekube::Scenario scenario =
      fakekube::load_scenario(std::string(GPUSLICE_SOURCE_DIR) + "/tests/fixtures/scenarios/eks-gpu-incident.yaml");
  scenario.users.push_back(kube_test::make_user("admin", "admin-token-s3cr3t", "", false, {"system:masters"}));
  for (fakekube::User& user : extra) scenario.users.push_back(std::move(user));
  return scenario;
}

remedy::Plan incident_plan(kube::Client& client) {
  remedy::ApplyOptions options;
  options.config.replicas = 4;
  Snapshot snapshot = collect::collect(client, {});
  remedy::read_config_target(client, snapshot, options.config);
  return remedy::plan_apply(snapshot, options);
}

using kube_test::mutations_in;

const kube::ObjectRef k_gpu_node{{"", "v1", "nodes", false}, "", "ip-10-0-1-17.us-west-2.compute.internal", ""};

// Everything the run may touch, comparable: GPU nodes and the ConfigMap (null when absent).
nlohmann::json touched_state(kube::Client& client) {
  nlohmann::json state;
  for (const nlohmann::json& node : client.list_items({"", "v1", "nodes", false}, {})) {
    state[node["metadata"]["name"].get<std::string>()] = remedy::comparable(node);
  }
  try {
    state["configmap"] = remedy::comparable(
        client.get({{"", "v1", "configmaps", true}, "nvidia-device-plugin", "time-slicing-config", ""}));
  } catch (const kube::ApiError&) {
    state["configmap"] = nullptr;
  }
  return state;
}

// A plan that taints k_gpu_node only.
remedy::Plan taint_one_node_plan(kube::Client& client) {
  remedy::Plan plan;
  plan.steps.push_back(remedy::plan_nodes_taint(collect::collect(client, {}), {"", {k_gpu_node.name}}, {}));
  return plan;
}

// Another writer's taint on k_gpu_node, written while the run is under way.
void taint_as_another_writer(kube::Client& client) {
  nlohmann::json node = client.get(k_gpu_node);
  node["spec"]["taints"] = {{{"key", "dedicated"}, {"value", "ml"}, {"effect", "NoSchedule"}}};
  client.update(k_gpu_node, node);
}

// The other writer's taint and ours, in that order.
void check_both_taints(kube::Client& client) {
  const nlohmann::json taints = client.get(k_gpu_node)["spec"]["taints"];
  REQUIRE(taints.size() == 2);
  CHECK(taints[0]["key"] == "dedicated");
  CHECK(taints[1]["key"] == "nvidia.com/gpu");
}

} // namespace

TEST_CASE("remedy::execute with --dry-run=client reads only") {
  kube_test::Cluster cluster(incident());
  auto client = cluster.admin();
  const remedy::Plan plan = incident_plan(*client);
  cluster.server.clear_request_log();
  remedy::ExecuteOptions options;
  options.dry_run = remedy::DryRun::client;
  const remedy::ExecuteResult result = remedy::execute(plan, *client, options);
  CHECK(mutations_in(cluster.server.request_log()) == 0);
  CHECK(result.mutations == 0);
  REQUIRE(result.outcomes.size() == 5); // the ConfigMap, the plugin DaemonSet and three taints
  CHECK(result.outcomes[0].status == "would-change");
  CHECK(result.outcomes[0].before.is_null());
  CHECK(result.outcomes[1].target.kind == "DaemonSet");
  CHECK(result.outcomes[2].after["spec"]["taints"].size() == 1);
}

TEST_CASE("remedy::execute, a second plan, and undo back to the start") {
  kube_test::Cluster cluster(incident());
  kube_test::TempDir dir;
  auto client = cluster.admin();
  const nlohmann::json start = touched_state(*client);

  remedy::Journal journal(dir.path.string(), {{"command", "apply"}});
  remedy::ExecuteOptions options;
  options.journal = &journal;
  const remedy::ExecuteResult result = remedy::execute(incident_plan(*client), *client, options);
  REQUIRE(result.complete());
  CHECK(result.mutations == 5);
  struct stat info {};
  REQUIRE(::stat(journal.path().c_str(), &info) == 0);
  CHECK((info.st_mode & 0777) == 0600);
  CHECK(remedy::newest_journal(dir.path.string()) == journal.path());

  const nlohmann::json node = client->get(k_gpu_node);
  CHECK(node["spec"]["taints"].size() == 1);

  // Idempotent: the next plan changes nothing and executing it sends no mutation.
  const remedy::Plan again = incident_plan(*client);
  CHECK_FALSE(again.has_changes());
  cluster.server.clear_request_log();
  remedy::Journal unused(dir.path.string(), {{"command", "apply"}});
  options.journal = &unused;
  CHECK(remedy::execute(again, *client, options).mutations == 0);
  CHECK(mutations_in(cluster.server.request_log()) == 0);

  const remedy::JournalFile file = remedy::read_journal(journal.path());
  CHECK(file.entries.size() == 5);
  CHECK(file.entries[0].done);
  const remedy::UndoResult undone = remedy::undo(file, *client, {});
  CHECK_FALSE(undone.refused);
  CHECK(undone.failure.empty());
  CHECK(touched_state(*client) == start);

  // Undo again: everything is already restored, nothing is sent.
  cluster.server.clear_request_log();
  const remedy::UndoResult twice = remedy::undo(file, *client, {});
  for (const remedy::UndoOutcome& outcome : twice.outcomes) CHECK(outcome.status == "already-restored");
  CHECK(mutations_in(cluster.server.request_log()) == 0);
}

TEST_CASE("remedy::execute keeps a concurrent writer's taint and retries on 409") {
  kube_test::Cluster cluster(incident());
  kube_test::TempDir dir;
  auto client = cluster.admin();
  const remedy::Plan plan = taint_one_node_plan(*client);

  // Another writer taints the node after we planned, and the server answers our first write 409.
  taint_as_another_writer(*client);
  cluster.server.api().faults().conflict_on_first_update = true;

  remedy::Journal journal(dir.path.string(), {{"command", "nodes taint"}});
  remedy::ExecuteOptions options;
  options.journal = &journal;
  const remedy::ExecuteResult result = remedy::execute(plan, *client, options);
  REQUIRE(result.complete());
  CHECK(result.outcomes.at(0).conflicts == 1);
  check_both_taints(*client);

  // Undo removes only our taint.
  cluster.server.api().faults().conflict_on_first_update = false;
  CHECK(remedy::undo(remedy::read_journal(journal.path()), *client, {}).failure.empty());
  const nlohmann::json after_undo = client->get(k_gpu_node)["spec"]["taints"];
  REQUIRE(after_undo.size() == 1);
  CHECK(after_undo[0]["key"] == "dedicated");
}

TEST_CASE("remedy::execute reads a step's patch targets side by side before it writes them") {
  kube_test::Cluster cluster(incident());
  kube_test::TempDir dir;
  auto client = cluster.admin();
  remedy::Plan plan;
  plan.steps.push_back(remedy::plan_nodes_taint(collect::collect(*client, {}), {}, {}));
  const std::size_t nodes = plan.steps[0].changes.size();
  REQUIRE(nodes >= 2);
  cluster.server.clear_request_log();
  remedy::Journal journal(dir.path.string(), {{"command", "nodes taint"}});
  remedy::ExecuteOptions options;
  options.journal = &journal;
  const remedy::ExecuteResult result = remedy::execute(plan, *client, options);
  REQUIRE(result.complete());
  CHECK(result.mutations == static_cast<int>(nodes));
  const std::vector<fakekube::LoggedRequest> log = cluster.server.request_log();
  REQUIRE(log.size() == 2 * nodes);
  for (std::size_t i = 0; i < log.size(); ++i) {
    CAPTURE(i);
    CHECK(log[i].method == (i < nodes ? "GET" : "PUT"));
  }
  for (const remedy::ChangeOutcome& outcome : result.outcomes) CHECK(outcome.conflicts == 0);
}

TEST_CASE("remedy::execute: an object deleted and created again in one step is read after the delete") {
  kube_test::Cluster cluster(incident());
  kube_test::TempDir dir;
  auto client = cluster.admin();
  // As when a plugin is replaced in place: delete it, then create ours under the same name
  // (an edit that keeps it when it is already there, on a re-run).
  const remedy::TargetObject target = remedy::target_for("ConfigMap", "kube-system", "cluster-autoscaler-status");
  remedy::Step step;
  step.name = "replace";
  remedy::Change remove;
  remove.action = remedy::Action::remove;
  remove.target = target;
  remove.changed = true;
  remedy::Change create;
  create.action = remedy::Action::create;
  create.target = target;
  create.object = {{"apiVersion", "v1"},
                   {"kind", "ConfigMap"},
                   {"metadata", {{"name", target.name}, {"namespace", target.ns}}},
                   {"data", {{"status", "ours"}}}};
  create.edit = remedy::Edit{remedy::EditKind::merge, nlohmann::json::object()};
  create.changed = true;
  step.changes = {remove, create};
  remedy::Plan plan;
  plan.steps.push_back(step);
  remedy::Journal journal(dir.path.string(), {{"command", "replace"}});
  remedy::ExecuteOptions options;
  options.journal = &journal;
  const remedy::ExecuteResult result = remedy::execute(plan, *client, options);
  REQUIRE(result.complete());
  REQUIRE(result.outcomes.size() == 2);
  CHECK(result.outcomes[0].status == "deleted");
  CHECK(result.outcomes[1].status == "created");
  CHECK(client->get(target.ref())["data"]["status"] == "ours");
}

TEST_CASE("remedy::execute: a node changed after it was read ahead is refused, read again and patched") {
  kube_test::Cluster cluster(incident());
  kube_test::TempDir dir;
  auto client = cluster.admin();
  const remedy::Plan plan = taint_one_node_plan(*client);
  remedy::Journal journal(dir.path.string(), {{"command", "nodes taint"}});
  remedy::ExecuteOptions options;
  options.journal = &journal;
  // Asked just before the write, after the read ahead: another writer taints the node then.
  bool written = false;
  options.stop_requested = [&] {
    if (!written) {
      written = true;
      taint_as_another_writer(*client);
    }
    return false;
  };
  const remedy::ExecuteResult result = remedy::execute(plan, *client, options);
  REQUIRE(result.complete());
  REQUIRE(written);
  CHECK(result.outcomes.at(0).conflicts == 1);
  check_both_taints(*client);
}

namespace {

// Another writer's label and taint, as a concurrent writer adds them.
void add_writer_marks(kube::Client& client) {
  nlohmann::json node = client.get(k_gpu_node);
  node["metadata"]["labels"]["writer"] = "yes";
  node["spec"]["taints"].push_back({{"key", "writer"}, {"value", "yes"}, {"effect", "PreferNoSchedule"}});
  client.update(k_gpu_node, node);
}

// After undo: the writer's marks, and the node's own labels and taints as before the run.
void check_writer_marks_only(kube::Client& client, const nlohmann::json& before) {
  const nlohmann::json node = client.get(k_gpu_node);
  CHECK(node["metadata"]["labels"].value("writer", "") == "yes");
  CHECK(node["metadata"]["labels"].contains("nvidia.com/gpu.present") ==
        before["metadata"]["labels"].contains("nvidia.com/gpu.present"));
  int writer = 0, ours = 0;
  for (const nlohmann::json& taint : node["spec"].value("taints", nlohmann::json::array())) {
    writer += taint.value("key", "") == "writer";
    ours += taint.value("key", "") == "nvidia.com/gpu";
  }
  CHECK(writer == 1);
  CHECK(ours == 0);
}

} // namespace

TEST_CASE("remedy::undo keeps what another writer changed between two of the run's writes to an object") {
  kube_test::Cluster cluster(incident());
  kube_test::TempDir dir;
  auto client = cluster.admin();
  const remedy::NodeSelection one{"", {k_gpu_node.name}};
  remedy::Journal journal(dir.path.string(), {{"command", "apply"}});
  remedy::ExecuteOptions options;
  options.journal = &journal;
  nlohmann::json unlabelled = client->get(k_gpu_node);
  unlabelled["metadata"]["labels"].erase("nvidia.com/gpu.present");
  const nlohmann::json before = client->update(k_gpu_node, unlabelled);

  // apply labels the node, a writer adds its marks, then apply taints the same node.
  remedy::Plan label;
  label.steps.push_back(remedy::plan_nodes_label(collect::collect(*client, {}), one));
  REQUIRE(remedy::execute(label, *client, options).mutations == 1);
  add_writer_marks(*client);
  remedy::Plan taint;
  taint.steps.push_back(remedy::plan_nodes_taint(collect::collect(*client, {}), one, {}));
  REQUIRE(remedy::execute(taint, *client, options).mutations == 1);

  CHECK(remedy::undo(remedy::read_journal(journal.path()), *client, {}).failure.empty());
  check_writer_marks_only(*client, before);
}

TEST_CASE("remedy::undo leaves out a write refused with 409 and retried after another writer's change") {
  kube_test::Cluster cluster(incident());
  auto client = cluster.admin();
  const nlohmann::json before = client->get(k_gpu_node);
  remedy::TargetObject target{"v1", "Node", "", k_gpu_node.name, k_gpu_node.type};
  nlohmann::json ours = before;
  ours["spec"]["taints"].push_back({{"key", "nvidia.com/gpu"}, {"value", "true"}, {"effect", "NoSchedule"}});

  // The journal of a run whose first write met the writer's change (409) and whose retry,
  // read after it, went through.
  remedy::JournalFile file;
  remedy::JournalEntry refused{1, "nodes taint", remedy::Action::patch, target, before, ours, nullptr, false};
  add_writer_marks(*client);
  const nlohmann::json reread = client->get(k_gpu_node);
  nlohmann::json retried = reread;
  retried["spec"]["taints"].push_back(ours["spec"]["taints"].back());
  const nlohmann::json answer = client->update(k_gpu_node, retried);
  remedy::JournalEntry applied{2, "nodes taint", remedy::Action::patch, target, reread, retried, answer, true};
  file.entries = {refused, applied};

  CHECK(remedy::undo(file, *client, {}).failure.empty());
  check_writer_marks_only(*client, before);
}

TEST_CASE("remedy::undo refuses when the run's fields changed since, unless forced") {
  kube_test::Cluster cluster(incident());
  kube_test::TempDir dir;
  auto client = cluster.admin();
  const nlohmann::json start = touched_state(*client);
  remedy::Journal journal(dir.path.string(), {{"command", "apply"}});
  remedy::ExecuteOptions options;
  options.journal = &journal;
  REQUIRE(remedy::execute(incident_plan(*client), *client, options).complete());

  // Someone edits the config we wrote.
  client->patch({{"", "v1", "configmaps", true}, "nvidia-device-plugin", "time-slicing-config", ""},
                kube::PatchType::merge, R"({"data":{"any":"edited"}})");
  const remedy::JournalFile file = remedy::read_journal(journal.path());
  cluster.server.clear_request_log();
  const remedy::UndoResult refused = remedy::undo(file, *client, {});
  CHECK(refused.refused);
  CHECK(mutations_in(cluster.server.request_log()) == 0);
  bool conflict_named = false;
  for (const remedy::UndoOutcome& outcome : refused.outcomes) {
    if (outcome.status == "conflict") conflict_named = outcome.target.name == "time-slicing-config";
  }
  CHECK(conflict_named);

  remedy::UndoOptions force;
  force.force = true;
  const remedy::UndoResult forced = remedy::undo(file, *client, force);
  CHECK_FALSE(forced.refused);
  CHECK(touched_state(*client) == start);
}

TEST_CASE("remedy::execute stops between requests when asked, and undo restores what was done") {
  kube_test::Cluster cluster(incident());
  kube_test::TempDir dir;
  auto client = cluster.admin();
  const nlohmann::json start = touched_state(*client);
  remedy::Journal journal(dir.path.string(), {{"command", "apply"}});
  remedy::ExecuteOptions options;
  options.journal = &journal;
  options.stop_requested = [&journal] { return journal.mutations() >= 2; };
  const remedy::ExecuteResult result = remedy::execute(incident_plan(*client), *client, options);
  CHECK(result.interrupted);
  CHECK(result.mutations == 2);
  const remedy::JournalFile file = remedy::read_journal(journal.path());
  REQUIRE(file.entries.size() == 2);
  CHECK(file.entries[1].done);
  CHECK(remedy::undo(file, *client, {}).failure.empty());
  CHECK(touched_state(*client) == start);
}

TEST_CASE("remedy::denied_permissions names what a user may not do") {
  kube_test::Cluster cluster(incident({kube_test::make_user("viewer", "viewer-token-s3cr3t", "", false, {})}));
  auto admin = cluster.admin();
  const remedy::Plan plan = incident_plan(*admin);
  const std::vector<remedy::Permission> needed = remedy::permissions_needed(plan);
  CHECK(std::find(needed.begin(), needed.end(), remedy::Permission{"update", "", "nodes", ""}) != needed.end());
  CHECK(std::find(needed.begin(), needed.end(),
                  remedy::Permission{"create", "", "configmaps", "nvidia-device-plugin"}) != needed.end());
  CHECK(remedy::denied_permissions(*admin, needed).empty());

  auto viewer = cluster.client(cluster.endpoint("viewer", fakekube::KubeconfigAuth::token));
  const std::vector<std::string> denied = remedy::denied_permissions(*viewer, needed);
  CHECK(denied.size() == needed.size());
  CHECK(std::find(denied.begin(), denied.end(), "update nodes") != denied.end());
}

TEST_CASE("remedy::object_deltas and revert") {
  const nlohmann::json before = {{"metadata", {{"name", "n"}, {"resourceVersion", "1"}}},
                                 {"spec", {{"taints", {{{"key", "a"}}}}}}};
  nlohmann::json after = before;
  after["metadata"]["labels"]["x"] = "1";
  after["metadata"]["resourceVersion"] = "2";
  after["spec"]["taints"].push_back({{"key", "b"}});
  const std::vector<remedy::FieldDelta> deltas = remedy::object_deltas(before, after);
  REQUIRE(deltas.size() == 2);
  nlohmann::json current = after;
  current["spec"]["taints"].push_back({{"key", "c"}}); // someone else's later taint
  for (const remedy::FieldDelta& delta : deltas) {
    CHECK(remedy::holds_after(delta, current));
    remedy::revert(delta, current);
  }
  CHECK(current["spec"]["taints"] == nlohmann::json({{{"key", "a"}}, {{"key", "c"}}}));
  CHECK(current["metadata"]["labels"].empty());
}
