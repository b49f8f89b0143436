// SPDX-License-Identifier: Apache-2.0
// diagnose -o junit: CI systems read JUnit XML natively, so a pipeline can gate on a GPU
// check the way popeye's junit output allows. One test case per catalog check, so a passing
// check shows up as a passed test and the count of tests is stable from run to run.
#include <map>

#include <fmt/format.h>

#include <gpuslice/report.hpp>

namespace gpuslice::report {

namespace {

using diagnose::Finding;
using diagnose::Severity;

// XML attribute and text escaping; control characters other than tab/newline are dropped
// (XML 1.0 cannot carry them at all).
std::string junit_escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
    case '&': out += "&amp;"; break;
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    case '"': out += "&quot;"; break;
    case '\'': out += "&apos;"; break;
    default:
      if (static_cast<unsigned char>(c) >= 0x20 || c == '\n' || c == '\t') out += c;
    }
  }
  return out;
}

// The area a code belongs to (its hundreds), as DESIGN §4.2 groups them.
std::string junit_area(diagnose::FindingCode code) {
  switch (static_cast<int>(code) / 100) {
  case 1: return "scheduling";
  case 2: return "autoscaler";
  case 3: return "sharing";
  case 4: return "device-plugin";
  case 5: return "nodes";
  case 6: return "workloads";
  case 7: return "observability";
  case 8: return "dra";
  }
  return "other";
}

std::string junit_failure_body(const Finding& f) {
  std::string body;
  for (const std::string& e : f.evidence) body += e + "\n";
  if (!f.remedy.text.empty()) body += "fix: " + f.remedy.text + "\n";
  if (!f.remedy.command.empty()) body += "  $ " + f.remedy.command + "\n";
  return body;
}

} // namespace

std::string render_diagnosis_junit(const diagnose::Diagnosis& d, const ClusterInfo& cluster) {
  std::map<diagnose::FindingCode, std::vector<const Finding*>> by_code;
  for (const Finding& f : d.findings) by_code[f.code].push_back(&f);

  std::string cases;
  std::size_t failed_cases = 0;
  for (const diagnose::CatalogEntry& entry : diagnose::catalog()) {
    const std::vector<const Finding*>& found = by_code[entry.code];
    std::string failures;
    std::string info;
    for (const Finding* f : found) {
      if (f->severity == Severity::info) {
        info += f->summary + "\n" + junit_failure_body(*f);
        continue;
      }
      failures += fmt::format("      <failure type=\"{}\" message=\"{}\">{}</failure>\n",
                              diagnose::to_string(f->severity), junit_escape(f->summary),
                              junit_escape(junit_failure_body(*f)));
    }
    if (!failures.empty()) ++failed_cases;
    const std::string open = fmt::format("    <testcase classname=\"gpuslice.{}\" name=\"{} {}\"",
                                         junit_area(entry.code), diagnose::to_string(entry.code), entry.name);
    if (failures.empty() && info.empty()) {
      cases += open + "/>\n";
    } else {
      cases += open + ">\n" + failures;
      if (!info.empty()) cases += "      <system-out>" + junit_escape(info) + "</system-out>\n";
      cases += "    </testcase>\n";
    }
  }
  const std::string suite = cluster.context.empty() ? std::string("kubectl-gpuslice diagnose")
                                                    : "kubectl-gpuslice diagnose " + cluster.context;
  const std::size_t tests = diagnose::catalog().size();
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format("<testsuites name=\"kubectl-gpuslice\" tests=\"{}\" failures=\"{}\" errors=\"0\">\n", tests,
                     failed_cases);
  out += fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"0\">\n",
                     junit_escape(suite), tests, failed_cases);
  out += cases;
  out += "  </testsuite>\n</testsuites>\n";
  return out;
}

} // namespace gpuslice::report
