// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include "fakekube_api_request.hpp"
#include "protobuf.hpp"
#include "protobuf_encode.hpp"

using fakekube_test::Call;
using fakekube_test::pb_bytes;
using fakekube_test::node;
using nlohmann::json;

namespace {

void seed_rbac(fakekube::Api& api) {
  api.load(json::array(
      {node("n1"),
       {{"apiVersion", "rbac.authorization.k8s.io/v1"}, {"kind", "ClusterRole"},
        {"metadata", {{"name", "node-reader"}}},
        {"rules", {{{"apiGroups", {""}}, {"resources", {"nodes"}}, {"verbs", {"get", "list"}}},
                   {{"apiGroups", {""}}, {"resources", {"nodes/status"}}, {"verbs", {"patch"}},
                    {"resourceNames", {"n1"}}}}}},
       {{"apiVersion", "rbac.authorization.k8s.io/v1"}, {"kind", "ClusterRoleBinding"},
        {"metadata", {{"name", "alice-nodes"}}},
        {"roleRef", {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "ClusterRole"}, {"name", "node-reader"}}},
        {"subjects", {{{"kind", "User"}, {"name", "alice"}}}}},
       {{"apiVersion", "rbac.authorization.k8s.io/v1"}, {"kind", "Role"},
        {"metadata", {{"name", "ds-admin"}, {"namespace", "kube-system"}}},
        {"rules", {{{"apiGroups", {"apps"}}, {"resources", {"*"}}, {"verbs", {"*"}}}}}},
       {{"apiVersion", "rbac.authorization.k8s.io/v1"}, {"kind", "RoleBinding"},
        {"metadata", {{"name", "ops"}, {"namespace", "kube-system"}}},
        {"roleRef", {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "Role"}, {"name", "ds-admin"}}},
        {"subjects", {{{"kind", "Group"}, {"name", "ops"}}}}}}));
}

} // namespace

TEST_CASE("fakekube::authorize") {
  fakekube::Api api;
  seed_rbac(api);
  SUBCASE("allowed by a ClusterRoleBinding") {
    CHECK(Call(api, "GET", "/api/v1/nodes").as("alice").send().status == 200);
    CHECK(Call(api, "GET", "/api/v1/nodes/n1").as("alice").send().status == 200);
  }
  SUBCASE("denied with the exact cluster-scope message") {
    auto reply = Call(api, "PATCH", "/api/v1/nodes/n1")
                     .as("alice")
                     .json({{"metadata", {{"labels", {{"a", "b"}}}}}}, "application/merge-patch+json")
                     .send();
    CHECK(reply.status == 403);
    CHECK(reply.body["reason"] == "Forbidden");
    CHECK(reply.body["message"] == "nodes \"n1\" is forbidden: User \"alice\" cannot patch resource "
                                   "\"nodes\" in API group \"\" at the cluster scope");
    CHECK(reply.body["details"] == json{{"name", "n1"}, {"kind", "nodes"}});
  }
  SUBCASE("subresources and resourceNames") {
    CHECK(Call(api, "PATCH", "/api/v1/nodes/n1/status").as("alice")
              .json(json::object(), "application/merge-patch+json").send().status == 200);
    api.load(node("n2"));
    auto reply = Call(api, "PATCH", "/api/v1/nodes/n2/status").as("alice")
                     .json(json::object(), "application/merge-patch+json").send();
    CHECK(reply.status == 403);
    CHECK(reply.body["message"] == "nodes \"n2\" is forbidden: User \"alice\" cannot patch resource "
                                   "\"nodes/status\" in API group \"\" at the cluster scope");
  }
  SUBCASE("namespaced form and no-name form") {
    auto reply = Call(api, "GET", "/api/v1/namespaces/default/pods").as("alice").send();
    CHECK(reply.status == 403);
    CHECK(reply.body["message"] == "pods is forbidden: User \"alice\" cannot list resource \"pods\" "
                                   "in API group \"\" in the namespace \"default\"");
  }
  SUBCASE("a RoleBinding to a group applies only in its namespace") {
    CHECK(Call(api, "GET", "/apis/apps/v1/namespaces/kube-system/daemonsets").as("bob", {"ops"}).send().status == 200);
    auto reply = Call(api, "GET", "/apis/apps/v1/namespaces/default/daemonsets").as("bob", {"ops"}).send();
    CHECK(reply.status == 403);
    CHECK(reply.body["message"] == "daemonsets.apps is forbidden: User \"bob\" cannot list resource "
                                   "\"daemonsets\" in API group \"apps\" in the namespace \"default\"");
  }
  SUBCASE("system:masters is allowed everything; discovery is allowed to everyone") {
    CHECK(Call(api, "DELETE", "/api/v1/nodes/n1").as("root", {"system:masters"}).send().status == 200);
    CHECK(Call(api, "GET", "/api/v1").as("nobody").send().status == 200);
    CHECK(Call(api, "GET", "/version").as("nobody").send().status == 200);
    CHECK(Call(api, "GET", "/apis/apps/v1").as("nobody").send().status == 200);
  }
}

