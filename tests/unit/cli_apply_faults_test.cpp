// SPDX-License-Identifier: Apache-2.0
// apply and undo under fakekube's faults, as a table (issue 8): each run either leaves the
// cluster exactly as the same command without the fault does, or stops with one clear line and
// exit 3 having changed nothing, or exits 4 naming the undo command — and that undo, run once
// the fault is gone, restores the cluster as it was before apply. States are compared object by
// object (cli_apply_faults_support.hpp). The scenario is the incident plus 520 CPU pods, so the
// pod list comes in two pages and an expired continue token has a list to break.
//
// Speed (the suite runs twice in CI, once under ASan): Retry-After is 0 s so that the 429 rows
// take the retry path without sleeping a second per third request; latency is 20 ms per request
// for the slow path and 1.5 s against --request-timeout 1s (from the first write on) for the
// timeout path.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "unit/cli_apply_faults_support.hpp"
#include "unit/cli_run_support.hpp"

namespace {

using apply_faults_test::ClusterState;
using apply_faults_test::FaultCluster;
using gpuslice::ExitCode;

enum class Expect { same_result, same_or_stopped };

// Where a baseline run sent its requests, so a fault can be aimed at one of them.
struct RequestPlan {
  long first_write = 0; // the run's first change is its first_write-th request
};

struct RunFault {
  std::string name;
  std::function<void(FaultCluster&, const RequestPlan&)> inject;
  Expect expected;
  std::vector<std::string> extra_args;
};

fakekube::Scenario paged_incident() {
  fakekube::Scenario scenario = collect_test::incident();
  for (nlohmann::json& node : collect_test::cpu_nodes(1)) scenario.objects.push_back(std::move(node));
  for (nlohmann::json& pod : collect_test::cpu_pods(520, {"cpu-extra-0"})) scenario.objects.push_back(std::move(pod));
  return scenario;
}

bool is_change(const fakekube::LoggedRequest& request) {
  return request.method != "GET" && request.path.find("accessreviews") == std::string::npos;
}

RequestPlan request_plan(const std::vector<fakekube::LoggedRequest>& log) {
  const auto first = std::find_if(log.begin(), log.end(), is_change);
  REQUIRE(first != log.end());
  return {1 + (first - log.begin())};
}

// The server's number for the next run's first change.
long first_change(FaultCluster& cluster, const RequestPlan& plan) {
  return cluster.requests_served() + plan.first_write;
}

// Transport faults `faults` for the next run's requests first … first + length - 1 only.
void burst(FaultCluster& cluster, const RequestPlan& plan, long length, fakekube::TransportFaults faults) {
  const long first = first_change(cluster, plan);
  cluster.set_trigger([first, length, faults](long n, fakekube::Server& server) {
    if (n == first - 1) server.set_transport_faults(faults);
    if (n == first + length - 1) server.set_transport_faults({});
  });
}

std::vector<RunFault> fault_table() {
  using fakekube::TransportFaults;
  auto transport = [](TransportFaults faults) {
    return [faults](FaultCluster& c, const RequestPlan&) { c.server.set_transport_faults(faults); };
  };
  TransportFaults latency;
  latency.latency_ms = 20;
  TransportFaults too_many;
  too_many.too_many_every_nth = 3;
  too_many.retry_after_seconds = 0;
  TransportFaults error_500;
  error_500.server_error_every_nth = 4;
  TransportFaults error_503 = error_500;
  error_503.server_error_is_503 = true;
  TransportFaults every_500;
  every_500.server_error_every_nth = 1;
  TransportFaults every_503 = every_500;
  every_503.server_error_is_503 = true;
  TransportFaults dropped;
  dropped.drop_mid_body_every_nth = 3;
  TransportFaults token_ttl;
  token_ttl.token_ttl_requests = 6;
  TransportFaults slow;
  slow.latency_ms = 1500;
  return {
      {"latency 20 ms per request", transport(latency), Expect::same_result, {}},
      {"429 with Retry-After on every 3rd request", transport(too_many), Expect::same_result, {}},
      {"500 on every 4th request", transport(error_500), Expect::same_or_stopped, {}},
      {"503 on every 4th request", transport(error_503), Expect::same_or_stopped, {}},
      {"a burst of three 500s from the first change on",
       [every_500](FaultCluster& c, const RequestPlan& p) { burst(c, p, 3, every_500); },
       Expect::same_or_stopped, {}},
      {"a burst of three 503s from the first change on",
       [every_503](FaultCluster& c, const RequestPlan& p) { burst(c, p, 3, every_503); },
       Expect::same_or_stopped, {}},
      {"connection dropped mid-body on every 3rd response", transport(dropped), Expect::same_or_stopped, {}},
      {"connection dropped mid-body on the first change's response",
       [](FaultCluster& c, const RequestPlan& p) {
         TransportFaults at_first;
         at_first.drop_mid_body_every_nth = static_cast<int>(first_change(c, p));
         c.server.set_transport_faults(at_first);
       },
       Expect::same_or_stopped, {}},
      {"expired continue tokens during the paged pod list",
       [](FaultCluster& c, const RequestPlan&) { c.server.api().faults().expire_continue_tokens = true; },
       Expect::same_result, {}},
      {"credentials expiring every 6 requests (401, exec plugin refresh)", transport(token_ttl), Expect::same_result,
       {}},
      {"a Conflict on the first update of each object",
       [](FaultCluster& c, const RequestPlan&) { c.server.api().faults().conflict_on_first_update = true; },
       Expect::same_result, {}},
      {"latency past --request-timeout from the first change on (the server applies it late)",
       [slow](FaultCluster& c, const RequestPlan& p) {
         c.late_request = first_change(c, p);
         burst(c, p, 1000, slow);
       },
       Expect::same_or_stopped, {"--request-timeout", "1s"}},
  };
}

struct Outcome {
  cli_test::CliRun run;
  ClusterState state;
};

std::vector<std::string> with_kubeconfig(std::vector<std::string> args, FaultCluster& cluster,
                                         const std::vector<std::string>& extra = {}) {
  args.insert(args.end(), {"--kubeconfig", cluster.kubeconfig().string()});
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

cli_test::CliRun run_apply(FaultCluster& cluster, const std::vector<std::string>& extra = {}) {
  return cli_test::run_cli(with_kubeconfig({"apply", "--replicas", "4", "--yes", "--no-wait", "-o", "json",
                                            "--journal-dir", (cluster.dir.path / "journal").string()},
                                           cluster, extra));
}

cli_test::CliRun run_undo(FaultCluster& cluster, const std::string& journal, const std::vector<std::string>& extra = {}) {
  return cli_test::run_cli(with_kubeconfig({"undo", "--journal", journal, "--yes", "-o", "json"}, cluster, extra));
}

// The journal named by the run's JSON result.
std::string journal_of(const cli_test::CliRun& apply) {
  const nlohmann::json result = nlohmann::json::parse(apply.out, nullptr, false);
  REQUIRE(result.is_object());
  return result.value("journal", "");
}

std::size_t line_count(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

// Injects the fault, runs `command`, then heals the server and reads the state it left.
Outcome run_under_fault(FaultCluster& cluster, const RunFault& fault, const RequestPlan& plan, const std::string& what,
                        const std::function<cli_test::CliRun()>& command) {
  fault.inject(cluster, plan);
  Outcome outcome{command(), {}};
  cluster.heal();
  cluster.wait_until_served(cluster.late_request);
  outcome.state = apply_faults_test::cluster_state(cluster.server);
  MESSAGE(what, " under '", fault.name, "': exit ", static_cast<int>(outcome.run.code));
  return outcome;
}

// Exit 0 and the state the fault-free run left; true when the run exited 0.
bool check_same_result(const Outcome& outcome, const ClusterState& want) {
  if (outcome.run.code != ExitCode::ok) return false;
  INFO(apply_faults_test::state_differences(outcome.state, want));
  CHECK(outcome.state == want);
  return true;
}

// A stopped apply: exit 3 with one error line and nothing changed, or exit 4 whose second line
// names the undo; that undo (without the fault) brings back `before`.
void check_stopped(const Outcome& outcome, FaultCluster& cluster, const ClusterState& before, const std::string& what) {
  const cli_test::CliRun& run = outcome.run;
  INFO(what, " exited ", static_cast<int>(run.code), ", stderr: ", run.err);
  REQUIRE((run.code == ExitCode::runtime || run.code == ExitCode::incomplete));
  CHECK(run.err.rfind("kubectl gpuslice: error: ", 0) == 0);
  if (run.code == ExitCode::runtime) {
    CHECK(line_count(run.err) == 1);
    INFO(apply_faults_test::state_differences(outcome.state, before));
    CHECK(outcome.state == before);
    return;
  }
  CHECK(line_count(run.err) == 2);
  const std::string prefix = "To restore the cluster, run: kubectl gpuslice undo --journal ";
  const std::size_t at = run.err.find(prefix);
  REQUIRE(at != std::string::npos);
  const std::string journal = run.err.substr(at + prefix.size(), run.err.find('\n', at) - at - prefix.size());
  const cli_test::CliRun undo = run_undo(cluster, journal);
  INFO("the undo it names: ", undo.err);
  CHECK(undo.code == ExitCode::ok);
  const ClusterState restored = apply_faults_test::cluster_state(cluster.server);
  INFO(apply_faults_test::state_differences(restored, before));
  CHECK(restored == before);
}

} // namespace

TEST_CASE("cli apply under fakekube faults: the fault-free result, or exit 3/4 and a working undo") {
  FaultCluster baseline_cluster(paged_incident());
  const ClusterState initial = apply_faults_test::cluster_state(baseline_cluster.server);
  const cli_test::CliRun baseline = run_apply(baseline_cluster);
  INFO("baseline apply: ", baseline.err);
  REQUIRE(baseline.code == ExitCode::ok);
  const RequestPlan plan = request_plan(baseline_cluster.server.request_log());
  const ClusterState applied = apply_faults_test::cluster_state(baseline_cluster.server);
  REQUIRE(applied != initial);

  for (const RunFault& fault : fault_table()) {
    INFO("fault: ", fault.name);
    FaultCluster cluster(paged_incident());
    REQUIRE(apply_faults_test::cluster_state(cluster.server) == initial);
    const Outcome outcome =
        run_under_fault(cluster, fault, plan, "apply", [&] { return run_apply(cluster, fault.extra_args); });
    if (check_same_result(outcome, applied)) continue;
    CHECK(fault.expected == Expect::same_or_stopped);
    check_stopped(outcome, cluster, initial, "apply");
  }
}

TEST_CASE("cli undo under fakekube faults: the fault-free result, or exit 3/4 and the same undo finishes") {
  FaultCluster baseline_cluster(paged_incident());
  const ClusterState initial = apply_faults_test::cluster_state(baseline_cluster.server);
  const cli_test::CliRun baseline_apply = run_apply(baseline_cluster);
  REQUIRE(baseline_apply.code == ExitCode::ok);
  baseline_cluster.server.clear_request_log();
  const cli_test::CliRun baseline = run_undo(baseline_cluster, journal_of(baseline_apply));
  INFO("baseline undo: ", baseline.err);
  REQUIRE(baseline.code == ExitCode::ok);
  const RequestPlan plan = request_plan(baseline_cluster.server.request_log());
  const ClusterState undone = apply_faults_test::cluster_state(baseline_cluster.server);
  INFO(apply_faults_test::state_differences(undone, initial));
  REQUIRE(undone == initial);

  for (const RunFault& fault : fault_table()) {
    INFO("fault: ", fault.name);
    FaultCluster cluster(paged_incident());
    const cli_test::CliRun apply = run_apply(cluster);
    REQUIRE(apply.code == ExitCode::ok);
    const ClusterState applied = apply_faults_test::cluster_state(cluster.server);
    const Outcome outcome = run_under_fault(cluster, fault, plan, "undo",
                                            [&] { return run_undo(cluster, journal_of(apply), fault.extra_args); });
    if (check_same_result(outcome, initial)) continue;
    CHECK(fault.expected == Expect::same_or_stopped);
    // Exit 3: one line, nothing changed; exit 4: the line naming the undo again. Either way the
    // same undo, without the fault, finishes the job.
    INFO("stderr: ", outcome.run.err);
    CHECK(outcome.run.err.rfind("kubectl gpuslice: error: ", 0) == 0);
    if (outcome.run.code == ExitCode::runtime) {
      CHECK(line_count(outcome.run.err) == 1);
      CHECK(outcome.state == applied);
    } else {
      CHECK(outcome.run.code == ExitCode::incomplete);
      CHECK(line_count(outcome.run.err) == 2);
      CHECK(outcome.run.err.find("undo --journal " + journal_of(apply) + "\n") != std::string::npos);
    }
    const cli_test::CliRun again = run_undo(cluster, journal_of(apply));
    INFO("second undo: ", again.err);
    CHECK(again.code == ExitCode::ok);
    const ClusterState restored = apply_faults_test::cluster_state(cluster.server);
    INFO(apply_faults_test::state_differences(restored, initial));
    CHECK(restored == initial);
  }
}
