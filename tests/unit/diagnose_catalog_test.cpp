// SPDX-License-Identifier: Apache-2.0
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <doctest/doctest.h>

#include <gpuslice/diagnose.hpp>

using namespace gpuslice::diagnose;

namespace {

// Copied by hand from DESIGN.md §4.2 (code, name, severity): the contract the table must match.
const std::vector<std::tuple<std::string, std::string, std::string>> k_design = {
    {"GS100", "gpu-pods-pending", "error"},
    {"GS101", "insufficient-gpu", "error"},
    {"GS102", "untolerated-gpu-taint", "error"},
    {"GS103", "gpu-selector-mismatch", "error"},
    {"GS104", "gpu-resource-not-advertised", "error"},
    {"GS105", "gpu-resource-name-mismatch", "error"},
    {"GS200", "autoscaler-max-size-reached", "error"},
    {"GS201", "autoscaler-group-selector-mismatch", "warning"},
    {"GS202", "autoscaler-template-lacks-gpu", "error"},
    {"GS203", "autoscaler-backoff", "warning"},
    {"GS204", "autoscaler-blind-to-replicas", "warning"},
    {"GS300", "time-slicing-disabled", "error"},
    {"GS301", "gpu-slots-exhausted", "error"},
    {"GS302", "replicas-not-advertised", "error"},
    {"GS303", "non-gpu-pods-on-gpu-nodes", "warning"},
    {"GS304", "vram-oversubscription-risk", "info"},
    {"GS400", "device-plugin-missing", "error"},
    {"GS401", "device-plugin-not-on-all-gpu-nodes", "error"},
    {"GS402", "device-plugin-unhealthy", "error"},
    {"GS403", "time-slicing-config-invalid", "error"},
    {"GS404", "time-slicing-config-unused", "error"},
    {"GS405", "device-plugin-operator-managed", "info"},
    {"GS406", "multiple-device-plugins", "error"},
    {"GS407", "gpu-feature-discovery-missing", "warning"},
    {"GS408", "gpu-feature-discovery-labels-stale", "warning"},
    {"GS500", "gpu-node-missing-present-label", "warning"},
    {"GS501", "gpu-node-untainted", "warning"},
    {"GS502", "gpu-node-not-ready", "warning"},
    {"GS503", "gpu-node-advertises-nothing", "error"},
    {"GS600", "workload-lacks-gpu-toleration", "error"},
    {"GS601", "multi-gpu-request-time-sliced", "warning"},
    {"GS602", "selector-on-shared-product-label", "error"},
    {"GS603", "gpu-pods-failed-admission", "error"},
    {"GS700", "gpu-metrics-missing", "warning"},
    {"GS701", "mig-capable-gpu", "info"},
    {"GS800", "dra-claim-missing", "error"},
    {"GS801", "dra-device-class-missing", "error"},
    {"GS802", "dra-devices-unavailable", "error"},
    {"GS803", "dra-gpu-node-without-slices", "warning"},
    {"GS804", "dra-prepare-failed", "error"},
    {"GS805", "dra-autoscaler-unsupported", "error"},
    {"GS806", "dra-and-device-plugin-on-node", "error"},
    {"GS807", "dra-claim-pinned-elsewhere", "error"},
    {"GS808", "dra-template-sharing-per-pod", "error"},
};

} // namespace

TEST_CASE("diagnose::catalog") {
  SUBCASE("codes are unique and sorted") {
    std::set<int> seen;
    int previous = 0;
    for (const CatalogEntry& e : catalog()) {
      CHECK(seen.insert(static_cast<int>(e.code)).second);
      CHECK(static_cast<int>(e.code) > previous);
      previous = static_cast<int>(e.code);
      CHECK_FALSE(e.summary.empty());
    }
  }
  SUBCASE("each row equals DESIGN §4.2") {
    REQUIRE(catalog().size() == k_design.size());
    for (std::size_t i = 0; i < k_design.size(); ++i) {
      const CatalogEntry& e = catalog()[i];
      const auto& [code, name, severity] = k_design[i];
      CHECK(to_string(e.code) == code);
      CHECK(e.name == name);
      CHECK(to_string(e.severity) == severity);
    }
  }
}

TEST_CASE("diagnose::parse_finding_code") {
  SUBCASE("catalogued codes, any case") {
    CHECK(parse_finding_code("GS300") == FindingCode::GS300);
    CHECK(parse_finding_code("gs701") == FindingCode::GS701);
  }
  SUBCASE("anything else") {
    CHECK_FALSE(parse_finding_code("GS999"));
    CHECK_FALSE(parse_finding_code("GS30"));
    CHECK_FALSE(parse_finding_code("GS3000"));
    CHECK_FALSE(parse_finding_code("XX300"));
    CHECK_FALSE(parse_finding_code("GS+30"));
    CHECK_FALSE(parse_finding_code(""));
  }
}

TEST_CASE("diagnose::make_finding") {
  const Finding f = make_finding(FindingCode::GS304, "");
  CHECK(f.name == "vram-oversubscription-risk");
  CHECK(f.severity == Severity::info);
  CHECK(f.summary == catalog_entry(FindingCode::GS304).summary);
  CHECK(make_finding(FindingCode::GS100, "3 pods").summary == "3 pods");
}

TEST_CASE("diagnose::parse_severity") {
  CHECK(parse_severity("warning") == Severity::warning);
  CHECK_FALSE(parse_severity("fatal"));
  CHECK(Severity::error < Severity::info);
}
