// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include <chrono>
#include <thread>

#include <zlib.h>

#include <nlohmann/json.hpp>

#include <fakekube/server.hpp>
#include <fakekube/server_test_client.hpp>

#include "server_response.hpp"

namespace {

using Clock = std::chrono::steady_clock;

fakekube::Scenario scenario_with_configmaps(int count, std::size_t bytes_each) {
  fakekube::Scenario s;
  s.users = {{"alice", {"system:masters"}, "t-alice", "", false}};
  for (int i = 0; i < count; ++i)
    s.objects.push_back({{"apiVersion", "v1"},
                         {"kind", "ConfigMap"},
                         {"metadata", {{"name", "cm-" + std::to_string(i)}, {"namespace", "default"}}},
                         {"data", {{"blob", std::string(bytes_each, 'x')}}}});
  return s;
}

std::string gunzip(const std::string& data) {
  z_stream stream{};
  REQUIRE(inflateInit2(&stream, 15 + 16) == Z_OK);
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  stream.avail_in = static_cast<uInt>(data.size());
  std::string out;
  char buffer[65536];
  int result = Z_OK;
  while (result == Z_OK) {
    stream.next_out = reinterpret_cast<Bytef*>(buffer);
    stream.avail_out = sizeof buffer;
    result = inflate(&stream, Z_NO_FLUSH);
    out.append(buffer, sizeof buffer - stream.avail_out);
  }
  inflateEnd(&stream);
  REQUIRE(result == Z_STREAM_END);
  return out;
}

} // namespace

TEST_CASE("fakekube::write_whole (gzip above 128 KiB)") {
  fakekube::Server server(scenario_with_configmaps(200, 1024));
  server.start(0);
  fakekube::TempDir dir;
  auto client = make_test_client(server, dir);
  client->set_bearer_token_auth("t-alice");
  client->set_decompress(false);

  SUBCASE("a large list is gzipped when the client accepts it") {
    httplib::Result plain = client->Get("/api/v1/namespaces/default/configmaps");
    REQUIRE(plain);
    REQUIRE(plain->status == 200);
    REQUIRE(plain->body.size() > 128 * 1024);
    CHECK_FALSE(plain->has_header("Content-Encoding"));
    httplib::Result zipped =
        client->Get("/api/v1/namespaces/default/configmaps", {{"Accept-Encoding", "gzip"}});
    REQUIRE(zipped);
    CHECK(zipped->get_header_value("Content-Encoding") == "gzip");
    CHECK(zipped->body.size() < plain->body.size() / 10);
    nlohmann::json list = nlohmann::json::parse(gunzip(zipped->body));
    CHECK(list["items"].size() == 200);
  }
  SUBCASE("a small body is not compressed, whatever the client accepts") {
    httplib::Result small =
        client->Get("/api/v1/namespaces/default/configmaps/cm-1", {{"Accept-Encoding", "gzip, br"}});
    REQUIRE(small);
    CHECK(small->status == 200);
    CHECK_FALSE(small->has_header("Content-Encoding"));
    CHECK(nlohmann::json::parse(small->body)["metadata"]["name"] == "cm-1");
  }
}

TEST_CASE("fakekube::write_watch") {
  fakekube::Server server(scenario_with_configmaps(1, 10));
  server.start(0);
  fakekube::TempDir dir;
  auto client = make_test_client(server, dir);
  client->set_bearer_token_auth("t-alice");

  Clock::time_point start = Clock::now();
  std::string received;
  Clock::time_point added_at{};
  std::thread creator([&server] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    fakekube::ApiRequest create;
    create.method = "POST";
    create.path = "/api/v1/namespaces/default/configmaps";
    create.content_type = "application/json";
    create.body = R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"arrived"}})";
    create.identity = {"alice", {"system:masters"}};
    server.api().handle(create);
  });
  // Gzip is requested on purpose: a watch must still stream event by event.
  httplib::Result result = client->Get(
      "/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=3",
      {{"Accept-Encoding", "gzip"}},
      [&](const char* data, std::size_t size) {
        received.append(data, size);
        if (added_at == Clock::time_point{} && received.find("\"arrived\"") != std::string::npos)
          added_at = Clock::now();
        return true;
      });
  creator.join();
  REQUIRE(result);
  CHECK(result->status == 200);
  CHECK_FALSE(result->has_header("Content-Encoding"));
  CHECK(result->get_header_value("Transfer-Encoding") == "chunked");
  REQUIRE(added_at != Clock::time_point{});
  // The event arrived while the watch was open, not when it closed after timeoutSeconds.
  CHECK(added_at - start < std::chrono::milliseconds(2500));
  bool saw_added = false;
  std::size_t begin = 0;
  for (std::size_t end; (end = received.find('\n', begin)) != std::string::npos; begin = end + 1) {
    nlohmann::json event = nlohmann::json::parse(received.substr(begin, end - begin));
    if (event["type"] == "ADDED" && event["object"]["metadata"]["name"] == "arrived") saw_added = true;
  }
  CHECK(saw_added);
}

TEST_CASE("fakekube: API Priority and Fairness response headers") {
  fakekube::Scenario scenario = scenario_with_configmaps(1, 8);
  SUBCASE("sent on every authenticated response by default, with stable UIDs") {
    fakekube::Server server(scenario);
    server.start(0);
    fakekube::TempDir dir;
    auto client = make_test_client(server, dir);
    client->set_bearer_token_auth("t-alice");
    for (const char* path : {"/version", "/api/v1/namespaces/default/configmaps", "/api/v1/nodes/none"}) {
      httplib::Result result = client->Get(path);
      REQUIRE(result);
      CHECK(result->get_header_value("X-Kubernetes-PF-FlowSchema-UID") == fakekube::k_flow_schema_uid);
      CHECK(result->get_header_value("X-Kubernetes-PF-PriorityLevel-UID") == fakekube::k_priority_level_uid);
    }
    client->set_bearer_token_auth("wrong");
    httplib::Result refused = client->Get("/version"); // authentication runs before APF
    REQUIRE(refused);
    CHECK(refused->status == 401);
    CHECK_FALSE(refused->has_header("X-Kubernetes-PF-FlowSchema-UID"));
  }
  SUBCASE("never sent by a server without APF") {
    scenario.priority_and_fairness = false;
    fakekube::Server server(scenario);
    server.start(0);
    fakekube::TempDir dir;
    auto client = make_test_client(server, dir);
    client->set_bearer_token_auth("t-alice");
    httplib::Result result = client->Get("/version");
    REQUIRE(result);
    CHECK(result->status == 200);
    CHECK_FALSE(result->has_header("X-Kubernetes-PF-FlowSchema-UID"));
    CHECK_FALSE(result->has_header("X-Kubernetes-PF-PriorityLevel-UID"));
  }
}
