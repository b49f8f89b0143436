// SPDX-License-Identifier: Apache-2.0
#include "cli/verify_options.hpp"

#include <fmt/format.h>

#include <gpuslice/error.hpp>

#include "cli/output_flags.hpp"

namespace gpuslice::cli {

void add_verify_flags(CLI::App& sub, VerifyFlags& flags) {
  sub.add_option("--replicas", flags.replicas, "Time-slicing replicas per GPU the cluster should have (1 = not shared)")
      ->required();
  sub.add_option("--taint", flags.taint,
                 "GPU taint KEY=VALUE:EFFECT that GPU nodes should carry and GPU workloads tolerate");
  sub.add_option("--was-pending", flags.was_pending, "Pods (NAMESPACE/NAME) that were Pending before the change")
      ->delimiter(',');
  add_output_flag(sub, flags.output);
  sub.add_option("-f,--from-file", flags.from_files, "Read a snapshot or kubectl output instead of the cluster")
      ->delimiter(',');
}

ValidVerifyFlags validate_verify_flags(const VerifyFlags& flags) {
  ValidVerifyFlags valid;
  valid.format = output_format(flags.output);
  if (flags.replicas < 1 || flags.replicas > 128) // 128: as diagnose and apply; beyond it, a typo
    throw UsageError(
        fmt::format("--replicas {}: must be from 1 to 128 (the replicas per GPU to verify)", flags.replicas));
  valid.options.replicas = flags.replicas;
  if (!flags.taint.empty()) {
    const std::optional<model::Taint> taint = model::parse_taint(flags.taint);
    if (!taint || taint->effect.empty())
      throw UsageError(fmt::format("--taint \"{}\": must be KEY=VALUE:EFFECT with effect NoSchedule, "
                                   "PreferNoSchedule or NoExecute",
                                   flags.taint));
    valid.options.taint = *taint;
  }
  for (const std::string& pod : flags.was_pending) {
    const std::size_t slash = pod.find('/');
    if (slash == std::string::npos || slash == 0 || slash + 1 == pod.size() || pod.find('/', slash + 1) != std::string::npos)
      throw UsageError(fmt::format("--was-pending \"{}\": must be NAMESPACE/NAME", pod));
    valid.options.formerly_pending.push_back(pod);
  }
  return valid;
}

} // namespace gpuslice::cli