TEST_CASE("fakekube::create_review") {
  fakekube::Api api;
  seed_rbac(api);
  const auto ssar = [&](const std::string& user, const json& attributes) {
    return Call(api, "POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews")
        .as(user)
        .json({{"apiVersion", "authorization.k8s.io/v1"}, {"kind", "SelfSubjectAccessReview"},
               {"spec", {{"resourceAttributes", attributes}}}})
        .send();
  };
  SUBCASE("SelfSubjectAccessReview allowed, with the RBAC reason and the spec echoed") {
    auto reply = ssar("alice", {{"verb", "list"}, {"resource", "nodes"}});
    CHECK(reply.status == 201);
    CHECK(reply.body["status"]["allowed"] == true);
    CHECK(reply.body["status"]["reason"] == "RBAC: allowed by ClusterRoleBinding \"alice-nodes\" of "
                                            "ClusterRole \"node-reader\" to User \"alice\"");
    CHECK(reply.body["spec"]["resourceAttributes"]["resource"] == "nodes");
  }
  SUBCASE("SelfSubjectAccessReview denied") {
    auto reply = ssar("alice", {{"verb", "patch"}, {"group", "apps"}, {"resource", "daemonsets"},
                                {"namespace", "kube-system"}});
    CHECK(reply.status == 201);
    CHECK(reply.body["status"]["allowed"] == false);
  }
  SUBCASE("masters get the cluster-admin binding as reason") {
    auto reply = Call(api, "POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews")
                     .json({{"spec", {{"resourceAttributes", {{"verb", "delete"}, {"resource", "nodes"}}}}}})
                     .send();
    CHECK(reply.body["status"]["reason"] == "RBAC: allowed by ClusterRoleBinding \"cluster-admin\" of "
                                            "ClusterRole \"cluster-admin\" to Group \"system:masters\"");
  }
  SUBCASE("non-resource attributes") {
    auto reply = Call(api, "POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews")
                     .as("alice")
                     .json({{"spec", {{"nonResourceAttributes", {{"path", "/healthz"}, {"verb", "get"}}}}}})
                     .send();
    CHECK(reply.body["status"]["allowed"] == true);
  }
  SUBCASE("SelfSubjectRulesReview lists the rules that apply in the namespace") {
    auto reply = Call(api, "POST", "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews")
                     .as("bob", {"ops"})
                     .json({{"spec", {{"namespace", "kube-system"}}}})
                     .send();
    CHECK(reply.status == 201);
    CHECK(reply.body["status"]["incomplete"] == false);
    bool apps = false;
    for (const json& rule : reply.body["status"]["resourceRules"]) {
      apps = apps || rule["apiGroups"] == json{"apps"};
    }
    CHECK(apps);
    CHECK(!reply.body["status"]["nonResourceRules"].empty());
  }
  SUBCASE("SelfSubjectReview answers who the caller is") {
    auto reply = Call(api, "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews")
                     .as("bob", {"ops"})
                     .json({{"apiVersion", "authentication.k8s.io/v1"}, {"kind", "SelfSubjectReview"}})
                     .send();
    CHECK(reply.status == 201);
    CHECK(reply.body["status"]["userInfo"]["username"] == "bob");
  }
  SUBCASE("reviews cannot be listed") {
    CHECK(Call(api, "GET", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews").send().status == 405);
  }
}

namespace {

// What kubectl 1.33 sends for `auth can-i patch daemonsets.apps -n kube-system`.
std::string protobuf_review() {
  const std::string attributes = pb_bytes(1, "kube-system") + pb_bytes(2, "patch") + pb_bytes(3, "apps") +
                                 pb_bytes(5, "daemonsets");
  const std::string review = pb_bytes(1, "") + pb_bytes(2, pb_bytes(1, attributes));
  const std::string type_meta =
      pb_bytes(1, "authorization.k8s.io/v1") + pb_bytes(2, "SelfSubjectAccessReview");
  return std::string("k8s\0", 4) + pb_bytes(1, type_meta) + pb_bytes(2, review) + pb_bytes(3, "") +
         pb_bytes(4, "");
}

} // namespace

TEST_CASE("fakekube::decode_access_review") {
  SUBCASE("the k8s envelope around a SelfSubjectAccessReview") {
    const json review = fakekube::decode_access_review(protobuf_review());
    CHECK(review["kind"] == "SelfSubjectAccessReview");
    CHECK(review["spec"]["resourceAttributes"] ==
          json{{"namespace", "kube-system"}, {"verb", "patch"}, {"group", "apps"}, {"resource", "daemonsets"}});
  }
  SUBCASE("bad input is a clear error, never a crash") {
    CHECK_THROWS_WITH_AS(fakekube::decode_access_review("{}"), doctest::Contains("envelope"), std::runtime_error);
    std::string truncated = protobuf_review();
    truncated.resize(truncated.size() / 2);
    CHECK_THROWS_AS(fakekube::decode_access_review(truncated), std::runtime_error);
  }
  SUBCASE("answered in JSON through the API") {
    fakekube::Api api;
    seed_rbac(api);
    auto reply = Call(api, "POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews")
                     .as("bob", {"ops"})
                     .accept("application/vnd.kubernetes.protobuf,application/json")
                     .text(protobuf_review(), "application/vnd.kubernetes.protobuf")
                     .send();
    CHECK(reply.status == 201);
    CHECK(reply.content_type == "application/json");
    CHECK(reply.body["status"]["allowed"] == true);
  }
}

TEST_CASE("fakekube::decode_review_spec") {
  SUBCASE("a SelfSubjectRulesReview's namespace, answered through the API") {
    const std::string type_meta =
        pb_bytes(1, "authorization.k8s.io/v1") + pb_bytes(2, "SelfSubjectRulesReview");
    const std::string body = std::string("k8s\0", 4) + pb_bytes(1, type_meta) +
                             pb_bytes(2, pb_bytes(1, "") + pb_bytes(2, pb_bytes(1, "kube-system")));
    CHECK(fakekube::decode_review_spec(body)["spec"]["namespace"] == "kube-system");
    fakekube::Api api;
    seed_rbac(api);
    auto reply = Call(api, "POST", "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews")
                     .as("bob", {"ops"})
                     .text(body, "application/vnd.kubernetes.protobuf")
                     .send();
    CHECK(reply.status == 201);
    CHECK(reply.body["spec"]["namespace"] == "kube-system");
  }
  SUBCASE("kubectl 1.27 whoami's v1beta1 SelfSubjectReview") {
    fakekube::Api api;
    auto reply = Call(api, "POST", "/apis/authentication.k8s.io/v1beta1/selfsubjectreviews")
                     .as("carol", {"devs"})
                     .json({{"apiVersion", "authentication.k8s.io/v1beta1"}, {"kind", "SelfSubjectReview"}})
                     .send();
    CHECK(reply.status == 201);
    CHECK(reply.body["apiVersion"] == "authentication.k8s.io/v1beta1");
    CHECK(reply.body["status"]["userInfo"]["username"] == "carol");
  }
  SUBCASE("a body that is not an envelope is 400 naming the problem") {
    fakekube::Api api;
    auto reply = Call(api, "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews")
                     .text("nope", "application/vnd.kubernetes.protobuf")
                     .send();
    CHECK(reply.status == 400);
    CHECK(reply.body["message"].get<std::string>().find("envelope") != std::string::npos);
  }
}
