// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include <chrono>
#include <fstream>

#include <nlohmann/json.hpp>

#include <fakekube/server.hpp>
#include <fakekube/server_test_client.hpp>
#include <tls.hpp>

namespace {

fakekube::Scenario users_scenario() {
  fakekube::Scenario s;
  s.users = {{"alice", {"dev"}, "t-alice", "", true},
             {"bob", {"ops"}, "", "bob-password", false},
             {"eks-user", {"eks"}, "k8s-aws-v1.*", "", false}};
  return s;
}

void check_unauthorized(const httplib::Result& result) {
  REQUIRE(result);
  CHECK(result->status == 401);
  nlohmann::json status = nlohmann::json::parse(result->body);
  CHECK(status["kind"] == "Status");
  CHECK(status["status"] == "Failure");
  CHECK(status["reason"] == "Unauthorized");
  CHECK(status["message"] == "Unauthorized");
  CHECK(status["code"] == 401);
}

} // namespace

TEST_CASE("fakekube::Server::start") {
  fakekube::Server server(users_scenario());
  server.start(0);
  fakekube::TempDir dir;
  CHECK(server.port() > 0);
  CHECK(server.url() == "https://127.0.0.1:" + std::to_string(server.port()));

  SUBCASE("bearer token") {
    auto client = make_test_client(server, dir);
    client->set_bearer_token_auth("t-alice");
    httplib::Result result = client->Get("/version");
    REQUIRE(result);
    CHECK(result->status == 200);
    CHECK(server.request_log().back().user == "alice");
  }
  SUBCASE("unknown token, missing credentials") {
    auto client = make_test_client(server, dir);
    client->set_bearer_token_auth("t-mallory");
    check_unauthorized(client->Get("/version"));
    auto anonymous = make_test_client(server, dir);
    check_unauthorized(anonymous->Get("/version"));
    CHECK(server.request_log().back().user == "");
    CHECK(server.request_log().back().status == 401);
  }
  SUBCASE("basic auth") {
    auto client = make_test_client(server, dir);
    client->set_basic_auth("bob", "bob-password");
    httplib::Result result = client->Get("/version");
    REQUIRE(result);
    CHECK(result->status == 200);
    CHECK(server.request_log().back().user == "bob");
    client->set_basic_auth("bob", "wrong");
    check_unauthorized(client->Get("/version"));
  }
  SUBCASE("EKS stand-in accepts any k8s-aws-v1. token") {
    auto client = make_test_client(server, dir);
    client->set_bearer_token_auth("k8s-aws-v1.aHR0cHM6Ly9zdHMuYW1hem9uYXdzLmNvbQ");
    httplib::Result result = client->Get("/version");
    REQUIRE(result);
    CHECK(result->status == 200);
    CHECK(server.request_log().back().user == "eks-user");
    client->set_bearer_token_auth("k8s-aws-v1.");
    check_unauthorized(client->Get("/version"));
  }
  SUBCASE("client certificate signed by the server's CA") {
    std::filesystem::path kubeconfig = dir.path() / "kc";
    server.write_kubeconfig(kubeconfig, "alice", fakekube::KubeconfigAuth::client_cert_files);
    auto client = make_test_client(server, dir, kubeconfig.string() + ".crt",
                                   kubeconfig.string() + ".key");
    httplib::Result result = client->Get("/version");
    REQUIRE(result);
    CHECK(result->status == 200);
    CHECK(server.request_log().back().user == "alice");
  }
  SUBCASE("a client certificate from another CA is refused with 401") {
    fakekube::CertificateAndKey other = fakekube::make_certificate_authority();
    fakekube::CertificateAndKey forged = fakekube::issue_client_certificate(other, "alice", {"system:masters"});
    std::ofstream(dir.path() / "f.crt") << forged.cert_pem;
    std::ofstream(dir.path() / "f.key") << forged.key_pem;
    auto client = make_test_client(server, dir, (dir.path() / "f.crt").string(),
                                   (dir.path() / "f.key").string());
    check_unauthorized(client->Get("/version"));
  }
}

TEST_CASE("fakekube::Server::request_log") {
  fakekube::Server server(users_scenario());
  server.start(0);
  fakekube::TempDir dir;
  auto client = make_test_client(server, dir);
  client->set_bearer_token_auth("t-alice");
  server.clear_request_log();
  httplib::Result result = client->Post("/api/v1/namespaces/default/configmaps?dryRun=All&fieldManager=t",
                                        R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}})",
                                        "application/json");
  REQUIRE(result);
  std::vector<fakekube::LoggedRequest> log = server.request_log();
  REQUIRE(log.size() == 1);
  CHECK(log[0].method == "POST");
  CHECK(log[0].path == "/api/v1/namespaces/default/configmaps");
  CHECK(log[0].query == "dryRun=All&fieldManager=t");
  CHECK(log[0].content_type == "application/json");
  CHECK(log[0].user == "alice");
  CHECK(log[0].status == result->status);
  server.clear_request_log();
  CHECK(server.request_log().empty());
}

TEST_CASE("fakekube::Server::stop") {
  SUBCASE("right after start, repeatedly (no hang when the listen loop has just begun)") {
    auto begin = std::chrono::steady_clock::now();
    for (int i = 0; i < 20; ++i) {
      fakekube::Server server(users_scenario());
      server.start(0);
      CHECK(server.port() > 0);
      server.stop();
    }
    // A hang would hit the test timeout; a slow stop (keep-alive waits) shows here.
    CHECK(std::chrono::steady_clock::now() - begin < std::chrono::seconds(10));
  }
  SUBCASE("a stopped server refuses connections") {
    fakekube::Server server(users_scenario());
    server.start(0);
    fakekube::TempDir dir;
    auto client = make_test_client(server, dir);
    client->set_bearer_token_auth("t-alice");
    REQUIRE(client->Get("/version"));
    server.stop();
    CHECK_FALSE(client->Get("/version"));
  }
}
