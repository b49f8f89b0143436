// SPDX-License-Identifier: Apache-2.0
#include <algorithm>

#include <gpuslice/remedy/verify.hpp>

#include "remedy/verify_checks.hpp"

namespace gpuslice::remedy {

std::string_view to_string(CheckResult result) {
  switch (result) {
  case CheckResult::pass: return "pass";
  case CheckResult::fail: return "fail";
  case CheckResult::unknown: return "unknown";
  case CheckResult::skipped: return "skipped";
  }
  return "unknown";
}

int VerifyReport::count(CheckResult result) const {
  return static_cast<int>(std::count_if(rows.begin(), rows.end(), [result](const CheckRow& r) { return r.result == result; }));
}

VerifyReport verify(const Snapshot& snapshot, const VerifyOptions& options) {
  VerifyReport report;
  verify_checks::check_gpu_nodes(snapshot, options, report.rows);
  verify_checks::check_workloads(snapshot, options, report.rows);
  verify_checks::check_pending(snapshot, options, report.rows);
  verify_checks::check_autoscaler(snapshot, options, report.rows);
  return report;
}

} // namespace gpuslice::remedy
