// SPDX-License-Identifier: Apache-2.0
// `alerts`: print (or --apply) the PrometheusRule for GPU memory and saturation, with the
// memory threshold derived from the time-slicing replicas (given, or read from the nodes'
// nvidia.com/gpu.replicas labels that GPU Feature Discovery writes).
#include <algorithm>
#include <charconv>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <gpuslice/kube/client.hpp>
#include <gpuslice/report.hpp>

#include "cli/commands.hpp"

namespace gpuslice::cli {

namespace {

struct AlertsOptions {
  int replicas = 0; // 0 = read from the cluster
  std::string output = "yaml";
  std::string rule_namespace = "gpu-monitoring";
  std::vector<std::string> labels; // key=value
  bool apply = false;
};

// The largest nvidia.com/gpu.replicas label of any node; 1 when no node is shared.
int cluster_replicas(kube::Client& client) {
  kube::ListOptions options;
  options.label_selector = "nvidia.com/gpu.replicas";
  int most = 1;
  for (const nlohmann::json& node : client.list_items({"", "v1", "nodes", false}, options)) {
    const nlohmann::json labels = node.at("metadata").value("labels", nlohmann::json::object());
    const std::string value = labels.value("nvidia.com/gpu.replicas", "");
    int replicas = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), replicas);
    if (ec == std::errc{} && end == value.data() + value.size()) most = std::max(most, replicas);
  }
  return most;
}

report::AlertRuleOptions validate_alerts(const AlertsOptions& options) {
  if (options.replicas < 0 || options.replicas > 128) {
    throw UsageError(fmt::format("--replicas {}: must be from 1 to 128", options.replicas));
  }
  if (options.output != "yaml" && options.output != "json") {
    throw UsageError(fmt::format("--output \"{}\": must be yaml or json", options.output));
  }
  report::AlertRuleOptions rule;
  rule.replicas = options.replicas;
  rule.ns = options.rule_namespace;
  for (const std::string& label : options.labels) {
    const std::size_t equals = label.find('=');
    if (equals == std::string::npos || equals == 0) {
      throw UsageError(fmt::format("--rule-labels \"{}\": must be key=value", label));
    }
    rule.labels.emplace_back(label.substr(0, equals), label.substr(equals + 1));
  }
  return rule;
}

ExitCode run_alerts(const AlertsOptions& options, const GlobalFlags& global, Env& env) {
  report::AlertRuleOptions rule = validate_alerts(options);
  std::unique_ptr<kube::Client> client;
  if (options.apply || options.replicas == 0) client = open_client(global, env.err);
  if (options.replicas == 0) rule.replicas = cluster_replicas(*client);
  const nlohmann::ordered_json manifest = report::prometheus_rule(rule);
  if (!options.apply) {
    env.out << (options.output == "json" ? manifest.dump(2) + "\n" : report::to_yaml(manifest));
    return ExitCode::ok;
  }
  kube::WriteOptions write;
  write.force = true;
  client->patch({{"monitoring.coreos.com", "v1", "prometheusrules", true}, rule.ns, rule.name, ""},
                kube::PatchType::apply, manifest.dump(), write);
  env.out << fmt::format("prometheusrule.monitoring.coreos.com/{} serverside-applied in namespace {} (replicas {}, "
                         "memory alert above {:.4g}%)\n",
                         rule.name, rule.ns, rule.replicas, report::memory_alert_threshold(rule.replicas) * 100);
  return ExitCode::ok;
}

} // namespace

void add_alerts(CLI::App& app, Commands& commands, Env& env) {
  CLI::App* sub = app.add_subcommand(
      "alerts", "Print or apply a PrometheusRule that warns when a shared GPU's memory is nearly full or it is saturated.");
  sub->footer(fmt::format(
      "Alerts use NVIDIA's DCGM exporter metrics (DCGM_FI_DEV_FB_USED, DCGM_FI_DEV_FB_FREE, DCGM_FI_DEV_GPU_UTIL);\n"
      "the memory threshold is 1 - 1/(2 x replicas), at least 75 %. Without --replicas, the replicas are read from\n"
      "the nodes' nvidia.com/gpu.replicas labels.\n\n"
      "Examples:\n"
      "  # Print the rule for GPUs shared 4 ways\n"
      "  {0} alerts --replicas 4\n\n"
      "  # Apply it where kube-prometheus-stack (release \"prom\") picks rules up\n"
      "  {0} alerts --apply --rule-namespace monitoring --rule-labels release=prom",
      env.program));
  auto options = std::make_shared<AlertsOptions>();
  sub->add_option("--replicas", options->replicas, "Time-slicing replicas per GPU (default: read from the nodes)");
  sub->add_option("-o,--output", options->output, "Output format: yaml or json")->default_str("yaml");
  sub->add_option("--rule-namespace", options->rule_namespace, "Namespace of the PrometheusRule")
      ->default_str("gpu-monitoring");
  sub->add_option("--rule-labels", options->labels, "Labels for the rule, key=value, comma-separated (ruleSelector)")
      ->delimiter(',');
  sub->add_flag("--apply", options->apply, "Server-side apply the rule instead of printing it");
  sub->callback([&commands, &env, options] {
    commands.chosen = [&commands, &env, options] { return run_alerts(*options, commands.global, env); };
  });
}

} // namespace gpuslice::cli
