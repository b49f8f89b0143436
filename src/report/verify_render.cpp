// SPDX-License-Identifier: Apache-2.0
#include <gpuslice/report/verify.hpp>

#include <fmt/format.h>

namespace gpuslice::report {

namespace {

std::string verify_verdict_line(const remedy::VerifyReport& report, const remedy::VerifyOptions& options,
                                const ClusterInfo& cluster) {
  const std::string where = cluster.context.empty() ? std::string() : fmt::format(" (context {})", cluster.context);
  return fmt::format("{}: {} failed, {} passed, {} unknown, {} skipped for {} replica(s) per GPU{}",
                     report.passed() ? "VERIFIED" : "NOT VERIFIED", report.count(remedy::CheckResult::fail),
                     report.count(remedy::CheckResult::pass), report.count(remedy::CheckResult::unknown),
                     report.count(remedy::CheckResult::skipped), options.replicas, where);
}

} // namespace

nlohmann::ordered_json verify_to_json(const remedy::VerifyReport& report, const remedy::VerifyOptions& options,
                                      const ClusterInfo& cluster) {
  nlohmann::ordered_json out;
  out["apiVersion"] = "gpuslice/v1alpha1";
  out["kind"] = "Verification";
  out["cluster"] = {{"context", cluster.context}, {"server", cluster.server}};
  out["replicas"] = options.replicas;
  out["taint"] = options.taint ? nlohmann::ordered_json(model::to_string(*options.taint)) : nlohmann::ordered_json(nullptr);
  out["passed"] = report.passed();
  out["summary"] = {{"pass", report.count(remedy::CheckResult::pass)},
                    {"fail", report.count(remedy::CheckResult::fail)},
                    {"unknown", report.count(remedy::CheckResult::unknown)},
                    {"skipped", report.count(remedy::CheckResult::skipped)}};
  nlohmann::ordered_json checks = nlohmann::ordered_json::array();
  for (const remedy::CheckRow& row : report.rows) {
    checks.push_back({{"check", row.check},
                      {"object", row.object},
                      {"result", std::string(remedy::to_string(row.result))},
                      {"expected", row.expected},
                      {"actual", row.actual},
                      {"detail", row.detail}});
  }
  out["checks"] = std::move(checks);
  return out;
}

std::string render_verify(const remedy::VerifyReport& report, const remedy::VerifyOptions& options,
                          const ClusterInfo& cluster, Format format, const Style& style) {
  if (format == Format::json) return verify_to_json(report, options, cluster).dump(2) + "\n";
  if (format == Format::yaml) return to_yaml(verify_to_json(report, options, cluster));
  std::string out = paint(style, report.passed() ? "green" : "red", verify_verdict_line(report, options, cluster));
  out += "\n\n";
  TextTable table({"check", "object", "result", "expected", "actual", "detail"});
  for (const remedy::CheckRow& row : report.rows) {
    // Cells stay plain: colour codes would count toward the column widths.
    table.add_row({row.check, row.object, std::string(remedy::to_string(row.result)), row.expected, row.actual,
                   row.detail});
  }
  out += table.render(style);
  return out;
}

} // namespace gpuslice::report
