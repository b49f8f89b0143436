// SPDX-License-Identifier: Apache-2.0
// -v logging like kubectl's, User-Agent, gzip — and no secret in any log level's output.
#include <doctest/doctest.h>

#include <gpuslice/version.hpp>

#include "kube/base64.hpp"
#include "unit/kube_fakekube_support.hpp"

using fakekube::KubeconfigAuth;
using gpuslice::kube::ApiError;
using namespace kube_test;

TEST_CASE("kube::Client -v logging") {
  Cluster cluster(default_scenario(600));
  SUBCASE("-v=6: request line, status and latency; nothing more") {
    auto client = cluster.admin(6);
    client->server_version();
    const std::string log = cluster.log.str();
    CHECK(log.find("GET " + cluster.server.url() + "/version 200 OK in ") == 0);
    CHECK(log.find("milliseconds") != std::string::npos);
    CHECK(log.find("Request Headers") == std::string::npos);
  }
  SUBCASE("-v=7: request headers with Authorization masked, and our User-Agent") {
    auto client = cluster.admin(7);
    client->server_version();
    const std::string log = cluster.log.str();
    CHECK(log.find("    Authorization: Bearer <masked>") != std::string::npos);
    CHECK(log.find(std::string("    User-Agent: kubectl-gpuslice/") + gpuslice::k_version + " (linux/amd64)") !=
          std::string::npos);
    CHECK(log.find("Response Body") == std::string::npos);
  }
  SUBCASE("-v=8: response headers and bodies cut at 1024 characters; large lists arrive gzipped") {
    auto client = cluster.admin(8);
    const nlohmann::json items = client->list_items(k_pods, {"gpu", "", "", 0, ""});
    CHECK(items.size() == 600);
    const std::string log = cluster.log.str();
    CHECK(log.find("Response Headers:") != std::string::npos);
    CHECK(log.find("content-encoding: gzip") != std::string::npos);
    const std::size_t body = log.find("Response Body: ");
    REQUIRE(body != std::string::npos);
    const std::size_t cut = log.find(" [truncated ", body);
    REQUIRE(cut != std::string::npos);
    CHECK(cut - body - std::string("Response Body: ").size() == 1024);
  }
  SUBCASE("--as/--as-group become impersonation headers (seen at -v=7)") {
    gpuslice::kube::GlobalOptions options;
    options.as_user = "jane";
    options.as_groups = {"gpu-admins", "ops"};
    auto client = cluster.client(cluster.endpoint("admin", KubeconfigAuth::token, options), 7);
    client->get_raw("/version");
    const std::string log = cluster.log.str();
    CHECK(log.find("    Impersonate-User: jane") != std::string::npos);
    CHECK(log.find("    Impersonate-Group: gpu-admins\n    Impersonate-Group: ops") != std::string::npos);
  }
  SUBCASE("-v=0 logs nothing") {
    auto client = cluster.admin(0);
    client->server_version();
    CHECK(cluster.log.str().empty());
  }
}

TEST_CASE("kube::Client never logs a secret") {
  Cluster cluster;
  const std::string token = "admin-token-s3cr3t";
  const std::string password = "admin-pa55word";
  const std::string basic = gpuslice::kube::base64_encode("admin:" + password);
  for (KubeconfigAuth auth : {KubeconfigAuth::token, KubeconfigAuth::token_file, KubeconfigAuth::basic,
                              KubeconfigAuth::client_cert_data, KubeconfigAuth::exec}) {
    for (int level = 0; level <= 10; ++level) {
      CAPTURE(static_cast<int>(auth));
      CAPTURE(level);
      cluster.log.str("");
      auto client = cluster.client(cluster.endpoint("admin", auth), level);
      client->server_version();
      client->list_items(k_pods, {"gpu", "", "", 1, ""});
      CHECK_THROWS_AS(client->get({k_pods, "gpu", "missing", ""}), ApiError);
      const std::string log = cluster.log.str();
      if (level >= 6) {
        CHECK_FALSE(log.empty());
      }
      CHECK(log.find(token) == std::string::npos);
      CHECK(log.find(password) == std::string::npos);
      CHECK(log.find(basic) == std::string::npos);
      CHECK(log.find("PRIVATE KEY") == std::string::npos);
      CHECK(log.find("k8s-aws-v1.") == std::string::npos);
    }
  }
}
