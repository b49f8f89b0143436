// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include "fakekube_api_request.hpp"
#include "patch_strategic.hpp"

using fakekube_test::Call;
using fakekube_test::node;
using fakekube_test::pod;
using nlohmann::json;

namespace {

const char* const k_node = "/api/v1/nodes/n1";

fakekube_test::Reply patch(fakekube::Api& api, const std::string& path, const json& body,
                           const std::string& type) {
  return Call(api, "PATCH", path).json(body, type).send();
}

} // namespace

TEST_CASE("fakekube::Api::handle patch json-patch") {
  fakekube::Api api;
  json n = node("n1", {{"a", "1"}});
  n["spec"]["taints"] = {{{"key", "k"}, {"effect", "NoSchedule"}}};
  api.load(n);
  SUBCASE("add, replace, remove, move, copy") {
    auto reply = patch(api, k_node,
                       {{{"op", "add"}, {"path", "/metadata/labels/b"}, {"value", "2"}},
                        {{"op", "replace"}, {"path", "/metadata/labels/a"}, {"value", "9"}},
                        {{"op", "copy"}, {"from", "/metadata/labels/b"}, {"path", "/metadata/labels/c"}},
                        {{"op", "move"}, {"from", "/metadata/labels/c"}, {"path", "/metadata/labels/d"}},
                        {{"op", "remove"}, {"path", "/metadata/labels/b"}},
                        {{"op", "add"}, {"path", "/spec/taints/-"},
                         {"value", {{"key", "g"}, {"effect", "NoExecute"}}}}},
                       "application/json-patch+json");
    REQUIRE(reply.status == 200);
    CHECK(reply.body["metadata"]["labels"] == json{{"a", "9"}, {"d", "2"}});
    CHECK(reply.body["spec"]["taints"].size() == 2);
  }
  SUBCASE("a passing test applies; a failing test is 422 and changes nothing") {
    auto ok = patch(api, k_node,
                    {{{"op", "test"}, {"path", "/metadata/labels/a"}, {"value", "1"}},
                     {{"op", "add"}, {"path", "/metadata/labels/t"}, {"value", "x"}}},
                    "application/json-patch+json");
    CHECK(ok.status == 200);
    auto bad = patch(api, k_node,
                     {{{"op", "test"}, {"path", "/metadata/labels/a"}, {"value", "nope"}},
                      {{"op", "add"}, {"path", "/metadata/labels/u"}, {"value", "x"}}},
                     "application/json-patch+json");
    CHECK(bad.status == 422);
    CHECK(bad.body["reason"] == "Invalid");
    CHECK(!Call(api, "GET", k_node).send().body["metadata"]["labels"].contains("u"));
  }
  SUBCASE("a non-array document is 400") {
    CHECK(patch(api, k_node, {{"op", "add"}}, "application/json-patch+json").status == 400);
  }
}

TEST_CASE("fakekube::Api::handle patch merge-patch") {
  fakekube::Api api;
  json n = node("n1", {{"a", "1"}, {"b", "2"}});
  n["spec"]["taints"] = {{{"key", "k"}, {"effect", "NoSchedule"}}};
  api.load(n);
  auto reply = patch(api, k_node,
                     {{"metadata", {{"labels", {{"a", nullptr}, {"c", "3"}}}}},
                      {"spec", {{"taints", {{{"key", "new"}, {"effect", "NoExecute"}}}}}}},
                     "application/merge-patch+json");
  REQUIRE(reply.status == 200);
  CHECK(reply.body["metadata"]["labels"] == json{{"b", "2"}, {"c", "3"}});
  CHECK(reply.body["spec"]["taints"] == json{{{"key", "new"}, {"effect", "NoExecute"}}});
  CHECK(reply.body["metadata"]["managedFields"].back()["manager"] == "kubectl");
}

