// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include <gpuslice/collect.hpp>
#include <gpuslice/error.hpp>
#include <gpuslice/remedy/plan.hpp>
#include <gpuslice/remedy/verify_settings.hpp>

using namespace gpuslice;
using remedy::AppliedSettings;
using remedy::choose_verify_settings;

namespace {

const char* const k_config_4 = R"(version: v1
sharing:
  timeSlicing:
    resources:
    - name: nvidia.com/gpu
      replicas: 4
)";

remedy::JournalEntry journal_entry(const std::string& kind, const std::string& name, nlohmann::json prior,
                                   nlohmann::json result) {
  remedy::JournalEntry entry;
  entry.target = remedy::target_for(kind, kind == "Node" ? "" : "nvidia-device-plugin", name);
  entry.prior = std::move(prior);
  entry.result = std::move(result);
  entry.done = true;
  return entry;
}

AppliedSettings source(const std::string& where, std::optional<int> replicas) {
  AppliedSettings out;
  out.where = where;
  out.replicas = replicas;
  out.resource = "nvidia.com/gpu";
  return out;
}

} // namespace

TEST_CASE("remedy::choose_verify_settings: flag > journal > config") {
  AppliedSettings journal = source("journal /j", 4);
  journal.taint_known = true;
  journal.taint = model::Taint{"nvidia.com/gpu", "present", "NoSchedule", ""};
  journal.nodes = {"gpu-1"};
  const AppliedSettings config = source("configmap ns/cm key default", 8);

  SUBCASE("flags win over both") {
    remedy::SettingFlags flags;
    flags.replicas = 2;
    flags.taint = model::Taint{"gpu", "yes", "NoExecute", ""};
    const remedy::VerifySettings s = choose_verify_settings(flags, journal, config, "");
    CHECK(s.replicas == 2);
    CHECK(s.replicas_from == "flag");
    CHECK(s.taint->key == "gpu");
    CHECK(s.taint_from == "flag");
  }
  SUBCASE("the journal wins over the config, its taint is checked") {
    const remedy::VerifySettings s = choose_verify_settings({}, journal, config, "");
    CHECK(s.replicas == 4);
    CHECK(s.replicas_from == "journal /j");
    REQUIRE(s.taint.has_value());
    CHECK(model::to_string(*s.taint) == "nvidia.com/gpu=present:NoSchedule");
    CHECK(s.taint_from == "journal /j");
    CHECK(s.nodes == std::vector<std::string>{"gpu-1"});
  }
  SUBCASE("a --replicas flag with the journal's taint") {
    remedy::SettingFlags flags;
    flags.replicas = 3;
    const remedy::VerifySettings s = choose_verify_settings(flags, journal, config, "");
    CHECK(s.replicas == 3);
    CHECK(s.taint_from == "journal /j");
  }
  SUBCASE("the config alone: replicas, no taint") {
    const remedy::VerifySettings s = choose_verify_settings({}, std::nullopt, config, "");
    CHECK(s.replicas == 8);
    CHECK(s.replicas_from == "configmap ns/cm key default");
    CHECK_FALSE(s.taint.has_value());
    CHECK(s.taint_from == "none");
  }
  SUBCASE("a journal without replicas falls back to the config for them") {
    journal.replicas.reset();
    const remedy::VerifySettings s = choose_verify_settings({}, journal, config, "");
    CHECK(s.replicas == 8);
    CHECK(s.taint_from == "journal /j");
  }
  SUBCASE("nothing gives replicas: the error says where it looked") {
    CHECK_THROWS_WITH_AS(choose_verify_settings({}, std::nullopt, std::nullopt, "DIR"),
                         "--replicas is required: no replicas found in DIR", UsageError);
  }
}

TEST_CASE("remedy::settings_from_journal") {
  remedy::JournalFile journal;
  const nlohmann::json cm = {{"metadata", {{"name", "ts"}}}, {"data", {{"default", k_config_4}}}};
  const nlohmann::json bare = {{"metadata", {{"name", "gpu-1"}}}, {"spec", nlohmann::json::object()}};
  nlohmann::json tainted = bare;
  tainted["spec"]["taints"] = {{{"key", "nvidia.com/gpu"}, {"value", "present"}, {"effect", "NoSchedule"}}};
  journal.entries.push_back(journal_entry("ConfigMap", "ts", nullptr, cm));
  SUBCASE("replicas and resource from the ConfigMap, the taint it added, the nodes") {
    journal.entries.push_back(journal_entry("Node", "gpu-1", bare, tainted));
    const AppliedSettings s = remedy::settings_from_journal(journal, "/j");
    CHECK(s.where == "journal /j");
    CHECK(s.replicas == 4);
    CHECK(s.resource == "nvidia.com/gpu");
    CHECK(s.taint_known);
    REQUIRE(s.taint.has_value());
    CHECK(s.taint->effect == "NoSchedule");
    CHECK(s.nodes == std::vector<std::string>{"gpu-1"});
  }
  SUBCASE("a taint the node already had is not the run's") {
    journal.entries.push_back(journal_entry("Node", "gpu-1", tainted, tainted));
    const AppliedSettings s = remedy::settings_from_journal(journal, "/j");
    CHECK(s.taint_known);
    CHECK_FALSE(s.taint.has_value());
  }
  SUBCASE("no node touched: the taint is unknown") {
    const AppliedSettings s = remedy::settings_from_journal(journal, "/j");
    CHECK_FALSE(s.taint_known);
  }
}

