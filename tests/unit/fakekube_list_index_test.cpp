// SPDX-License-Identifier: Apache-2.0
// The pod index by spec.nodeName: a list pinned to one node reads that node's pods only, and its
// pages are the pages a scan of all pods gives. spec.host is the same value under a name the
// index does not hold, so a spec.host list is the scan to compare with.
#include <doctest/doctest.h>

#include "api_state.hpp"
#include "fakekube_api_request.hpp"
#include "list_query.hpp"

using fakekube_test::Call;
using fakekube_test::pod;
using nlohmann::json;

namespace {

json pod_on(const std::string& ns, const std::string& name, const std::string& node,
            const std::string& phase) {
  json p = pod(ns, name, {{"app", name.size() % 2 == 0 ? "even" : "odd"}});
  if (!node.empty()) {
    p["spec"]["nodeName"] = node;
  }
  p["status"]["phase"] = phase;
  return p;
}

std::string node_of(int i) { return i % 7 == 6 ? "" : "node-" + std::to_string(i % 5); }

// 90 pods in three namespaces on five nodes; every seventh is unscheduled, every fourth finished.
void seed_pods(fakekube::ApiState& state, const fakekube::ResourceInfo& pods) {
  for (int i = 0; i < 90; ++i) {
    fakekube::commit(state, pods,
                     pod_on("ns" + std::to_string(i % 3), "p" + std::to_string(i), node_of(i),
                            i % 4 == 3 ? "Succeeded" : "Running"));
  }
}

fakekube::ListQuery query_of(const std::string& fields, std::int64_t limit, const std::string& labels) {
  fakekube::ListQuery query;
  query.fields = fakekube::parse_field_selector(fields);
  query.labels = fakekube::parse_label_selector(labels);
  query.limit = limit;
  return query;
}

struct Pages {
  std::vector<std::string> names;
  std::vector<std::string> continues;
  std::size_t examined = 0;
};

// Every page of the list, following next_start as a client follows continue tokens.
Pages all_pages(const fakekube::ApiState& state, const fakekube::Target& target, fakekube::ListQuery query) {
  Pages pages;
  for (;;) {
    const fakekube::ListPage page = fakekube::collect_page(state, target, query);
    for (const fakekube::StoredObject* item : page.items) {
      pages.names.push_back(item->ns + "/" + item->name);
    }
    pages.examined += page.examined;
    pages.continues.push_back(page.next_start);
    if (page.next_start.empty()) {
      return pages;
    }
    query.continue_token = fakekube::ContinueToken{1, page.next_start};
  }
}

// The index path and the scan agree on every page, for every node, scope, limit and selector.
void check_index_matches_scan(const fakekube::ApiState& state, const fakekube::ResourceInfo& pods) {
  for (const std::string ns : {"", "ns1"}) {
    const fakekube::Target target{&pods, ns, "", ""};
    for (const std::string node : {"node-0", "node-3", "", "node-9"}) {
      for (const std::int64_t limit : {0, 1, 2, 5, 500}) {
        for (const std::string extra : {"", ",status.phase!=Succeeded,status.phase!=Failed"}) {
          for (const std::string labels : {"", "app=even"}) {
            CAPTURE(ns);
            CAPTURE(node);
            CAPTURE(limit);
            CAPTURE(extra);
            CAPTURE(labels);
            const Pages indexed = all_pages(state, target, query_of("spec.nodeName=" + node + extra, limit, labels));
            const Pages scanned = all_pages(state, target, query_of("spec.host=" + node + extra, limit, labels));
            CHECK(indexed.names == scanned.names);
            CHECK(indexed.continues == scanned.continues);
          }
        }
      }
    }
  }
}

std::size_t pods_on(const fakekube::ApiState& state, const std::string& node) {
  std::size_t count = 0;
  for (const auto& [key, stored] : state.store.objects("/pods")) {
    count += stored.fields.at("spec.nodeName") == node ? 1 : 0;
  }
  return count;
}

} // namespace

