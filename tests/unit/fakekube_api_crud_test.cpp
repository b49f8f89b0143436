// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include <regex>

#include "fakekube_api_request.hpp"

using fakekube_test::Call;
using fakekube_test::pod;
using nlohmann::json;

TEST_CASE("fakekube::Api::handle create") {
  fakekube::Api api;
  SUBCASE("sets uid, creationTimestamp, resourceVersion and managedFields") {
    auto reply = Call(api, "POST", "/api/v1/namespaces/default/pods").json(pod("default", "a")).send();
    REQUIRE(reply.status == 201);
    const json& meta = reply.body["metadata"];
    CHECK(std::regex_match(meta["uid"].get<std::string>(),
                           std::regex("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")));
    CHECK(std::regex_match(meta["creationTimestamp"].get<std::string>(),
                           std::regex("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ")));
    CHECK(!meta["resourceVersion"].get<std::string>().empty());
    CHECK(meta["managedFields"][0]["manager"] == "kubectl");
    CHECK(meta["managedFields"][0]["operation"] == "Update");
    CHECK(meta["managedFields"][0]["fieldsV1"].contains("f:spec"));
    CHECK(reply.body["status"]["phase"] == "Pending");
    CHECK(reply.body["spec"]["schedulerName"] == "default-scheduler");
    CHECK(!meta.contains("generation"));
  }
  SUBCASE("fieldManager overrides the User-Agent") {
    auto reply = Call(api, "POST", "/api/v1/namespaces/default/pods")
                     .query("fieldManager", "gpuslice")
                     .json(pod("default", "a"))
                     .send();
    CHECK(reply.body["metadata"]["managedFields"][0]["manager"] == "gpuslice");
  }
  SUBCASE("resourceVersion is one global counter") {
    auto first = Call(api, "POST", "/api/v1/namespaces/default/pods").json(pod("default", "a")).send();
    auto second = Call(api, "POST", "/api/v1/namespaces/default/configmaps")
                      .json({{"metadata", {{"name", "c"}}}, {"data", {{"k", "v"}}}})
                      .send();
    CHECK(std::stoull(second.body["metadata"]["resourceVersion"].get<std::string>()) ==
          std::stoull(first.body["metadata"]["resourceVersion"].get<std::string>()) + 1);
  }
  SUBCASE("generateName") {
    json object = pod("default", "");
    object["metadata"].erase("name");
    object["metadata"]["generateName"] = "web-";
    auto reply = Call(api, "POST", "/api/v1/namespaces/default/pods").json(object).send();
    REQUIRE(reply.status == 201);
    CHECK(std::regex_match(reply.body["metadata"]["name"].get<std::string>(),
                           std::regex("web-[bcdfghjklmnpqrstvwxz2456789]{5}")));
  }
  SUBCASE("AlreadyExists") {
    Call(api, "POST", "/api/v1/namespaces/default/pods").json(pod("default", "a")).send();
    auto reply = Call(api, "POST", "/api/v1/namespaces/default/pods").json(pod("default", "a")).send();
    CHECK(reply.status == 409);
    CHECK(reply.body["reason"] == "AlreadyExists");
    CHECK(reply.body["message"] == "pods \"a\" already exists");
    CHECK(reply.body["details"] == json{{"name", "a"}, {"kind", "pods"}});
  }
  SUBCASE("missing namespace is 404 namespaces not found") {
    auto reply = Call(api, "POST", "/api/v1/namespaces/nope/pods").json(pod("nope", "a")).send();
    CHECK(reply.status == 404);
    CHECK(reply.body["message"] == "namespaces \"nope\" not found");
  }
  SUBCASE("resourceVersion set is 500") {
    json object = pod("default", "a");
    object["metadata"]["resourceVersion"] = "5";
    auto reply = Call(api, "POST", "/api/v1/namespaces/default/pods").json(object).send();
    CHECK(reply.status == 500);
    CHECK(reply.body["message"] == "resourceVersion should not be set on objects to be created");
  }
  SUBCASE("invalid name is 422 Invalid") {
    auto reply = Call(api, "POST", "/api/v1/namespaces/default/pods").json(pod("default", "Bad_Name")).send();
    CHECK(reply.status == 422);
    CHECK(reply.body["reason"] == "Invalid");
    CHECK(reply.body["message"].get<std::string>().rfind("Pod \"Bad_Name\" is invalid: metadata.name: Invalid value", 0) == 0);
    CHECK(reply.body["details"]["causes"][0]["field"] == "metadata.name");
  }
  SUBCASE("dryRun=All answers without storing") {
    auto reply = Call(api, "POST", "/api/v1/namespaces/default/pods")
                     .query("dryRun", "All")
                     .json(pod("default", "a"))
                     .send();
    CHECK(reply.status == 201);
    CHECK(Call(api, "GET", "/api/v1/namespaces/default/pods/a").send().status == 404);
  }
  SUBCASE("other dryRun values are 400") {
    auto reply = Call(api, "POST", "/api/v1/namespaces/default/pods")
                     .query("dryRun", "Yes")
                     .json(pod("default", "a"))
                     .send();
    CHECK(reply.status == 400);
    CHECK(reply.body["reason"] == "BadRequest");
  }
  SUBCASE("YAML bodies") {
    auto reply = Call(api, "POST", "/api/v1/namespaces/default/configmaps")
                     .text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y\ndata:\n  n: \"1\"\n",
                           "application/yaml")
                     .send();
    REQUIRE(reply.status == 201);
    CHECK(reply.body["data"]["n"] == "1");
  }
  SUBCASE("undecodable body is 400") {
    auto reply = Call(api, "POST", "/api/v1/namespaces/default/configmaps").text("{", "application/json").send();
    CHECK(reply.status == 400);
  }
  SUBCASE("deployments start at generation 1") {
    auto reply = Call(api, "POST", "/apis/apps/v1/namespaces/default/deployments")
                     .json({{"metadata", {{"name", "d"}}},
                            {"spec", {{"replicas", 2}}},
                            {"status", {{"replicas", 9}}}})
                     .send();
    REQUIRE(reply.status == 201);
    CHECK(reply.body["metadata"]["generation"] == 1);
    CHECK(!reply.body.contains("status")); // status is a subresource: ignored on create
  }
}

