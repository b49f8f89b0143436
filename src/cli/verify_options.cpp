// SPDX-License-Identifier: Apache-2.0
#include "cli/verify_options.hpp"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include <gpuslice/error.hpp>

#include "cli/apply_run.hpp"
#include "cli/output_flags.hpp"
#include "cli/taint_spec.hpp"

namespace gpuslice::cli {

void add_verify_flags(CLI::App& sub, VerifyFlags& flags) {
  sub.add_option_function<int>(
      "--replicas", [&flags](const int& replicas) { flags.replicas = replicas; },
      "Time-slicing replicas per GPU the cluster should have (1 = not shared; default: what the newest apply "
      "journal of this cluster wrote, else the time-slicing config the device plugin reads)");
  sub.add_option("--taint", flags.taint,
                 "GPU taint KEY=VALUE:EFFECT that GPU nodes should carry and GPU workloads tolerate (default: the "
                 "taint the newest apply journal of this cluster put on)");
  sub.add_option("--node", flags.nodes,
                 "Node to check (repeatable; default: the nodes the newest apply journal of this cluster was for, "
                 "else every GPU node)")
      ->delimiter(',');
  sub.add_option("--was-pending", flags.was_pending, "Pods (NAMESPACE/NAME) that were Pending before the change")
      ->delimiter(',');
  add_output_flag(sub, flags.output);
  sub.add_option("-f,--from-file", flags.from_files, "Read a snapshot or kubectl output instead of the cluster")
      ->delimiter(',');
  sub.add_flag("--smoke", flags.smoke,
               "Also run a throw-away Deployment of one-GPU pods filling every GPU node's free slots, wait until "
               "all run, then delete it");
  sub.add_option("--smoke-image", flags.smoke_image, "Image of the smoke pods (needs sh; runs nvidia-smi -L)")
      ->default_str(flags.smoke_image);
  sub.add_option("--smoke-namespace", flags.smoke_namespace, "Existing namespace the smoke Deployment runs in")
      ->default_str(flags.smoke_namespace);
  sub.add_option("--timeout", flags.timeout, "How long --smoke waits for its pods, e.g. 90s, 5m")
      ->default_str(flags.timeout);
  sub.add_option("--journal-dir", flags.journal_dir,
                 "Where apply journals are read and the smoke journal written (default ~/.kube/gpuslice)");
  sub.add_option("--watch", flags.watch,
                 "Keep checking for this long (e.g. 10m), saying on stderr each node that joins and each check "
                 "that changes; then print the matrix of the last round");
}

namespace {

// A namespace name as the API accepts it: an RFC 1123 label.
bool verify_namespace_name(const std::string& name) {
  if (name.empty() || name.size() > 63 || name.front() == '-' || name.back() == '-') return false;
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; });
}

void validate_smoke_flags(const VerifyFlags& flags, ValidVerifyFlags& valid) {
  valid.timeout = parse_timeout(flags.timeout);
  if (!flags.smoke) return;
  if (!flags.from_files.empty())
    throw UsageError("--smoke: runs pods on the live cluster; it cannot be combined with --from-file");
  if (flags.smoke_image.empty() ||
      std::any_of(flags.smoke_image.begin(), flags.smoke_image.end(), [](unsigned char c) { return std::isspace(c); }))
    throw UsageError(fmt::format("--smoke-image \"{}\": must be an image reference without spaces", flags.smoke_image));
  if (!verify_namespace_name(flags.smoke_namespace))
    throw UsageError(fmt::format("--smoke-namespace \"{}\": must be a namespace name (lower-case letters, digits "
                                 "and '-', at most 63)",
                                 flags.smoke_namespace));
  remedy::SmokeOptions smoke;
  smoke.ns = flags.smoke_namespace;
  smoke.image = flags.smoke_image;
  smoke.replicas = valid.options.replicas; // the flags'; use_verify_settings() sets the chosen ones
  smoke.taint = valid.options.taint;
  valid.smoke = smoke;
}

} // namespace

ValidVerifyFlags validate_verify_flags(const VerifyFlags& flags) {
  ValidVerifyFlags valid;
  valid.format = output_format(flags.output);
  if (flags.replicas && (*flags.replicas < 1 || *flags.replicas > 128)) // 128: as diagnose and apply; beyond, a typo
    throw UsageError(
        fmt::format("--replicas {}: must be from 1 to 128 (the replicas per GPU to verify)", *flags.replicas));
  valid.given.replicas = flags.replicas;
  if (flags.replicas) valid.options.replicas = *flags.replicas;
  if (!flags.taint.empty()) valid.given.taint = valid.options.taint = parse_taint_flag("--taint", flags.taint);
  for (const std::string& node : flags.nodes) {
    if (node.empty() || node.find('/') != std::string::npos || node.find(' ') != std::string::npos)
      throw UsageError(fmt::format("--node \"{}\": must be a node name", node));
    if (std::find(valid.given.nodes.begin(), valid.given.nodes.end(), node) == valid.given.nodes.end())
      valid.given.nodes.push_back(node);
  }
  for (const std::string& pod : flags.was_pending) {
    const std::size_t slash = pod.find('/');
    if (slash == std::string::npos || slash == 0 || slash + 1 == pod.size() || pod.find('/', slash + 1) != std::string::npos)
      throw UsageError(fmt::format("--was-pending \"{}\": must be NAMESPACE/NAME", pod));
    valid.options.formerly_pending.push_back(pod);
  }
  validate_smoke_flags(flags, valid);
  if (!flags.watch.empty()) {
    try {
      valid.watch = parse_timeout(flags.watch);
    } catch (const UsageError&) { // its message names --timeout
      throw UsageError(
          fmt::format("--watch \"{}\": must be a positive duration such as 90s, 10m or 1h", flags.watch));
    }
    if (!flags.from_files.empty()) throw UsageError("--watch: files do not change; it needs the live cluster");
    if (flags.smoke) throw UsageError("--watch: cannot be combined with --smoke");
  }
  return valid;
}

void use_verify_settings(ValidVerifyFlags& valid, const remedy::VerifySettings& settings) {
  valid.options.replicas = settings.replicas;
  valid.options.taint = settings.taint;
  valid.options.resource = settings.resource;
  valid.options.nodes = settings.nodes;
  valid.options.changed_at = settings.changed_at;
  if (!valid.smoke) return;
  valid.smoke->replicas = settings.replicas;
  valid.smoke->taint = settings.taint;
}

} // namespace gpuslice::cli
