// SPDX-License-Identifier: Apache-2.0
#include <algorithm>

#include <fmt/format.h>

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

std::vector<std::string> report_changes(const VerifyReport& before, const VerifyReport& after) {
  std::vector<std::string> out;
  for (const CheckRow& row : after.rows) {
    const auto was = std::find_if(before.rows.begin(), before.rows.end(),
                                  [&](const CheckRow& r) { return r.check == row.check && r.object == row.object; });
    const std::string detail = row.detail.empty() ? "" : ": " + row.detail;
    if (was == before.rows.end()) {
      out.push_back(fmt::format("{} {}: new, {} ({}, want {}){}", row.object, row.check, to_string(row.result),
                                row.actual, row.expected, detail));
    } else if (was->result != row.result) {
      out.push_back(fmt::format("{} {}: {} -> {} ({}){}", row.object, row.check, to_string(was->result),
                                to_string(row.result), row.actual, row.result == CheckResult::pass ? "" : detail));
    }
  }
  return out;
}

} // namespace gpuslice::remedy
