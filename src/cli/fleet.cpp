// SPDX-License-Identifier: Apache-2.0
#include "cli/fleet.hpp"

#include <algorithm>
#include <sstream>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <gpuslice/collect.hpp>
#include <gpuslice/error.hpp>
#include <gpuslice/kube/config.hpp>

#include "cli/output_flags.hpp"
#include "cli/snapshot_source.hpp"

namespace gpuslice::cli {

namespace {

// Clusters diagnosed at once: each runs its own parallel reads, so a few are plenty.
constexpr std::size_t k_clusters_at_once = 4;

struct ClusterResult {
  std::string context;
  std::string server;
  std::optional<diagnose::Diagnosis> diagnosis;
  std::string error; // set when the cluster could not be read
};

kube::Kubeconfig load_config(const GlobalFlags& global) {
  const kube::GetEnv getenv = kube::system_getenv();
  kube::LoadingRules rules;
  rules.explicit_path = global.kube.kubeconfig;
  rules.kubeconfig_env = getenv("KUBECONFIG").value_or("");
  rules.home = getenv("HOME").value_or("");
  return kube::load_kubeconfig(rules, kube::system_file_reader());
}

ClusterResult diagnose_one(const std::string& context, const DiagnoseOptions& options,
                           const ValidDiagnoseOptions& valid, const GlobalFlags& global) {
  ClusterResult result;
  result.context = context;
  try {
    GlobalFlags flags = global;
    flags.kube.context = context;
    // -v output of several clusters would interleave; each cluster logs into its own buffer.
    std::ostringstream log;
    std::unique_ptr<kube::Client> client = open_client(flags, log);
    result.server = client->endpoint().server;
    const Snapshot snapshot = collect::collect(*client, live_scope(options.all_namespaces, global));
    diagnose::AnalyzeOptions analyze_options;
    analyze_options.replicas = options.replicas;
    diagnose::Diagnosis diagnosis = diagnose::analyze(snapshot, analyze_options);
    drop_ignored(diagnosis, valid.ignored);
    result.diagnosis = std::move(diagnosis);
  } catch (const std::exception& e) {
    result.error = e.what();
  }
  return result;
}

std::vector<ClusterResult> diagnose_all(const std::vector<std::string>& contexts,
                                        const DiagnoseOptions& options,
                                        const ValidDiagnoseOptions& valid, const GlobalFlags& global) {
  std::vector<ClusterResult> results(contexts.size());
  for (std::size_t start = 0; start < contexts.size(); start += k_clusters_at_once) {
    std::vector<std::thread> threads;
    const std::size_t end = std::min(contexts.size(), start + k_clusters_at_once);
    for (std::size_t i = start; i < end; ++i) {
      threads.emplace_back([&, i] { results[i] = diagnose_one(contexts[i], options, valid, global); });
    }
    for (std::thread& t : threads) {
      t.join();
    }
  }
  return results;
}

std::size_t count(const diagnose::Diagnosis& d, diagnose::Severity s) {
  return static_cast<std::size_t>(std::count_if(d.findings.begin(), d.findings.end(),
                                                [&](const diagnose::Finding& f) { return f.severity == s; }));
}

std::string render_table(const std::vector<ClusterResult>& results, const report::Style& style) {
  report::TextTable table({"context", "pending gpu pods", "gpu nodes", "slots free", "errors",
                           "warnings", "first finding"});
  for (const ClusterResult& r : results) {
    if (!r.diagnosis) {
      table.add_row({r.context, "-", "-", "-", "-", "-", "could not read: " + r.error});
      continue;
    }
    const diagnose::Diagnosis& d = *r.diagnosis;
    const report::GpuTotals totals = report::gpu_totals(d.nodes);
    const std::string first =
        d.findings.empty() ? "-"
                           : fmt::format("{} {}", diagnose::to_string(d.findings.front().code),
                                         d.findings.front().name);
    table.add_row({r.context, std::to_string(d.pending_pods.size()), std::to_string(d.nodes.size()),
                   fmt::format("{}/{}", totals.free, totals.slots), std::to_string(count(d, diagnose::Severity::error)),
                   std::to_string(count(d, diagnose::Severity::warning)), first});
  }
  return table.render(style);
}

nlohmann::ordered_json results_json(const std::vector<ClusterResult>& results) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const ClusterResult& r : results) {
    if (r.diagnosis) {
      out.push_back(report::diagnosis_to_json(*r.diagnosis, {r.context, r.server}));
    } else {
      out.push_back({{"apiVersion", "gpuslice/v1alpha1"},
                     {"kind", "DiagnosisError"},
                     {"cluster", {{"context", r.context}, {"server", r.server}}},
                     {"error", r.error}});
    }
  }
  return out;
}

} // namespace

std::vector<std::string> fleet_contexts(const DiagnoseOptions& options, const GlobalFlags& global) {
  const kube::Kubeconfig config = load_config(global);
  if (options.all_contexts) {
    std::vector<std::string> names;
    for (const auto& [name, entry] : config.contexts) {
      names.push_back(name);
    }
    if (names.empty()) {
      throw UsageError("--all-contexts: the kubeconfig has no contexts");
    }
    return names;
  }
  for (const std::string& name : options.contexts) {
    if (!config.contexts.contains(name)) {
      throw UsageError("--contexts: context \"" + name + "\" does not exist");
    }
  }
  return options.contexts;
}

ExitCode run_fleet(const DiagnoseOptions& options, const ValidDiagnoseOptions& valid,
                   const GlobalFlags& global, Env& env) {
  const std::vector<std::string> contexts = fleet_contexts(options, global);
  const std::vector<ClusterResult> results = diagnose_all(contexts, options, valid, global);
  switch (valid.format) {
  case report::Format::json: env.out << results_json(results).dump(2) << "\n"; break;
  case report::Format::yaml: env.out << report::to_yaml(results_json(results)); break;
  case report::Format::table: env.out << render_table(results, output_style(env, global.no_color)); break;
  }
  ExitCode code = ExitCode::ok;
  for (const ClusterResult& r : results) {
    if (!r.diagnosis) {
      env.err << fmt::format("{}: error: context \"{}\": {}\n", env.program, r.context, r.error);
      code = ExitCode::runtime;
    } else if (code == ExitCode::ok && exit_code_for(*r.diagnosis, valid.fail_on) == ExitCode::findings) {
      code = ExitCode::findings;
    }
  }
  return code;
}

} // namespace gpuslice::cli