TEST_CASE("fakekube::Api::handle get") {
  fakekube::Api api;
  Call(api, "POST", "/api/v1/namespaces/default/pods").json(pod("default", "a")).send();
  SUBCASE("found") {
    auto reply = Call(api, "GET", "/api/v1/namespaces/default/pods/a").send();
    CHECK(reply.status == 200);
    CHECK(reply.body["kind"] == "Pod");
    CHECK(reply.body["apiVersion"] == "v1");
  }
  SUBCASE("NotFound with the real shape") {
    auto reply = Call(api, "GET", "/apis/apps/v1/namespaces/default/deployments/x").send();
    CHECK(reply.status == 404);
    CHECK(reply.body == json{{"kind", "Status"},
                             {"apiVersion", "v1"},
                             {"metadata", json::object()},
                             {"status", "Failure"},
                             {"message", "deployments.apps \"x\" not found"},
                             {"reason", "NotFound"},
                             {"details", {{"name", "x"}, {"group", "apps"}, {"kind", "deployments"}}},
                             {"code", 404}});
  }
  SUBCASE("unknown resource is 404") {
    CHECK(Call(api, "GET", "/api/v1/widgets").send().status == 404);
  }
  SUBCASE("status subresource") {
    CHECK(Call(api, "GET", "/api/v1/namespaces/default/pods/a/status").send().body["kind"] == "Pod");
  }
}

