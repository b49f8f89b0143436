// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include <gpuslice/report.hpp>

using namespace gpuslice;

namespace {

diagnose::Diagnosis incident_for_markdown() {
  diagnose::Diagnosis d;
  diagnose::Finding f = diagnose::make_finding(diagnose::FindingCode::GS300, "4 GPU pods Pending | no sharing");
  f.evidence = {"node gpu-1: 1 × T4"};
  f.remedy = {"Enable time-slicing.", "kubectl gpuslice apply --replicas 4"};
  d.findings.push_back(f);
  d.findings.push_back(diagnose::make_finding(diagnose::FindingCode::GS501, "1 GPU node untainted"));
  diagnose::NodeInventory n;
  n.name = "gpu-1";
  n.physical_gpus = 1;
  n.allocatable = 1;
  n.requested = 1;
  n.taints = {"nvidia.com/gpu=present:NoSchedule"};
  d.nodes.push_back(n);
  diagnose::PendingPod p;
  p.ns = "ml";
  p.name = "infer-0";
  p.resource = "nvidia.com/gpu";
  p.gpu_request = 1;
  p.scheduler.message = "0/9 nodes are available: 3 Insufficient nvidia.com/gpu.";
  d.pending_pods.push_back(p);
  return d;
}

} // namespace

TEST_CASE("report::render_diagnosis_markdown") {
  const std::string md = report::render_diagnosis_markdown(incident_for_markdown(), {"prod", "https://k"});
  CHECK(md.rfind("## GPU diagnosis: 1 GPU pod(s) Pending (context `prod`)\n", 0) == 0);
  CHECK(md.find("**1 error(s), 1 warning(s), 0 info**") != std::string::npos);
  SUBCASE("a pipe inside a summary does not break the findings table") {
    CHECK(md.find("| error | GS300 time-slicing-disabled | 4 GPU pods Pending \\| no sharing |") != std::string::npos);
  }
  SUBCASE("each finding has a section with evidence and a fenced fix command") {
    CHECK(md.find("### GS300 time-slicing-disabled (error)") != std::string::npos);
    CHECK(md.find("- node gpu-1: 1 × T4\n") != std::string::npos);
    CHECK(md.find("```sh\nkubectl gpuslice apply --replicas 4\n```") != std::string::npos);
  }
  SUBCASE("node and pending pod tables") {
    CHECK(md.find("| gpu-1 |  |  | 1 | 1 | 1 | 1 | 0 | nvidia.com/gpu=present:NoSchedule |") != std::string::npos);
    CHECK(md.find("| ml/infer-0 | 1 nvidia.com/gpu | 0/9 nodes are available: 3 Insufficient nvidia.com/gpu. | — |") !=
          std::string::npos);
  }
  SUBCASE("no findings says so") {
    CHECK(report::render_diagnosis_markdown({}, {}).find("No findings.") != std::string::npos);
  }
}

TEST_CASE("report::parse_document_format") {
  CHECK(report::parse_document_format("markdown") == report::DocumentFormat::markdown);
  CHECK(report::parse_document_format("md") == report::DocumentFormat::markdown);
  CHECK(report::parse_document_format("junit") == report::DocumentFormat::junit);
  CHECK_FALSE(report::parse_document_format("json"));
  SUBCASE("every name diagnose's -o offers parses as one format or the other") {
    for (const std::string& name : report::output_format_names()) {
      CHECK_MESSAGE((report::parse_format(name) || report::parse_document_format(name)), name);
    }
  }
}
