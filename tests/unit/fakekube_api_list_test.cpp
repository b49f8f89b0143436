// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include "fakekube_api_request.hpp"
#include "paging.hpp"

using fakekube_test::Call;
using fakekube_test::pod;
using nlohmann::json;

namespace {

std::vector<std::string> names(const json& list) {
  std::vector<std::string> out;
  for (const json& item : list["items"]) {
    out.push_back(item["metadata"]["name"]);
  }
  return out;
}

void seed(fakekube::Api& api) {
  json items = json::array();
  for (int i = 0; i < 5; ++i) {
    json p = pod(i < 3 ? "a" : "b", "p" + std::to_string(i), {{"idx", std::to_string(i)}});
    p["spec"]["nodeName"] = i % 2 == 0 ? "n0" : "n1";
    items.push_back(p);
  }
  api.load(items);
}

} // namespace

TEST_CASE("fakekube::Api::handle list") {
  fakekube::Api api;
  seed(api);
  SUBCASE("all namespaces, sorted by namespace/name") {
    auto reply = Call(api, "GET", "/api/v1/pods").send();
    CHECK(reply.status == 200);
    CHECK(reply.body["kind"] == "PodList");
    CHECK(names(reply.body) == std::vector<std::string>{"p0", "p1", "p2", "p3", "p4"});
    CHECK(!reply.body["metadata"]["resourceVersion"].get<std::string>().empty());
    CHECK(!reply.body["metadata"].contains("continue"));
  }
  SUBCASE("one namespace") {
    CHECK(names(Call(api, "GET", "/api/v1/namespaces/b/pods").send().body) ==
          std::vector<std::string>{"p3", "p4"});
  }
  SUBCASE("label selector") {
    CHECK(names(Call(api, "GET", "/api/v1/pods").query("labelSelector", "idx in (1,4)").send().body) ==
          std::vector<std::string>{"p1", "p4"});
  }
  SUBCASE("field selector") {
    CHECK(names(Call(api, "GET", "/api/v1/pods").query("fieldSelector", "spec.nodeName=n1").send().body) ==
          std::vector<std::string>{"p1", "p3"});
  }
  SUBCASE("unsupported field selector is 400") {
    auto reply = Call(api, "GET", "/api/v1/pods").query("fieldSelector", "spec.bogus=1").send();
    CHECK(reply.status == 400);
    CHECK(reply.body["message"] == "field label not supported: spec.bogus");
  }
  SUBCASE("paging with remainingItemCount and the real token format") {
    auto first = Call(api, "GET", "/api/v1/pods").query("limit", "2").send();
    CHECK(names(first.body) == std::vector<std::string>{"p0", "p1"});
    CHECK(first.body["metadata"]["remainingItemCount"] == 3);
    const std::string token = first.body["metadata"]["continue"];
    const json decoded = json::parse(fakekube::base64url_decode(token));
    CHECK(decoded["v"] == "meta.k8s.io/v1");
    CHECK(decoded["start"] == std::string("a/p1") + '\0');
    CHECK(std::to_string(decoded["rv"].get<long long>()) == first.body["metadata"]["resourceVersion"]);
    auto second = Call(api, "GET", "/api/v1/pods").query("limit", "2").query("continue", token).send();
    CHECK(names(second.body) == std::vector<std::string>{"p2", "p3"});
    CHECK(second.body["metadata"]["resourceVersion"] == first.body["metadata"]["resourceVersion"]);
    auto last = Call(api, "GET", "/api/v1/pods")
                    .query("limit", "2")
                    .query("continue", second.body["metadata"]["continue"].get<std::string>())
                    .send();
    CHECK(names(last.body) == std::vector<std::string>{"p4"});
    CHECK(!last.body["metadata"].contains("continue"));
    CHECK(!last.body["metadata"].contains("remainingItemCount"));
  }
  SUBCASE("remainingItemCount is omitted with selectors") {
    auto reply = Call(api, "GET", "/api/v1/pods").query("limit", "1").query("labelSelector", "idx").send();
    CHECK(reply.body["metadata"].contains("continue"));
    CHECK(!reply.body["metadata"].contains("remainingItemCount"));
  }
  SUBCASE("expired continue token is 410 with a fresh token") {
    auto first = Call(api, "GET", "/api/v1/pods").query("limit", "2").send();
    api.faults().expire_continue_tokens = true;
    auto reply = Call(api, "GET", "/api/v1/pods")
                     .query("limit", "2")
                     .query("continue", first.body["metadata"]["continue"].get<std::string>())
                     .send();
    CHECK(reply.status == 410);
    CHECK(reply.body["reason"] == "Expired");
    CHECK(reply.body["message"].get<std::string>().rfind(
              "The provided continue parameter is too old to display a consistent list result.", 0) == 0);
    const json fresh = json::parse(fakekube::base64url_decode(reply.body["metadata"]["continue"]));
    CHECK(fresh["rv"] == -1);
  }
  SUBCASE("garbage continue token is 400") {
    CHECK(Call(api, "GET", "/api/v1/pods").query("continue", "!!!").send().status == 400);
  }
  SUBCASE("resourceVersionMatch validation") {
    auto no_rv = Call(api, "GET", "/api/v1/pods").query("resourceVersionMatch", "NotOlderThan").send();
    CHECK(no_rv.status == 422);
    CHECK(no_rv.body["message"] ==
          "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: "
          "resourceVersionMatch is forbidden unless resourceVersion is provided");
    auto exact_zero = Call(api, "GET", "/api/v1/pods")
                          .query("resourceVersion", "0")
                          .query("resourceVersionMatch", "Exact")
                          .send();
    CHECK(exact_zero.status == 422);
    auto bogus = Call(api, "GET", "/api/v1/pods")
                     .query("resourceVersion", "1")
                     .query("resourceVersionMatch", "Sometimes")
                     .send();
    CHECK(bogus.status == 422);
  }
  SUBCASE("resourceVersion semantics") {
    const std::string rv = Call(api, "GET", "/api/v1/pods").send().body["metadata"]["resourceVersion"];
    CHECK(Call(api, "GET", "/api/v1/pods").query("resourceVersion", rv).send().status == 200);
    CHECK(Call(api, "GET", "/api/v1/pods")
              .query("resourceVersion", rv)
              .query("resourceVersionMatch", "Exact")
              .send()
              .status == 200);
    auto too_large = Call(api, "GET", "/api/v1/pods").query("resourceVersion", "999999").send();
    CHECK(too_large.status == 504);
    CHECK(too_large.body["reason"] == "Timeout");
    auto old_exact = Call(api, "GET", "/api/v1/pods")
                         .query("resourceVersion", "1")
                         .query("resourceVersionMatch", "Exact")
                         .send();
    CHECK(old_exact.status == 410);
    // rv=0 is served from the "watch cache", which ignores limit.
    auto any = Call(api, "GET", "/api/v1/pods").query("resourceVersion", "0").query("limit", "1").send();
    CHECK(any.body["items"].size() == 5);
    CHECK(Call(api, "GET", "/api/v1/pods").query("resourceVersion", "abc").send().status == 400);
  }
  SUBCASE("bad limit is 400") {
    CHECK(Call(api, "GET", "/api/v1/pods").query("limit", "ten").send().status == 400);
  }
}

TEST_CASE("fakekube::Api::handle list at scale") {
  fakekube::Api api;
  json items = json::array();
  for (int i = 0; i < 20000; ++i) {
    json p = pod("ns" + std::to_string(i % 10), "pod-" + std::to_string(i));
    p["spec"]["nodeName"] = "node-" + std::to_string(i % 100);
    items.push_back(p);
  }
  api.load(items);
  std::size_t seen = 0;
  std::string token;
  int pages = 0;
  do {
    Call call(api, "GET", "/api/v1/pods");
    call.query("limit", "500");
    if (!token.empty()) {
      call.query("continue", token);
    }
    auto reply = call.send();
    REQUIRE(reply.status == 200);
    seen += reply.body["items"].size();
    token = reply.body["metadata"].value("continue", std::string());
    ++pages;
  } while (!token.empty());
  CHECK(seen == 20000);
  CHECK(pages == 40);
  auto on_node = Call(api, "GET", "/api/v1/pods").query("fieldSelector", "spec.nodeName=node-7").send();
  CHECK(on_node.body["items"].size() == 200);
}