TEST_CASE("fakekube::Api::handle update") {
  fakekube::Api api;
  json created = Call(api, "POST", "/api/v1/namespaces/default/pods").json(pod("default", "a")).send().body;
  SUBCASE("stale resourceVersion is 409 Conflict with the real message") {
    json stale = created;
    stale["metadata"]["resourceVersion"] = "1";
    stale["metadata"]["labels"]["x"] = "y";
    auto reply = Call(api, "PUT", "/api/v1/namespaces/default/pods/a").json(stale).send();
    CHECK(reply.status == 409);
    CHECK(reply.body["reason"] == "Conflict");
    CHECK(reply.body["message"] ==
          "Operation cannot be fulfilled on pods \"a\": the object has been modified; please "
          "apply your changes to the latest version and try again");
  }
  SUBCASE("current resourceVersion updates and bumps it") {
    json next = created;
    next["metadata"]["labels"]["x"] = "y";
    auto reply = Call(api, "PUT", "/api/v1/namespaces/default/pods/a").json(next).send();
    REQUIRE(reply.status == 200);
    CHECK(reply.body["metadata"]["labels"]["x"] == "y");
    CHECK(reply.body["metadata"]["resourceVersion"] != created["metadata"]["resourceVersion"]);
    CHECK(reply.body["metadata"]["uid"] == created["metadata"]["uid"]);
  }
  SUBCASE("a no-op update keeps the resourceVersion") {
    auto reply = Call(api, "PUT", "/api/v1/namespaces/default/pods/a").json(created).send();
    CHECK(reply.body["metadata"]["resourceVersion"] == created["metadata"]["resourceVersion"]);
  }
  SUBCASE("main-resource writes ignore status; /status writes change only status") {
    json next = created;
    next["status"]["phase"] = "Running";
    auto main = Call(api, "PUT", "/api/v1/namespaces/default/pods/a").json(next).send();
    CHECK(main.body["status"]["phase"] == "Pending");
    next["metadata"]["labels"]["ignored"] = "yes";
    next["metadata"].erase("resourceVersion");
    auto status = Call(api, "PUT", "/api/v1/namespaces/default/pods/a/status").json(next).send();
    CHECK(status.body["status"]["phase"] == "Running");
    CHECK(!status.body["metadata"]["labels"].contains("ignored"));
    CHECK(status.body["metadata"]["managedFields"].back()["subresource"] == "status");
  }
  SUBCASE("missing object is 404") {
    CHECK(Call(api, "PUT", "/api/v1/namespaces/default/pods/zz").json(pod("default", "zz")).send().status == 404);
  }
  SUBCASE("name mismatch is 400") {
    CHECK(Call(api, "PUT", "/api/v1/namespaces/default/pods/a").json(pod("default", "b")).send().status == 400);
  }
  SUBCASE("conflict_on_first_update fault") {
    api.faults().conflict_on_first_update = true;
    json next = created;
    next["metadata"]["labels"]["x"] = "y";
    CHECK(Call(api, "PUT", "/api/v1/namespaces/default/pods/a").json(next).send().status == 409);
    CHECK(Call(api, "PUT", "/api/v1/namespaces/default/pods/a").json(next).send().status == 200);
  }
}

