// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include <gpuslice/diagnose.hpp>

#include "unit/diagnose_corpus.hpp"

using gpuslice::diagnose::parse_autoscaler_status;

TEST_CASE("diagnose::parse_autoscaler_status") {
  SUBCASE("legacy text, cluster-wide only (AKS 2023)") {
    const auto p = parse_autoscaler_status(corpus::read_fixture("autoscaler-status/text-aks-2023.txt"));
    REQUIRE(p.value);
    CHECK(p.value->legacy_text);
    CHECK(p.value->time == "2023-11-29 13:34:29.001925665 +0000 UTC");
    CHECK(p.value->cluster_wide.health == "Healthy");
    CHECK(p.value->cluster_wide.ready == 1);
    CHECK(p.value->cluster_wide.resource_unready == 0);
    CHECK(p.value->cluster_wide.scale_up == "InProgress");
    CHECK(p.value->cluster_wide.scale_down == "NoCandidates");
    CHECK(p.value->node_groups.empty());
  }

  SUBCASE("legacy text with a node group (EKS 2021, before resourceUnready)") {
    const auto p = parse_autoscaler_status(corpus::read_fixture("autoscaler-status/text-eks-2021.txt"));
    REQUIRE(p.value);
    REQUIRE(p.value->node_groups.size() == 1);
    const auto& g = p.value->node_groups[0];
    CHECK(g.name == "eksctl-jmte-nodegroup-worker-a-16-NodeGroup-AU4DMCK46TW0");
    CHECK(g.health == "Healthy");
    CHECK(g.ready == 2);
    CHECK(g.resource_unready == -1);
    CHECK(g.cloud_provider_target == 8);
    CHECK(g.min_size == 0);
    CHECK(g.max_size == 8);
    CHECK(g.scale_up == "InProgress");
  }

  SUBCASE("YAML in struct order (CA 1.30-1.34) with backoff info") {
    const auto p = parse_autoscaler_status(corpus::read_fixture("autoscaler-status/yaml-struct-order.yaml"));
    REQUIRE(p.value);
    CHECK_FALSE(p.value->legacy_text);
    CHECK(p.value->autoscaler_status == "Running");
    CHECK(p.value->cluster_wide.registered == 11);
    CHECK(p.value->cluster_wide.unready == 2);
    CHECK(p.value->cluster_wide.resource_unready == 1);
    REQUIRE(p.value->node_groups.size() == 1);
    const auto& g = p.value->node_groups[0];
    CHECK(g.name == "sample-node-group");
    CHECK(g.max_size == 12);
    CHECK(g.min_size == 2);
    CHECK(g.cloud_provider_target == 8);
    CHECK(g.scale_up == "Backoff");
    CHECK(g.backoff_error_code == "QUOTA_EXCEEDED");
    CHECK(g.backoff_error_message.starts_with("Instance 'sample-node-group-40ce0341-t28s'"));
  }

  SUBCASE("YAML in alphabetical order with null times (CA ≥1.35)") {
    const auto p = parse_autoscaler_status(corpus::read_fixture("autoscaler-status/yaml-alphabetical.yaml"));
    REQUIRE(p.value);
    CHECK(p.value->time == "2023-12-21 00:00:00 +0000 UTC");
    CHECK(p.value->cluster_wide.ready == 0);
    CHECK(p.value->cluster_wide.scale_up.empty());
    CHECK(p.value->node_groups.empty());
  }

  SUBCASE("start-up map") {
    const auto p = parse_autoscaler_status(corpus::read_fixture("autoscaler-status/yaml-initializing.yaml"));
    REQUIRE(p.value);
    CHECK(p.value->autoscaler_status == "Initializing");
  }

  SUBCASE("bad input is a clear error, not a crash") {
    CHECK(parse_autoscaler_status("").error.find("empty") != std::string::npos);
    const auto broken = parse_autoscaler_status("clusterWide: [unclosed");
    CHECK_FALSE(broken.value);
    CHECK(broken.error.find("cluster-autoscaler status") != std::string::npos);
    const auto scalar = parse_autoscaler_status("just some words");
    CHECK_FALSE(scalar.value);
    const auto wrong_types = parse_autoscaler_status(
        "autoscalerStatus: Running\nnodeGroups: [{name: g, health: {minSize: many, maxSize: [1]}}]");
    REQUIRE(wrong_types.value);
    REQUIRE(wrong_types.value->node_groups.size() == 1);
    CHECK(wrong_types.value->node_groups[0].min_size == -1);
    CHECK(wrong_types.value->node_groups[0].max_size == -1);
  }
}

TEST_CASE("diagnose::parse_autoscaler_status never crashes on cut input") {
  // Cut maps are what a truncated `kubectl get -o yaml` paste gives; each prefix must parse
  // or be rejected with an error, never crash (run under ASan/UBSan in CI).
  int rejected = 0;
  for (const char* file : {"autoscaler-status/text-aks-2023.txt", "autoscaler-status/text-eks-2021.txt",
                           "autoscaler-status/yaml-struct-order.yaml", "autoscaler-status/yaml-alphabetical.yaml"}) {
    const std::string text = corpus::read_fixture(file);
    for (std::size_t n = 0; n <= text.size(); n += 3) {
      const auto parsed = parse_autoscaler_status(std::string_view(text).substr(0, n));
      if (!parsed.value) {
        CHECK_FALSE(parsed.error.empty());
        ++rejected;
      }
    }
  }
  CHECK(rejected > 0);
}