TEST_CASE("fakekube::strategic_merge") {
  SUBCASE("taints and tolerations are replaced whole") {
    json original = {{"spec", {{"taints", {{{"key", "a"}}, {{"key", "b"}}}}}}};
    json result = fakekube::strategic_merge(original, {{"spec", {{"taints", {{{"key", "c"}}}}}}});
    CHECK(result["spec"]["taints"] == json{{{"key", "c"}}});
  }
  SUBCASE("containers and env merge by name") {
    json original = {{"containers",
                      {{{"name", "a"}, {"image", "x:1"}, {"env", {{{"name", "E"}, {"value", "1"}}}}},
                       {{"name", "b"}, {"image", "y:1"}}}}};
    json result = fakekube::strategic_merge(
        original, {{"containers", {{{"name", "a"}, {"env", {{{"name", "F"}, {"value", "2"}}}}},
                                   {{"name", "c"}, {"image", "z:1"}}}}});
    REQUIRE(result["containers"].size() == 3);
    CHECK(result["containers"][0]["image"] == "x:1");
    CHECK(result["containers"][0]["env"].size() == 2);
    CHECK(result["containers"][2]["name"] == "c");
  }
  SUBCASE("conditions merge by type") {
    json original = {{"conditions", {{{"type", "Ready"}, {"status", "True"}}}}};
    json result = fakekube::strategic_merge(
        original, {{"conditions", {{{"type", "Ready"}, {"status", "False"}},
                                   {{"type", "MemoryPressure"}, {"status", "False"}}}}});
    CHECK(result["conditions"].size() == 2);
    CHECK(result["conditions"][0]["status"] == "False");
  }
  SUBCASE("$patch: delete removes a list item; null deletes a key") {
    json original = {{"containers", {{{"name", "a"}}, {{"name", "b"}}}}, {"x", 1}};
    json result = fakekube::strategic_merge(
        original, {{"containers", {{{"name", "a"}, {"$patch", "delete"}}}}, {"x", nullptr}});
    CHECK(result == json{{"containers", {{{"name", "b"}}}}});
  }
  SUBCASE("$patch: replace on a map") {
    json result = fakekube::strategic_merge({{"m", {{"a", 1}, {"b", 2}}}},
                                            {{"m", {{"$patch", "replace"}, {"c", 3}}}});
    CHECK(result["m"] == json{{"c", 3}});
  }
  SUBCASE("$retainKeys drops unlisted keys") {
    json result = fakekube::strategic_merge(
        {{"strategy", {{"type", "RollingUpdate"}, {"rollingUpdate", {{"maxSurge", 1}}}}}},
        {{"strategy", {{"$retainKeys", {"type"}}, {"type", "Recreate"}}}});
    CHECK(result["strategy"] == json{{"type", "Recreate"}});
  }
  SUBCASE("$deleteFromPrimitiveList and finalizers merged as a set") {
    json result = fakekube::strategic_merge(
        {{"finalizers", {"a", "b"}}},
        {{"$deleteFromPrimitiveList/finalizers", {"a"}}, {"finalizers", {"b", "c"}}});
    CHECK(result["finalizers"] == json{"b", "c"});
  }
  SUBCASE("an item without its merge key is rejected") {
    CHECK_THROWS_AS(fakekube::strategic_merge({{"containers", json::array()}},
                                              {{"containers", {{{"image", "x"}}}}}),
                    std::invalid_argument);
  }
}

TEST_CASE("fakekube::Api::handle patch strategic") {
  fakekube::Api api;
  json n = node("n1");
  n["spec"]["taints"] = {{{"key", "a"}, {"effect", "NoSchedule"}}};
  api.load(n);
  SUBCASE("built-in kinds") {
    auto reply = patch(api, k_node, {{"spec", {{"taints", {{{"key", "b"}, {"effect", "NoSchedule"}}}}}}},
                       "application/strategic-merge-patch+json");
    REQUIRE(reply.status == 200);
    CHECK(reply.body["spec"]["taints"].size() == 1);
    CHECK(reply.body["spec"]["taints"][0]["key"] == "b");
  }
  SUBCASE("custom resources answer 415") {
    json crd = {{"apiVersion", "apiextensions.k8s.io/v1"}, {"kind", "CustomResourceDefinition"},
                {"metadata", {{"name", "things.x.io"}}},
                {"spec", {{"group", "x.io"}, {"scope", "Namespaced"},
                          {"names", {{"plural", "things"}, {"kind", "Thing"}}},
                          {"versions", {{{"name", "v1"}, {"served", true}, {"storage", true}}}}}}};
    api.load(crd);
    api.load({{"apiVersion", "x.io/v1"}, {"kind", "Thing"}, {"metadata", {{"name", "t"}, {"namespace", "default"}}}});
    auto reply = patch(api, "/apis/x.io/v1/namespaces/default/things/t", {{"spec", {{"a", 1}}}},
                       "application/strategic-merge-patch+json");
    CHECK(reply.status == 415);
    CHECK(reply.body["reason"] == "UnsupportedMediaType");
    CHECK(patch(api, "/apis/x.io/v1/namespaces/default/things/t", {{"spec", {{"a", 1}}}},
                "application/merge-patch+json").status == 200);
  }
  SUBCASE("unknown content type is 415") {
    CHECK(patch(api, k_node, json::object(), "text/plain").status == 415);
  }
  SUBCASE("missing object is 404") {
    CHECK(patch(api, "/api/v1/nodes/zz", json::object(), "application/merge-patch+json").status == 404);
  }
  SUBCASE("force on a non-apply patch is 422") {
    CHECK(Call(api, "PATCH", k_node).query("force", "true").json(json::object(), "application/merge-patch+json").send().status == 422);
  }
  SUBCASE("dryRun=All answers the patched object without storing it") {
    auto reply = Call(api, "PATCH", k_node)
                     .query("dryRun", "All")
                     .json({{"metadata", {{"labels", {{"dry", "run"}}}}}}, "application/merge-patch+json")
                     .send();
    CHECK(reply.body["metadata"]["labels"]["dry"] == "run");
    CHECK(!Call(api, "GET", k_node).send().body["metadata"]["labels"].contains("dry"));
  }
  SUBCASE("status subresource patch changes only status") {
    auto reply = patch(api, "/api/v1/nodes/n1/status",
                       {{"status", {{"capacity", {{"nvidia.com/gpu", "4"}}}}},
                        {"metadata", {{"labels", {{"sneaky", "1"}}}}}},
                       "application/merge-patch+json");
    CHECK(reply.body["status"]["capacity"]["nvidia.com/gpu"] == "4");
    CHECK(!reply.body["metadata"]["labels"].contains("sneaky"));
  }
  SUBCASE("scale subresource") {
    Call(api, "POST", "/apis/apps/v1/namespaces/default/deployments")
        .json({{"metadata", {{"name", "d"}}}, {"spec", {{"replicas", 1}}}})
        .send();
    auto reply = patch(api, "/apis/apps/v1/namespaces/default/deployments/d/scale",
                       {{"spec", {{"replicas", 3}}}}, "application/merge-patch+json");
    CHECK(reply.body["kind"] == "Scale");
    CHECK(reply.body["spec"]["replicas"] == 3);
    CHECK(Call(api, "GET", "/apis/apps/v1/namespaces/default/deployments/d").send().body["spec"]["replicas"] == 3);
  }
}