TEST_CASE("fakekube::Api::handle generation") {
  fakekube::Api api;
  auto deployment = Call(api, "POST", "/apis/apps/v1/namespaces/default/deployments")
                        .json({{"metadata", {{"name", "d"}}}, {"spec", {{"replicas", 2}}}})
                        .send()
                        .body;
  SUBCASE("Deployment: +1 on spec and on annotation changes, not on labels or status") {
    json next = deployment;
    next["metadata"].erase("resourceVersion");
    next["spec"]["replicas"] = 3;
    next = Call(api, "PUT", "/apis/apps/v1/namespaces/default/deployments/d").json(next).send().body;
    CHECK(next["metadata"]["generation"] == 2);
    next["metadata"]["annotations"]["a"] = "b";
    next = Call(api, "PUT", "/apis/apps/v1/namespaces/default/deployments/d").json(next).send().body;
    CHECK(next["metadata"]["generation"] == 3);
    next["metadata"]["labels"]["l"] = "v";
    next = Call(api, "PUT", "/apis/apps/v1/namespaces/default/deployments/d").json(next).send().body;
    CHECK(next["metadata"]["generation"] == 3);
    next["status"] = {{"observedGeneration", 3}};
    next = Call(api, "PUT", "/apis/apps/v1/namespaces/default/deployments/d/status").json(next).send().body;
    CHECK(next["metadata"]["generation"] == 3);
    CHECK(next["status"]["observedGeneration"] == 3);
  }
  SUBCASE("DaemonSet: +1 on spec only, with the template-generation annotation") {
    json ds = Call(api, "POST", "/apis/apps/v1/namespaces/default/daemonsets")
                  .json({{"metadata", {{"name", "ds"}}},
                         {"spec", {{"template", {{"spec", {{"containers", json::array()}}}}}}}})
                  .send()
                  .body;
    CHECK(ds["metadata"]["annotations"]["deprecated.daemonset.template.generation"] == "1");
    ds["metadata"]["annotations"]["x"] = "y";
    ds = Call(api, "PUT", "/apis/apps/v1/namespaces/default/daemonsets/ds").json(ds).send().body;
    CHECK(ds["metadata"]["generation"] == 1);
    ds["spec"]["template"]["metadata"]["labels"]["v"] = "2";
    ds = Call(api, "PUT", "/apis/apps/v1/namespaces/default/daemonsets/ds").json(ds).send().body;
    CHECK(ds["metadata"]["generation"] == 2);
    CHECK(ds["metadata"]["annotations"]["deprecated.daemonset.template.generation"] == "2");
  }
}

