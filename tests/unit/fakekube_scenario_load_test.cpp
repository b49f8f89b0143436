// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include <fstream>

#include <fakekube/server.hpp>
#include <fakekube/server_test_client.hpp>

using fakekube::parse_scenario;

namespace {

std::string error_of(const std::string& text, const std::string& origin = "s.yaml") {
  try {
    parse_scenario(text, origin);
  } catch (const std::runtime_error& error) {
    return error.what();
  }
  return "";
}

} // namespace

TEST_CASE("fakekube::parse_scenario") {
  SUBCASE("a kubectl List in JSON") {
    fakekube::Scenario s = parse_scenario(
        R"({"apiVersion":"v1","kind":"List","items":[
             {"apiVersion":"v1","kind":"Namespace","metadata":{"name":"ml"}},
             {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"ml"}}]})",
        "l.json");
    REQUIRE(s.objects.size() == 2);
    CHECK(s.objects[1]["kind"] == "ConfigMap");
    CHECK(s.users.empty());
    CHECK(s.server_version == "v1.30.4");
  }
  SUBCASE("multi-document YAML, Lists flattened, scalars typed like Kubernetes") {
    fakekube::Scenario s = parse_scenario(R"(
apiVersion: v1
kind: ConfigMap
metadata: {name: a, namespace: default}
data: {quoted: "1", flag: "true"}
---
---
apiVersion: v1
kind: List
items:
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: d, namespace: default}
  spec: {replicas: 3, paused: false, ratio: 0.5, note: ~}
)",
                                          "m.yaml");
    REQUIRE(s.objects.size() == 2);
    CHECK(s.objects[0]["data"]["quoted"] == "1");
    CHECK(s.objects[0]["data"]["flag"] == "true");
    CHECK(s.objects[1]["spec"]["replicas"] == 3);
    CHECK(s.objects[1]["spec"]["paused"] == false);
    CHECK(s.objects[1]["spec"]["ratio"] == 0.5);
    CHECK(s.objects[1]["spec"]["note"].is_null());
  }
  SUBCASE("settings form with users, faults, version and certificate fault") {
    fakekube::Scenario s = parse_scenario(R"(
serverVersion: v1.27.16
certificateFault: expired
users:
- {name: alice, groups: [dev, ops], token: t-alice, clientCertificate: true}
- {name: eks, token: "k8s-aws-v1.*"}
faults: {latencyMs: 5, tooManyRequestsEveryNth: 3, retryAfterSeconds: 2, serverErrorEveryNth: 4,
         serverErrorCode: 503, dropMidBodyEveryNth: 5, tokenTtlRequests: 6,
         conflictOnFirstUpdate: true, expireContinueTokens: true}
objects:
- apiVersion: v1
  kind: Namespace
  metadata: {name: ml}
)",
                                          "settings.yaml");
    CHECK(s.server_version == "v1.27.16");
    CHECK(s.certificate_fault == fakekube::CertificateFault::expired);
    REQUIRE(s.users.size() == 2);
    CHECK(s.users[0].groups == std::vector<std::string>{"dev", "ops"});
    CHECK(s.users[0].client_certificate);
    CHECK(s.users[1].token == "k8s-aws-v1.*");
    CHECK(s.transport_faults.latency_ms == 5);
    CHECK(s.transport_faults.too_many_every_nth == 3);
    CHECK(s.transport_faults.retry_after_seconds == 2);
    CHECK(s.transport_faults.server_error_every_nth == 4);
    CHECK(s.transport_faults.server_error_is_503);
    CHECK(s.transport_faults.drop_mid_body_every_nth == 5);
    CHECK(s.transport_faults.token_ttl_requests == 6);
    CHECK(s.api_faults.conflict_on_first_update);
    CHECK(s.api_faults.expire_continue_tokens);
    CHECK(s.objects.size() == 1);
  }
  SUBCASE("bad input names the file and the problem") {
    CHECK(error_of("").find("s.yaml: empty scenario") == 0);
    CHECK(error_of("a: [1, 2").find("s.yaml: invalid YAML") == 0);
    CHECK(error_of("{\"kind\": ", "x.json").find("x.json: invalid JSON") == 0);
    CHECK(error_of("apiVersion: v1\nmetadata: {name: a}\n") ==
          "s.yaml: document 1: object has no kind");
    CHECK(error_of("apiVersion: v1\nkind: Pod\nmetadata: {}\n") ==
          "s.yaml: document 1: Pod has no metadata.name");
    CHECK(error_of("objects: []\nfautls: {}\n") == "s.yaml: scenario: unknown key \"fautls\"");
    CHECK(error_of("objects: []\nfaults: {latencyMs: fast}\n") ==
          "s.yaml: faults.latencyMs: wrong type (string)");
    CHECK(error_of("objects: []\nfaults: {serverErrorCode: 502}\n") ==
          "s.yaml: faults.serverErrorCode: must be 500 or 503");
    CHECK(error_of("objects: []\nusers: [{groups: [a]}]\n") == "s.yaml: users[0]: name is required");
    CHECK(error_of("objects: []\ncertificateFault: sometimes\n").find("certificateFault") !=
          std::string::npos);
    CHECK(error_of("- 1\n- 2\n") == "s.yaml: document 1[0]: expected a Kubernetes object, got number");
  }
}

TEST_CASE("fakekube::load_scenario") {
  SUBCASE("a missing file is named") {
    CHECK_THROWS_WITH_AS(fakekube::load_scenario("/nonexistent/scenario.yaml"),
                         "/nonexistent/scenario.yaml: cannot read scenario file", std::runtime_error);
  }
  SUBCASE("reads from disk") {
    fakekube::TempDir dir;
    std::filesystem::path file = dir.path() / "one.yaml";
    std::ofstream(file) << "apiVersion: v1\nkind: Namespace\nmetadata: {name: x}\n";
    CHECK(fakekube::load_scenario(file).objects.size() == 1);
  }
}

TEST_CASE("fakekube::default_admin_user") {
  fakekube::User a = fakekube::default_admin_user();
  fakekube::User b = fakekube::default_admin_user();
  CHECK(a.name == "admin");
  CHECK(a.groups == std::vector<std::string>{"system:masters"});
  CHECK(a.client_certificate);
  CHECK(a.token.size() > 20);
  CHECK(a.token != b.token); // random, so a leaked test kubeconfig is no standing credential
}
