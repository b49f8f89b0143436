// SPDX-License-Identifier: Apache-2.0
#include "cli/diagnose_options.hpp"

#include <algorithm>

#include <gpuslice/error.hpp>

#include "cli/output_flags.hpp"

namespace gpuslice::cli {

namespace {
// NVIDIA's plugin takes any replicas ≥ 2; past this a GPU share is too small to be useful,
// and a larger number is far more likely a typo.
constexpr int k_max_replicas = 128;
} // namespace

void add_diagnose_flags(CLI::App& sub, DiagnoseOptions& options) {
  sub.add_flag("-A,--all-namespaces", options.all_namespaces,
               "Look at pods in all namespaces (the default unless -n is given)");
  add_output_flag(sub, options.output);
  const std::vector<std::string> formats = report::output_format_names();
  std::string described;
  for (std::size_t i = 0; i < formats.size(); ++i) {
    described += (i == 0 ? "" : i + 1 == formats.size() ? " or " : ", ") + formats[i];
  }
  sub.get_option("--output")->description("Output format: " + described);
  sub.add_option("--fail-on", options.fail_on,
                 "Exit 1 when a finding at or above this severity is found: error, warning, info or never")
      ->default_str("error");
  sub.add_option("--ignore", options.ignore, "Finding codes to leave out, e.g. GS303,GS501")
      ->delimiter(',');
  sub.add_option("-f,--from-file", options.from_files,
                 "Diagnose offline from files: a gpuslice snapshot, kubectl get -o json/yaml output")
      ->delimiter(',');
  sub.add_option("--contexts", options.contexts,
                 "Diagnose several clusters (kubeconfig contexts, comma-separated) in parallel")
      ->delimiter(',');
  sub.add_flag("--all-contexts", options.all_contexts, "Diagnose every context of the kubeconfig");
  sub.add_option("--replicas", options.replicas,
                 "Time-slicing replicas to recommend and to count fits for (default: derived from demand)")
      ->each([&options](const std::string&) { options.replicas_given = true; });
}

ValidDiagnoseOptions validate_diagnose_options(const DiagnoseOptions& options,
                                               const std::string& context_flag) {
  ValidDiagnoseOptions valid;
  const bool fleet = options.all_contexts || !options.contexts.empty();
  if (options.all_contexts && !options.contexts.empty()) {
    throw UsageError("--contexts and --all-contexts: give one or the other");
  }
  if (fleet && !options.from_files.empty()) {
    throw UsageError("--from-file reads one cluster's files: it cannot be combined with --contexts or --all-contexts");
  }
  if (fleet && !context_flag.empty()) {
    throw UsageError("--context names one cluster: use --contexts for several");
  }
  valid.document = report::parse_document_format(options.output);
  if (valid.document && fleet) {
    throw UsageError("--output " + options.output + ": one cluster at a time; with --contexts use table, json or yaml");
  }
  if (!valid.document && !report::parse_format(options.output)) {
    throw UsageError("--output \"" + options.output + "\": must be one of table, json, yaml, markdown, junit");
  }
  if (!valid.document) valid.format = output_format(options.output);
  if (options.fail_on != "never") {
    valid.fail_on = diagnose::parse_severity(options.fail_on);
    if (!valid.fail_on) {
      throw UsageError("--fail-on \"" + options.fail_on +
                       "\": must be one of error, warning, info, never");
    }
  }
  for (const std::string& code : options.ignore) {
    const auto parsed = diagnose::parse_finding_code(code);
    if (!parsed) {
      throw UsageError("--ignore \"" + code + "\": not a finding code (see `explain`; e.g. GS303)");
    }
    valid.ignored.insert(*parsed);
  }
  if ((options.replicas_given || options.replicas != 0) && (options.replicas < 2 || options.replicas > k_max_replicas)) {
    throw UsageError("--replicas " + std::to_string(options.replicas) + ": must be from 2 to " +
                     std::to_string(k_max_replicas) + " (1 means no sharing)");
  }
  return valid;
}

void drop_ignored(diagnose::Diagnosis& diagnosis, const std::set<diagnose::FindingCode>& ignored) {
  std::erase_if(diagnosis.findings,
                [&](const diagnose::Finding& f) { return ignored.contains(f.code); });
}

ExitCode exit_code_for(const diagnose::Diagnosis& diagnosis,
                       const std::optional<diagnose::Severity>& fail_on) {
  if (!fail_on) {
    return ExitCode::ok;
  }
  const bool failing = std::any_of(diagnosis.findings.begin(), diagnosis.findings.end(),
                                   [&](const diagnose::Finding& f) { return f.severity <= *fail_on; });
  return failing ? ExitCode::findings : ExitCode::ok;
}

} // namespace gpuslice::cli