TEST_CASE("fakekube::Api::handle delete") {
  fakekube::Api api;
  Call(api, "POST", "/api/v1/namespaces/default/pods").json(pod("default", "a")).send();
  json deployment = Call(api, "POST", "/apis/apps/v1/namespaces/default/deployments")
                        .json({{"metadata", {{"name", "d"}}}, {"spec", {{"replicas", 1}}}})
                        .send()
                        .body;
  SUBCASE("pods answer with the object") {
    auto reply = Call(api, "DELETE", "/api/v1/namespaces/default/pods/a").send();
    CHECK(reply.status == 200);
    CHECK(reply.body["kind"] == "Pod");
    CHECK(Call(api, "GET", "/api/v1/namespaces/default/pods/a").send().status == 404);
  }
  SUBCASE("others answer with Status Success") {
    auto reply = Call(api, "DELETE", "/apis/apps/v1/namespaces/default/deployments/d").send();
    CHECK(reply.status == 200);
    CHECK(reply.body["status"] == "Success");
    CHECK(reply.body["details"] == json{{"name", "d"}, {"group", "apps"}, {"kind", "deployments"},
                                        {"uid", deployment["metadata"]["uid"]}});
  }
  SUBCASE("background propagation deletes dependents; Orphan keeps them") {
    json owned = pod("default", "child");
    owned["metadata"]["ownerReferences"] = {{{"apiVersion", "apps/v1"}, {"kind", "Deployment"},
                                             {"name", "d"}, {"uid", deployment["metadata"]["uid"]}}};
    Call(api, "POST", "/api/v1/namespaces/default/pods").json(owned).send();
    SUBCASE("Background") {
      Call(api, "DELETE", "/apis/apps/v1/namespaces/default/deployments/d").send();
      CHECK(Call(api, "GET", "/api/v1/namespaces/default/pods/child").send().status == 404);
    }
    SUBCASE("Orphan") {
      Call(api, "DELETE", "/apis/apps/v1/namespaces/default/deployments/d")
          .query("propagationPolicy", "Orphan")
          .send();
      CHECK(Call(api, "GET", "/api/v1/namespaces/default/pods/child").send().status == 200);
    }
  }
  SUBCASE("unknown propagationPolicy is 400") {
    CHECK(Call(api, "DELETE", "/api/v1/namespaces/default/pods/a")
              .query("propagationPolicy", "Sideways")
              .send()
              .status == 400);
  }
  SUBCASE("dryRun=All keeps the object") {
    Call(api, "DELETE", "/api/v1/namespaces/default/pods/a").json({{"dryRun", {"All"}}}).send();
    CHECK(Call(api, "GET", "/api/v1/namespaces/default/pods/a").send().status == 200);
  }
  SUBCASE("finalizers keep the object until removed") {
    json cm = Call(api, "POST", "/api/v1/namespaces/default/configmaps")
                  .json({{"metadata", {{"name", "f"}, {"finalizers", {"example.com/hold"}}}}})
                  .send()
                  .body;
    auto reply = Call(api, "DELETE", "/api/v1/namespaces/default/configmaps/f").send();
    CHECK(reply.body.contains("metadata"));
    CHECK(reply.body["metadata"].contains("deletionTimestamp"));
    json held = Call(api, "GET", "/api/v1/namespaces/default/configmaps/f").send().body;
    held["metadata"]["finalizers"] = json::array();
    Call(api, "PUT", "/api/v1/namespaces/default/configmaps/f").json(held).send();
    CHECK(Call(api, "GET", "/api/v1/namespaces/default/configmaps/f").send().status == 404);
  }
  SUBCASE("precondition uid mismatch is 409") {
    auto reply = Call(api, "DELETE", "/api/v1/namespaces/default/pods/a")
                     .json({{"preconditions", {{"uid", "other"}}}})
                     .send();
    CHECK(reply.status == 409);
  }
  SUBCASE("deletecollection with a selector") {
    Call(api, "POST", "/api/v1/namespaces/default/pods").json(pod("default", "b", {{"app", "x"}})).send();
    auto reply = Call(api, "DELETE", "/api/v1/namespaces/default/pods").query("labelSelector", "app=x").send();
    CHECK(reply.status == 200);
    CHECK(reply.body["items"].size() == 1);
    CHECK(Call(api, "GET", "/api/v1/namespaces/default/pods/a").send().status == 200);
    CHECK(Call(api, "GET", "/api/v1/namespaces/default/pods/b").send().status == 404);
  }
  SUBCASE("missing object is 404") {
    CHECK(Call(api, "DELETE", "/api/v1/namespaces/default/pods/zz").send().status == 404);
  }
}

TEST_CASE("fakekube::Api::load") {
  fakekube::Api api;
  SUBCASE("a List, keeping given metadata and creating namespaces") {
    json node = fakekube_test::node("n1");
    node["metadata"]["creationTimestamp"] = "2026-01-01T00:00:00Z";
    json p = pod("gpu", "p");
    p["status"] = {{"phase", "Pending"}};
    api.load({{"kind", "List"}, {"apiVersion", "v1"}, {"items", {p, node}}});
    CHECK(Call(api, "GET", "/api/v1/namespaces/gpu").send().status == 200);
    auto n = Call(api, "GET", "/api/v1/nodes/n1").send();
    CHECK(n.body["metadata"]["creationTimestamp"] == "2026-01-01T00:00:00Z");
    CHECK(Call(api, "GET", "/api/v1/namespaces/gpu/pods/p").send().body["status"]["phase"] == "Pending");
  }
  SUBCASE("unknown kinds throw naming the object") {
    CHECK_THROWS_WITH_AS(api.load({{"apiVersion", "x/v1"}, {"kind", "Widget"}, {"metadata", {{"name", "w"}}}}),
                         doctest::Contains("Widget \"w\""), std::invalid_argument);
  }
}
