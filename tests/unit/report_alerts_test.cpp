// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <gpuslice/report.hpp>

using namespace gpuslice;

TEST_CASE("report::memory_alert_threshold") {
  CHECK(report::memory_alert_threshold(1) == doctest::Approx(0.75));
  CHECK(report::memory_alert_threshold(2) == doctest::Approx(0.75));
  CHECK(report::memory_alert_threshold(4) == doctest::Approx(0.875));
  CHECK(report::memory_alert_threshold(8) == doctest::Approx(0.9375));
  SUBCASE("more sharers, tighter threshold") {
    for (int r = 2; r < 64; ++r) CHECK(report::memory_alert_threshold(r + 1) >= report::memory_alert_threshold(r));
  }
}

TEST_CASE("report::prometheus_rule") {
  report::AlertRuleOptions options;
  options.replicas = 4;
  options.ns = "monitoring";
  options.labels = {{"release", "prom"}};
  const nlohmann::ordered_json rule = report::prometheus_rule(options);
  CHECK(rule["apiVersion"] == "monitoring.coreos.com/v1");
  CHECK(rule["kind"] == "PrometheusRule");
  CHECK(rule["metadata"]["namespace"] == "monitoring");
  CHECK(rule["metadata"]["labels"]["release"] == "prom");
  const nlohmann::ordered_json& rules = rule["spec"]["groups"][0]["rules"];
  REQUIRE(rules.size() == 4);
  SUBCASE("memory nearly full uses FB_USED and FB_FREE with the replicas' threshold") {
    CHECK(rules[0]["alert"] == "GpuMemoryNearlyFull");
    CHECK(rules[0]["expr"] == "DCGM_FI_DEV_FB_USED / (DCGM_FI_DEV_FB_USED + DCGM_FI_DEV_FB_FREE) > 0.875");
    CHECK(rules[0]["annotations"]["description"].get<std::string>().find("at 4 replicas one share is 25%") !=
          std::string::npos);
  }
  SUBCASE("saturation uses GPU_UTIL; absence of metrics is its own alert") {
    CHECK(rules[2]["expr"].get<std::string>().find("DCGM_FI_DEV_GPU_UTIL") != std::string::npos);
    CHECK(rules[3]["expr"] == "absent(DCGM_FI_DEV_GPU_UTIL)");
  }
  SUBCASE("the YAML keeps Prometheus templates as strings") {
    const std::string yaml = report::to_yaml(rule);
    CHECK(yaml.find("{{ $labels.Hostname }}") != std::string::npos);
    CHECK(yaml.find("kind: PrometheusRule") != std::string::npos);
  }
}