TEST_CASE("fakekube::apply_object") {
  fakekube::Api api;
  const std::string path = "/api/v1/namespaces/default/configmaps/cfg";
  const std::string yaml_v1 =
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\ndata:\n  a: \"1\"\n  b: \"2\"\n";
  const auto apply = [&](const std::string& body, const std::string& manager, bool force = false) {
    Call call(api, "PATCH", path);
    call.text(body, "application/apply-patch+yaml");
    if (!manager.empty()) {
      call.query("fieldManager", manager);
    }
    if (force) {
      call.query("force", "true");
    }
    return call.send();
  };
  SUBCASE("fieldManager is required") {
    auto reply = apply(yaml_v1, "");
    CHECK(reply.status == 422);
    CHECK(reply.body["message"].get<std::string>().find("fieldManager: Required value: is required for apply patch") != std::string::npos);
  }
  SUBCASE("creates the object when absent, with an Apply entry") {
    auto reply = apply(yaml_v1, "gpuslice");
    REQUIRE(reply.status == 201);
    CHECK(reply.body["data"] == json{{"a", "1"}, {"b", "2"}});
    const json& entry = reply.body["metadata"]["managedFields"][0];
    CHECK(entry["manager"] == "gpuslice");
    CHECK(entry["operation"] == "Apply");
    CHECK(entry["fieldsV1"]["f:data"].contains("f:a"));
  }
  SUBCASE("re-applying without a field removes it") {
    apply(yaml_v1, "gpuslice");
    auto reply = apply("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\ndata:\n  a: \"1\"\n", "gpuslice");
    REQUIRE(reply.status == 200);
    CHECK(reply.body["data"] == json{{"a", "1"}});
  }
  SUBCASE("another manager's differing value conflicts with the real message; force takes it") {
    apply(yaml_v1, "gpuslice");
    auto conflict = apply("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\ndata:\n  a: \"9\"\n", "other");
    CHECK(conflict.status == 409);
    CHECK(conflict.body["reason"] == "Conflict");
    CHECK(conflict.body["message"] == "Apply failed with 1 conflict: conflict with \"gpuslice\": .data.a");
    CHECK(conflict.body["details"]["causes"][0]["reason"] == "FieldManagerConflict");
    auto forced = apply("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\ndata:\n  a: \"9\"\n", "other", true);
    REQUIRE(forced.status == 200);
    CHECK(forced.body["data"]["a"] == "9");
    bool gpuslice_owns_a = false;
    for (const json& entry : forced.body["metadata"]["managedFields"]) {
      if (entry["manager"] == "gpuslice") {
        gpuslice_owns_a = entry["fieldsV1"]["f:data"].contains("f:a");
      }
    }
    CHECK_FALSE(gpuslice_owns_a);
  }
  SUBCASE("the same value is shared, not a conflict") {
    apply(yaml_v1, "gpuslice");
    CHECK(apply("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\ndata:\n  a: \"1\"\n", "other").status == 200);
  }
  SUBCASE("an Update manager's field conflicts, named with its apiVersion") {
    apply(yaml_v1, "gpuslice");
    Call(api, "PATCH", path).json({{"data", {{"b", "edited"}}}}, "application/merge-patch+json").send();
    auto conflict = apply(yaml_v1, "gpuslice");
    CHECK(conflict.status == 409);
    CHECK(conflict.body["message"] == "Apply failed with 1 conflict: conflict with \"kubectl\" using v1: .data.b");
  }
  SUBCASE("dryRun=All does not create") {
    Call call(api, "PATCH", path);
    call.text(yaml_v1, "application/apply-patch+yaml").query("fieldManager", "m").query("dryRun", "All");
    CHECK(call.send().status == 201);
    CHECK(Call(api, "GET", path).send().status == 404);
  }
  SUBCASE("kind mismatch is 400") {
    CHECK(apply("apiVersion: v1\nkind: Secret\nmetadata:\n  name: cfg\n", "m").status == 400);
  }
}