TEST_CASE("fakekube::collect_page by the spec.nodeName index") {
  fakekube::ApiState state;
  const fakekube::ResourceInfo& pods = *state.resources.find("", "v1", "pods");
  seed_pods(state, pods);
  const fakekube::Target all{&pods, "", "", ""};

  SUBCASE("reads only the node's pods; the scan reads all of them") {
    REQUIRE(pods_on(state, "node-2") > 0);
    CHECK(all_pages(state, all, query_of("spec.nodeName=node-2", 0, "")).examined == pods_on(state, "node-2"));
    CHECK(all_pages(state, all, query_of("spec.host=node-2", 0, "")).examined == 90);
    CHECK(all_pages(state, all, query_of("spec.nodeName=node-9", 0, "")).examined == 0);
  }
  SUBCASE("pages, continue points and results equal the scan's") {
    check_index_matches_scan(state, pods);
  }
  SUBCASE("kept right across create, update, rebinding and delete") {
    fakekube::commit(state, pods, pod_on("ns1", "late", "node-3", "Running"));
    json moved = state.store.get("/pods", "ns0", "p0")->parse();
    moved["spec"]["nodeName"] = "node-3"; // p0 was on node-0
    fakekube::commit(state, pods, moved);
    json bound = state.store.get("/pods", "ns0", "p6")->parse();
    REQUIRE(!bound["spec"].contains("nodeName"));
    bound["spec"]["nodeName"] = "node-0"; // what the scheduler's binding writes
    fakekube::commit(state, pods, bound);
    const fakekube::StoredObject gone = *state.store.get("/pods", "ns1", "p1");
    state.store.remove("/pods", gone);
    check_index_matches_scan(state, pods);
    CHECK(all_pages(state, all, query_of("spec.nodeName=node-3", 0, "")).examined == pods_on(state, "node-3"));
    CHECK(all_pages(state, all, query_of("spec.nodeName=node-0", 0, "")).examined == pods_on(state, "node-0"));
  }
  SUBCASE("only pods' spec.nodeName is indexed") {
    CHECK(state.store.indexed("/pods", "spec.nodeName", "node-1") != nullptr);
    CHECK(state.store.indexed("/pods", "spec.schedulerName", "default-scheduler") == nullptr);
    CHECK(state.store.indexed("/nodes", "spec.nodeName", "node-1") == nullptr);
  }
}

TEST_CASE("fakekube::Api::handle pod lists by node after writes through the API") {
  fakekube::Api api;
  const auto ns = [](const std::string& name) {
    return json{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", name}}}};
  };
  api.load(json::array({ns("a"), ns("b"), pod_on("a", "p0", "n0", "Running"), pod_on("a", "p1", "n1", "Running"),
                        pod_on("b", "p2", "", "Pending")}));
  const auto on = [&](const std::string& node) {
    std::vector<std::string> names;
    const json list = Call(api, "GET", "/api/v1/pods").query("fieldSelector", "spec.nodeName=" + node).send().body;
    for (const json& item : list["items"]) names.push_back(item["metadata"]["name"]);
    return names;
  };
  REQUIRE(on("n0") == std::vector<std::string>{"p0"});
  CHECK(Call(api, "POST", "/api/v1/namespaces/b/pods").json(pod_on("b", "p3", "n0", "Running")).send().status == 201);
  CHECK(Call(api, "PATCH", "/api/v1/namespaces/a/pods/p1")
            .json({{"metadata", {{"labels", {{"moved", "yes"}}}}}}, "application/merge-patch+json")
            .send()
            .status == 200);
  json p2 = Call(api, "GET", "/api/v1/namespaces/b/pods/p2").send().body;
  p2["spec"]["nodeName"] = "n1";
  CHECK(Call(api, "PUT", "/api/v1/namespaces/b/pods/p2").json(p2).send().status == 200);
  CHECK(Call(api, "DELETE", "/api/v1/namespaces/a/pods/p0").query("gracePeriodSeconds", "0").send().status == 200);
  CHECK(on("n0") == std::vector<std::string>{"p3"});
  CHECK(on("n1") == std::vector<std::string>{"p1", "p2"});
  CHECK(on("").empty());
}
