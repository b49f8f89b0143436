// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include <algorithm>

#include "fakekube_api_request.hpp"

using fakekube_test::Call;
using nlohmann::json;

namespace {

const json* find_resource(const json& list, const std::string& name) {
  for (const json& resource : list["resources"]) {
    if (resource["name"] == name) {
      return &resource;
    }
  }
  return nullptr;
}

} // namespace

TEST_CASE("fakekube::Api::handle discovery") {
  fakekube::Api api;
  SUBCASE("/version reports the configured version") {
    api.set_server_version("v1.29.6-eks-1234567");
    auto reply = Call(api, "GET", "/version").send();
    CHECK(reply.body["gitVersion"] == "v1.29.6-eks-1234567");
    CHECK(reply.body["major"] == "1");
    CHECK(reply.body["minor"] == "29+");
  }
  SUBCASE("/api lists v1") {
    CHECK(Call(api, "GET", "/api").send().body["versions"] == json{"v1"});
  }
  SUBCASE("/api/v1 resources with short names, verbs, categories and subresources") {
    auto reply = Call(api, "GET", "/api/v1").send();
    CHECK(reply.body["kind"] == "APIResourceList");
    const json* pods = find_resource(reply.body, "pods");
    REQUIRE(pods != nullptr);
    CHECK((*pods)["shortNames"] == json{"po"});
    CHECK((*pods)["categories"] == json{"all"});
    CHECK((*pods)["namespaced"] == true);
    CHECK((*pods)["singularName"] == "pod");
    const json* nodes = find_resource(reply.body, "nodes");
    REQUIRE(nodes != nullptr);
    CHECK((*nodes)["namespaced"] == false);
    CHECK(find_resource(reply.body, "nodes/status") != nullptr);
    CHECK(find_resource(reply.body, "pods/status") != nullptr);
    const json* cm = find_resource(reply.body, "configmaps");
    CHECK((*cm)["shortNames"] == json{"cm"});
    CHECK((*find_resource(reply.body, "events"))["shortNames"] == json{"ev"});
  }
  SUBCASE("/apis groups and apps/v1") {
    auto groups = Call(api, "GET", "/apis").send();
    CHECK(groups.body["kind"] == "APIGroupList");
    bool apps = false;
    for (const json& group : groups.body["groups"]) {
      apps = apps || group["name"] == "apps";
    }
    CHECK(apps);
    auto list = Call(api, "GET", "/apis/apps/v1").send();
    CHECK((*find_resource(list.body, "daemonsets"))["shortNames"] == json{"ds"});
    CHECK((*find_resource(list.body, "deployments"))["shortNames"] == json{"deploy"});
    const json* scale = find_resource(list.body, "deployments/scale");
    REQUIRE(scale != nullptr);
    CHECK((*scale)["kind"] == "Scale");
    CHECK((*scale)["group"] == "autoscaling");
    CHECK(Call(api, "GET", "/apis/apps").send().body["preferredVersion"]["groupVersion"] == "apps/v1");
  }
  SUBCASE("aggregated discovery Accept gets the legacy form as application/json") {
    auto reply = Call(api, "GET", "/apis")
                     .accept("application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json")
                     .send();
    CHECK(reply.content_type == "application/json");
    CHECK(reply.body["kind"] == "APIGroupList");
  }
  SUBCASE("unknown group is 404; openapi v2 is an empty protobuf document, v3 is 404") {
    CHECK(Call(api, "GET", "/apis/nvidia.com/v1").send().status == 404);
    auto v2 = Call(api, "GET", "/openapi/v2").send();
    CHECK(v2.status == 200);
    CHECK(v2.raw.empty());
    CHECK(Call(api, "GET", "/openapi/v3").send().status == 404);
  }
  SUBCASE("creating a CRD registers its resources") {
    json crd = {{"apiVersion", "apiextensions.k8s.io/v1"},
                {"kind", "CustomResourceDefinition"},
                {"metadata", {{"name", "clusterpolicies.nvidia.com"}}},
                {"spec",
                 {{"group", "nvidia.com"},
                  {"scope", "Cluster"},
                  {"names", {{"plural", "clusterpolicies"}, {"singular", "clusterpolicy"},
                             {"kind", "ClusterPolicy"}, {"shortNames", {"cp"}}}},
                  {"versions", {{{"name", "v1"}, {"served", true}, {"storage", true},
                                 {"subresources", {{"status", json::object()}}}}}}}}};
    auto created = Call(api, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions").json(crd).send();
    REQUIRE(created.status == 201);
    CHECK(created.body["status"]["conditions"][1]["type"] == "Established");
    auto list = Call(api, "GET", "/apis/nvidia.com/v1").send();
    REQUIRE(list.status == 200);
    const json* cp = find_resource(list.body, "clusterpolicies");
    REQUIRE(cp != nullptr);
    CHECK((*cp)["namespaced"] == false);
    CHECK(find_resource(list.body, "clusterpolicies/status") != nullptr);
    auto object = Call(api, "POST", "/apis/nvidia.com/v1/clusterpolicies")
                      .json({{"apiVersion", "nvidia.com/v1"}, {"kind", "ClusterPolicy"},
                             {"metadata", {{"name", "cluster-policy"}}}, {"spec", json::object()}})
                      .send();
    CHECK(object.status == 201);
    CHECK(object.body["metadata"]["generation"] == 1);
    Call(api, "DELETE", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/clusterpolicies.nvidia.com").send();
    CHECK(Call(api, "GET", "/apis/nvidia.com/v1").send().status == 404);
  }
  SUBCASE("a CRD whose name is not plural.group is 422") {
    json crd = {{"metadata", {{"name", "wrong"}}},
                {"spec", {{"group", "x.io"}, {"names", {{"plural", "things"}, {"kind", "Thing"}}},
                          {"versions", {{{"name", "v1"}, {"served", true}, {"storage", true}}}}}}};
    CHECK(Call(api, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions").json(crd).send().status == 422);
  }
}
