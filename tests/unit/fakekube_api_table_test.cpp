// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include "fakekube_api_request.hpp"
#include "table.hpp"

using fakekube_test::Call;
using nlohmann::json;

namespace {

const char* const k_table_accept =
    "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,"
    "application/json";

} // namespace

TEST_CASE("fakekube::render_table") {
  fakekube::Api api;
  json n = fakekube_test::node("gpu-1", {{"node-role.kubernetes.io/worker", ""}});
  n["spec"]["unschedulable"] = true;
  api.load(n);
  json p = fakekube_test::pod("default", "train");
  p["status"] = {{"phase", "Pending"}};
  api.load(p);
  SUBCASE("nodes: the real printer's columns") {
    auto reply = Call(api, "GET", "/api/v1/nodes").accept(k_table_accept).send();
    CHECK(reply.body["kind"] == "Table");
    CHECK(reply.body["columnDefinitions"][1]["name"] == "Status");
    const json& cells = reply.body["rows"][0]["cells"];
    CHECK(cells[0] == "gpu-1");
    CHECK(cells[1] == "Ready,SchedulingDisabled");
    CHECK(cells[2] == "worker");
    CHECK(cells[4] == "v1.30.4");
    CHECK(reply.body["rows"][0]["object"]["kind"] == "PartialObjectMetadata");
  }
  SUBCASE("pods") {
    auto reply = Call(api, "GET", "/api/v1/namespaces/default/pods/train").accept(k_table_accept).send();
    const json& cells = reply.body["rows"][0]["cells"];
    CHECK(cells[1] == "0/1");
    CHECK(cells[2] == "Pending");
    CHECK(cells[6] == "<none>");
  }
  SUBCASE("NAME/AGE fallback; includeObject=Object and None") {
    const char* const path = "/apis/rbac.authorization.k8s.io/v1/clusterroles";
    auto reply = Call(api, "GET", path).accept(k_table_accept).query("includeObject", "Object").send();
    CHECK(reply.body["columnDefinitions"].size() == 2);
    CHECK(reply.body["columnDefinitions"][1]["type"] == "date");
    CHECK(reply.body["rows"][0]["cells"][0] == "cluster-admin");
    CHECK(reply.body["rows"][0]["object"]["kind"] == "ClusterRole");
    auto none = Call(api, "GET", path).accept(k_table_accept).query("includeObject", "None").send();
    CHECK(!none.body["rows"][0].contains("object"));
    CHECK(Call(api, "GET", path).accept(k_table_accept).query("includeObject", "All").send().status == 400);
  }
  SUBCASE("namespaces, deployments and events printers") {
    auto ns = Call(api, "GET", "/api/v1/namespaces/default").accept(k_table_accept).send();
    CHECK(ns.body["rows"][0]["cells"][1] == "Active");
    Call(api, "POST", "/apis/apps/v1/namespaces/default/deployments")
        .json({{"metadata", {{"name", "d"}}}, {"spec", {{"replicas", 2}}}})
        .send();
    auto deploy = Call(api, "GET", "/apis/apps/v1/namespaces/default/deployments/d").accept(k_table_accept).send();
    CHECK(deploy.body["rows"][0]["cells"][1] == "0/2");
    api.load({{"apiVersion", "v1"}, {"kind", "Event"},
              {"metadata", {{"name", "e1"}, {"namespace", "default"}}},
              {"involvedObject", {{"kind", "Pod"}, {"name", "train"}}},
              {"reason", "FailedScheduling"}, {"type", "Warning"}, {"message", "0/1 nodes are available"}});
    auto events = Call(api, "GET", "/api/v1/namespaces/default/events").accept(k_table_accept).send();
    const json& cells = events.body["rows"][0]["cells"];
    CHECK(cells[1] == "Warning");
    CHECK(cells[2] == "FailedScheduling");
    CHECK(cells[3] == "pod/train");
    CHECK(cells[6] == "0/1 nodes are available");
  }
  SUBCASE("paging carries over to tables") {
    auto reply = Call(api, "GET", "/api/v1/namespaces").accept(k_table_accept).query("limit", "1").send();
    CHECK(reply.body["rows"].size() == 1);
    CHECK(reply.body["metadata"].contains("continue"));
  }
}

TEST_CASE("fakekube::human_duration") {
  CHECK(fakekube::human_duration(45) == "45s");
  CHECK(fakekube::human_duration(119) == "119s");
  CHECK(fakekube::human_duration(310) == "5m10s");
  CHECK(fakekube::human_duration(600) == "10m");
  CHECK(fakekube::human_duration(3 * 3600 + 600) == "3h10m");
  CHECK(fakekube::human_duration(30 * 3600) == "30h");
  CHECK(fakekube::human_duration(3 * 86400 + 3600) == "3d1h");
  CHECK(fakekube::human_duration(30 * 86400) == "30d");
  CHECK(fakekube::human_duration(-5) == "<invalid>");
}

TEST_CASE("fakekube::open_watch tables") {
  fakekube::Api api;
  api.load(fakekube_test::node("n1"));
  auto reply = Call(api, "GET", "/api/v1/nodes").query("watch", "true").accept(k_table_accept).send();
  REQUIRE(reply.watch != nullptr);
  const json first = json::parse(reply.watch->next(std::chrono::milliseconds(1000)).value());
  CHECK(first["type"] == "ADDED");
  CHECK(first["object"]["kind"] == "Table");
  CHECK(first["object"]["rows"][0]["cells"][0] == "n1");
  CHECK(!first["object"]["columnDefinitions"].empty());
  api.load(fakekube_test::node("n2"));
  const json second = json::parse(reply.watch->next(std::chrono::milliseconds(1000)).value());
  CHECK(second["object"]["rows"][0]["cells"][0] == "n2");
  CHECK(second["object"]["columnDefinitions"].empty());
}
