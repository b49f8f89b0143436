// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include <chrono>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include <fakekube/server.hpp>
#include <fakekube/server_test_client.hpp>

namespace {

fakekube::Scenario one_user() {
  fakekube::Scenario s;
  s.users = {{"alice", {"system:masters"}, "t-alice", "", false}};
  return s;
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

} // namespace

TEST_CASE("fakekube::Server::set_transport_faults") {
  fakekube::Server server(one_user());
  server.start(0);
  fakekube::TempDir dir;
  auto client = make_test_client(server, dir);
  client->set_bearer_token_auth("t-alice");
  fakekube::TransportFaults faults;

  SUBCASE("latency") {
    faults.latency_ms = 150;
    server.set_transport_faults(faults);
    auto start = std::chrono::steady_clock::now();
    httplib::Result result = client->Get("/version");
    REQUIRE(result);
    CHECK(result->status == 200);
    CHECK(std::chrono::steady_clock::now() - start >= std::chrono::milliseconds(150));
  }
  SUBCASE("429 with Retry-After every Nth request, as plain text like APF") {
    faults.too_many_every_nth = 2;
    faults.retry_after_seconds = 7;
    server.set_transport_faults(faults);
    int throttled = 0;
    for (int i = 0; i < 6; ++i) {
      httplib::Result result = client->Get("/version");
      REQUIRE(result);
      if (result->status == 429) {
        ++throttled;
        CHECK(result->get_header_value("Retry-After") == "7");
        CHECK(result->body == "Too many requests, please try again later.\n");
        CHECK(result->get_header_value("Content-Type").find("text/plain") == 0);
      } else {
        CHECK(result->status == 200);
      }
    }
    CHECK(throttled == 3);
  }
  SUBCASE("503 every Nth request, as a Status") {
    faults.server_error_every_nth = 3;
    faults.server_error_is_503 = true;
    server.set_transport_faults(faults);
    int failed = 0;
    for (int i = 0; i < 6; ++i) {
      httplib::Result result = client->Get("/version");
      REQUIRE(result);
      if (result->status != 200) {
        ++failed;
        CHECK(result->status == 503);
        CHECK(nlohmann::json::parse(result->body)["reason"] == "ServiceUnavailable");
      }
    }
    CHECK(failed == 2);
    CHECK(server.request_log().back().status == 503);
  }
  SUBCASE("500 every request") {
    faults.server_error_every_nth = 1;
    server.set_transport_faults(faults);
    httplib::Result result = client->Get("/version");
    REQUIRE(result);
    CHECK(result->status == 500);
    CHECK(nlohmann::json::parse(result->body)["reason"] == "InternalError");
  }
  SUBCASE("connection dropped mid-body") {
    faults.drop_mid_body_every_nth = 1;
    server.set_transport_faults(faults);
    httplib::Result result = client->Get("/version");
    CHECK_FALSE(result); // fewer bytes than Content-Length promised, then EOF
    faults.drop_mid_body_every_nth = 0;
    server.set_transport_faults(faults);
    auto fresh = make_test_client(server, dir);
    fresh->set_bearer_token_auth("t-alice");
    httplib::Result after = fresh->Get("/version");
    REQUIRE(after);
    CHECK(after->status == 200);
  }
  SUBCASE("token expiry after N requests, then a new token in the token file") {
    std::filesystem::path kubeconfig = dir.path() / "kc";
    server.write_kubeconfig(kubeconfig, "alice", fakekube::KubeconfigAuth::token_file);
    CHECK(read_file(kubeconfig.string() + ".token") == "t-alice\n");
    faults.token_ttl_requests = 2;
    server.set_transport_faults(faults);
    CHECK(client->Get("/version")->status == 200);
    CHECK(client->Get("/version")->status == 200);
    CHECK(client->Get("/version")->status == 401);
    CHECK(client->Get("/version")->status == 401); // stays expired
    std::string rotated = server.users().front().token;
    CHECK(rotated != "t-alice");
    CHECK(read_file(kubeconfig.string() + ".token") == rotated + "\n");
    client->set_bearer_token_auth(rotated);
    CHECK(client->Get("/version")->status == 200);
  }
}