TEST_CASE("remedy::is_apply_journal_for") {
  SnapshotMeta cluster;
  cluster.context = "eks";
  cluster.server = "https://a";
  CHECK(remedy::is_apply_journal_for({{"command", "apply"}, {"context", "eks"}, {"server", "https://a"}}, cluster));
  CHECK_FALSE(remedy::is_apply_journal_for({{"command", "apply"}, {"context", "eks"}, {"server", "https://b"}}, cluster));
  CHECK_FALSE(
      remedy::is_apply_journal_for({{"command", "verify --smoke"}, {"context", "eks"}, {"server", "https://a"}}, cluster));
}

namespace {

Snapshot settings_incident() {
  return collect::load_snapshot_files(
      {std::string(GPUSLICE_SOURCE_DIR) + "/tests/fixtures/scenarios/eks-gpu-incident.yaml"});
}

} // namespace

TEST_CASE("remedy::plan_settings: what apply was for, recorded whether or not a change was needed") {
  const Snapshot incident = settings_incident();
  remedy::ApplyOptions options;
  options.config.replicas = 4;
  options.nodes.nodes = {"ip-10-0-33-17.us-west-2.compute.internal", "ip-10-0-1-17.us-west-2.compute.internal"};
  SUBCASE("replicas, resource, the taint and every Node target, sorted") {
    const nlohmann::json settings = remedy::plan_settings(remedy::plan_apply(incident, options));
    CHECK(settings["replicas"] == 4);
    CHECK(settings["resource"] == "nvidia.com/gpu");
    CHECK(settings["nodes"] == nlohmann::json::array({"ip-10-0-1-17.us-west-2.compute.internal",
                                                      "ip-10-0-33-17.us-west-2.compute.internal"}));
    CHECK(settings["taint"] == nlohmann::json{{"key", "nvidia.com/gpu"}, {"value", "true"}, {"effect", "NoSchedule"}});
    // Read back from a journal header: the header wins over the (here empty) entries.
    remedy::JournalFile journal;
    journal.header = {{"command", "apply"}, {"settings", settings}};
    const AppliedSettings read = remedy::settings_from_journal(journal, "/j");
    CHECK(read.replicas == 4);
    CHECK(read.resource == "nvidia.com/gpu");
    CHECK(read.taint_known);
    REQUIRE(read.taint.has_value());
    CHECK(model::to_string(*read.taint) == "nvidia.com/gpu=true:NoSchedule");
    CHECK(read.nodes.size() == 2);
  }
  SUBCASE("--no-taint: the taint is known to be none") {
    options.taint_nodes = false;
    options.tolerate_workloads = false;
    const nlohmann::json settings = remedy::plan_settings(remedy::plan_apply(incident, options));
    CHECK(settings["taint"].is_null());
    remedy::JournalFile journal;
    journal.header = {{"settings", settings}};
    const AppliedSettings read = remedy::settings_from_journal(journal, "/j");
    CHECK(read.taint_known);
    CHECK_FALSE(read.taint.has_value());
  }
  SUBCASE("--rename-by-default: the shares are advertised as nvidia.com/gpu.shared") {
    options.config.rename_by_default = true;
    CHECK(remedy::plan_settings(remedy::plan_apply(incident, options))["resource"] == "nvidia.com/gpu.shared");
  }
  SUBCASE("a plan without the config step says nothing of replicas") {
    remedy::Plan plan;
    plan.steps.push_back(remedy::plan_nodes_label(incident, options.nodes));
    const nlohmann::json settings = remedy::plan_settings(plan);
    CHECK_FALSE(settings.contains("replicas"));
    CHECK(settings["nodes"].size() == 2);
  }
}

TEST_CASE("remedy::choose_verify_settings: --node wins over the journal's nodes") {
  AppliedSettings journal = source("journal /j", 4);
  journal.nodes = {"gpu-1", "gpu-2"};
  remedy::SettingFlags flags;
  flags.nodes = {"gpu-3"};
  const remedy::VerifySettings chosen = choose_verify_settings(flags, journal, std::nullopt, "");
  CHECK(chosen.nodes == std::vector<std::string>{"gpu-3"});
  CHECK(chosen.nodes_from == "flag");
  const remedy::VerifySettings defaulted = choose_verify_settings({}, journal, std::nullopt, "");
  CHECK(defaulted.nodes == std::vector<std::string>{"gpu-1", "gpu-2"});
  CHECK(defaulted.nodes_from == "journal /j");
}

TEST_CASE("remedy::settings_from_journal: when the change was made, for nodes that join after it") {
  remedy::JournalFile journal;
  journal.header = {{"command", "apply"}, {"startedAt", "2026-12-01T10:00:00Z"}, {"settings", {{"replicas", 4}}}};
  const AppliedSettings read = remedy::settings_from_journal(journal, "/j");
  CHECK(read.changed_at == "2026-12-01T10:00:00Z");
  CHECK(choose_verify_settings({}, read, std::nullopt, "").changed_at == "2026-12-01T10:00:00Z");
}
