// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <gpuslice/report.hpp>

using namespace gpuslice;

namespace {

std::size_t junit_count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

} // namespace

TEST_CASE("report::render_diagnosis_junit") {
  diagnose::Diagnosis d;
  diagnose::Finding a = diagnose::make_finding(diagnose::FindingCode::GS600, "Deployment ml/a lacks <toleration> & more");
  a.remedy = {"Tolerate the taint.", "kubectl gpuslice workloads tolerate"};
  diagnose::Finding b = diagnose::make_finding(diagnose::FindingCode::GS600, "Deployment ml/b lacks it");
  diagnose::Finding info = diagnose::make_finding(diagnose::FindingCode::GS701, "MIG capable");
  d.findings = {a, b, info};
  const std::string xml = report::render_diagnosis_junit(d, {"prod", ""});
  const std::size_t checks = diagnose::catalog().size();

  SUBCASE("one test case per catalog check") {
    CHECK(junit_count_of(xml, "<testcase ") == checks);
    CHECK(xml.find(fmt::format("tests=\"{}\" failures=\"1\"", checks)) != std::string::npos);
  }
  SUBCASE("a failure per error or warning finding, typed by severity, escaped") {
    CHECK(junit_count_of(xml, "<failure ") == 2);
    CHECK(xml.find("<testcase classname=\"gpuslice.workloads\" name=\"GS600 workload-lacks-gpu-toleration\">") !=
          std::string::npos);
    CHECK(xml.find("type=\"error\" message=\"Deployment ml/a lacks &lt;toleration&gt; &amp; more\"") !=
          std::string::npos);
    CHECK(xml.find("  $ kubectl gpuslice workloads tolerate") != std::string::npos);
  }
  SUBCASE("info findings do not fail the check; they go to system-out") {
    CHECK(xml.find("<system-out>MIG capable") != std::string::npos);
  }
  SUBCASE("passing checks are empty test cases") {
    CHECK(xml.find("<testcase classname=\"gpuslice.sharing\" name=\"GS300 time-slicing-disabled\"/>") !=
          std::string::npos);
  }
  SUBCASE("a clean diagnosis has no failures") {
    const std::string clean = report::render_diagnosis_junit({}, {});
    CHECK(junit_count_of(clean, "<failure") == 0);
    CHECK(clean.find("failures=\"0\"") != std::string::npos);
  }
}
