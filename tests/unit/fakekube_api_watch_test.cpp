// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include <thread>

#include "fakekube_api_request.hpp"

using fakekube_test::Call;
using fakekube_test::pod;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

json next_event(fakekube::WatchStream& stream) {
  std::optional<std::string> line = stream.next(2000ms);
  REQUIRE(line.has_value());
  CHECK(line->back() == '\n');
  return json::parse(*line);
}

} // namespace

TEST_CASE("fakekube::open_watch") {
  fakekube::Api api;
  api.load(pod("default", "a", {{"app", "x"}}));
  SUBCASE("no resourceVersion: current state as ADDED, then changes") {
    auto reply = Call(api, "GET", "/api/v1/namespaces/default/pods").query("watch", "true").send();
    REQUIRE(reply.watch != nullptr);
    json added = next_event(*reply.watch);
    CHECK(added["type"] == "ADDED");
    CHECK(added["object"]["metadata"]["name"] == "a");
    CHECK_FALSE(reply.watch->next(50ms).has_value());
    std::thread writer([&] {
      std::this_thread::sleep_for(50ms);
      Call(api, "PATCH", "/api/v1/namespaces/default/pods/a")
          .json({{"metadata", {{"labels", {{"v", "2"}}}}}}, "application/merge-patch+json")
          .send();
      Call(api, "DELETE", "/api/v1/namespaces/default/pods/a").send();
    });
    json modified = next_event(*reply.watch);
    CHECK(modified["type"] == "MODIFIED");
    CHECK(modified["object"]["metadata"]["labels"]["v"] == "2");
    CHECK(next_event(*reply.watch)["type"] == "DELETED");
    writer.join();
  }
  SUBCASE("from a resourceVersion: only what came after") {
    const std::string rv = Call(api, "GET", "/api/v1/pods").send().body["metadata"]["resourceVersion"];
    Call(api, "POST", "/api/v1/namespaces/default/pods").json(pod("default", "b")).send();
    auto reply = Call(api, "GET", "/api/v1/pods").query("watch", "1").query("resourceVersion", rv).send();
    json event = next_event(*reply.watch);
    CHECK(event["type"] == "ADDED");
    CHECK(event["object"]["metadata"]["name"] == "b");
  }
  SUBCASE("selectors: leaving the selection is DELETED for the watcher") {
    const std::string rv = Call(api, "GET", "/api/v1/pods").send().body["metadata"]["resourceVersion"];
    auto reply = Call(api, "GET", "/api/v1/pods")
                     .query("watch", "1")
                     .query("resourceVersion", rv)
                     .query("labelSelector", "app=x")
                     .send();
    Call(api, "PATCH", "/api/v1/namespaces/default/pods/a")
        .json({{"metadata", {{"labels", {{"app", "y"}}}}}}, "application/merge-patch+json")
        .send();
    CHECK(next_event(*reply.watch)["type"] == "DELETED");
    Call(api, "POST", "/api/v1/namespaces/default/pods").json(pod("default", "other", {{"app", "z"}})).send();
    CHECK_FALSE(reply.watch->next(50ms).has_value());
  }
  SUBCASE("too old resourceVersion: one ERROR event with a 410 Status") {
    json items = json::array();
    for (int i = 0; i < 10050; ++i) {
      items.push_back({{"apiVersion", "v1"}, {"kind", "ConfigMap"},
                       {"metadata", {{"name", "c" + std::to_string(i)}, {"namespace", "default"}}}});
    }
    api.load(items);
    auto reply = Call(api, "GET", "/api/v1/pods").query("watch", "1").query("resourceVersion", "2").send();
    CHECK(reply.status == 200);
    json event = next_event(*reply.watch);
    CHECK(event["type"] == "ERROR");
    CHECK(event["object"]["code"] == 410);
    CHECK(event["object"]["reason"] == "Expired");
    CHECK(event["object"]["message"].get<std::string>().rfind("too old resource version: 2 (", 0) == 0);
    CHECK(reply.watch->finished());
  }
  SUBCASE("timeoutSeconds ends the stream") {
    auto reply = Call(api, "GET", "/api/v1/pods").query("watch", "1").query("timeoutSeconds", "1").send();
    next_event(*reply.watch);
    CHECK_FALSE(reply.watch->finished());
    std::this_thread::sleep_for(1100ms);
    CHECK_FALSE(reply.watch->next(10ms).has_value());
    CHECK(reply.watch->finished());
  }
  SUBCASE("sendInitialEvents ends the initial state with an annotated BOOKMARK") {
    auto reply = Call(api, "GET", "/api/v1/pods")
                     .query("watch", "1")
                     .query("sendInitialEvents", "true")
                     .query("allowWatchBookmarks", "true")
                     .query("resourceVersionMatch", "NotOlderThan")
                     .send();
    CHECK(next_event(*reply.watch)["type"] == "ADDED");
    json bookmark = next_event(*reply.watch);
    CHECK(bookmark["type"] == "BOOKMARK");
    CHECK(bookmark["object"]["kind"] == "Pod");
    CHECK(bookmark["object"]["metadata"]["annotations"]["k8s.io/initial-events-end"] == "true");
  }
  SUBCASE("the stream ends when the Api goes away") {
    auto local = std::make_unique<fakekube::Api>();
    auto reply = Call(*local, "GET", "/api/v1/pods").query("watch", "1").send();
    local.reset();
    CHECK(reply.watch->finished());
  }
}
