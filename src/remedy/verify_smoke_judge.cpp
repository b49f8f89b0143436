// SPDX-License-Identifier: Apache-2.0
// How a smoke run went: per GPU node, did its share of pods run there; for the Deployment, how
// many ran, why the others did not (the scheduler's own words), and whether it is gone.
#include <gpuslice/remedy/verify_smoke.hpp>

#include <algorithm>
#include <map>

#include <fmt/format.h>

namespace gpuslice::remedy {

namespace {

struct SmokeTally {
  long long running = 0;
  long long pending = 0;  // not bound to a node
  long long starting = 0; // bound, not (yet) running and ready
  std::map<std::string, long long> running_on;
  std::map<std::string, long long> unschedulable; // scheduler message → pods
  std::string trouble;    // first container problem seen, "pod: container reason"
};

SmokeTally tally_smoke(const std::vector<model::Pod>& pods) {
  SmokeTally tally;
  for (const model::Pod& pod : pods) {
    if (smoke_pod_running(pod)) {
      ++tally.running;
      ++tally.running_on[pod.spec.node_name];
    } else if (pod.spec.node_name.empty()) {
      ++tally.pending;
      const model::Condition* scheduled = pod.condition("PodScheduled");
      if (scheduled && scheduled->status == "False" && !scheduled->message.empty())
        ++tally.unschedulable[scheduled->message];
    } else {
      ++tally.starting;
      for (const model::ContainerStatus& s : pod.container_statuses)
        if (!s.ready && !s.reason.empty() && tally.trouble.empty())
          tally.trouble = fmt::format("{}: {} {}", pod.meta.name, s.name, s.reason);
    }
  }
  return tally;
}

// The message most Pending pods carry (ties: the first in order).
std::string common_message(const std::map<std::string, long long>& messages) {
  const auto it = std::max_element(messages.begin(), messages.end(),
                                   [](const auto& a, const auto& b) { return a.second < b.second; });
  return it == messages.end() ? std::string() : it->first;
}

CheckRow smoke_node_row(const SmokeNode& node, const SmokeTally& tally) {
  CheckRow row{std::string(k_check_smoke), "node/" + node.name, CheckResult::pass, "", "", ""};
  if (node.pods() == 0) {
    row.result = CheckResult::skipped;
    row.expected = fmt::format("{} slot(s)", node.slots);
    row.actual = fmt::format("{} in use", node.in_use);
    row.detail = "no free slot to test: GPU pods already hold every one";
    return row;
  }
  const auto it = tally.running_on.find(node.name);
  const long long here = it == tally.running_on.end() ? 0 : it->second;
  row.expected = fmt::format("{} Running", node.pods());
  row.actual = fmt::format("{} Running", here);
  row.detail = fmt::format("{} slot(s), {} held by other GPU pods", node.slots, node.in_use);
  if (here < node.pods()) row.result = CheckResult::fail;
  return row;
}

CheckRow smoke_deployment_row(const SmokePlan& plan, const SmokeOutcome& outcome, const SmokeTally& tally) {
  CheckRow row{std::string(k_check_smoke), fmt::format("deployment/{}/{}", plan.ns, plan.name), CheckResult::pass,
               fmt::format("{} {} pod(s) Running", plan.pods(), plan.resource), "", ""};
  row.actual = fmt::format("{} Running, {} Pending, {} starting", tally.running, tally.pending, tally.starting);
  std::vector<std::string> why;
  if (tally.running < plan.pods()) {
    row.result = CheckResult::fail;
    if (outcome.interrupted) why.push_back("interrupted");
    else if (outcome.timed_out) why.push_back("timed out");
    if (tally.pending > 0) {
      const std::string message = common_message(tally.unschedulable);
      why.push_back(message.empty() ? fmt::format("{} pod(s) Pending, not yet scheduled", tally.pending)
                                    : fmt::format("{} pod(s) Pending: {}", tally.pending, message));
    }
    if (!tally.trouble.empty()) why.push_back(tally.trouble);
  }
  if (outcome.removed) {
    why.push_back("removed");
  } else {
    row.result = CheckResult::fail;
    why.push_back(fmt::format("NOT removed ({}): kubectl -n {} delete deployment {}", outcome.removal_error, plan.ns,
                              plan.name));
  }
  for (const std::string& part : why) row.detail += (row.detail.empty() ? "" : "; ") + part;
  return row;
}

} // namespace

bool smoke_pod_running(const model::Pod& pod) {
  return pod.phase == "Running" && !pod.spec.node_name.empty() && pod.is_ready();
}

std::vector<CheckRow> judge_smoke(const SmokePlan& plan, const SmokeOutcome& outcome) {
  std::vector<CheckRow> rows;
  if (plan.nodes.empty()) {
    rows.push_back({std::string(k_check_smoke), "cluster", CheckResult::fail, "GPU nodes", "none",
                    "no GPU node to run the smoke test on"});
    return rows;
  }
  const SmokeTally tally = tally_smoke(outcome.pods);
  for (const SmokeNode& node : plan.nodes) rows.push_back(smoke_node_row(node, tally));
  if (plan.pods() > 0) rows.push_back(smoke_deployment_row(plan, outcome, tally));
  return rows;
}

std::string smoke_progress(const SmokePlan& plan, const std::vector<model::Pod>& pods) {
  const SmokeTally tally = tally_smoke(pods);
  return fmt::format("smoke {}/{} Running, {} Pending, {} starting", tally.running, plan.pods(), tally.pending,
                     tally.starting);
}

} // namespace gpuslice::remedy
