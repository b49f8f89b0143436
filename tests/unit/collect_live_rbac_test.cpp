// SPDX-License-Identifier: Apache-2.0
// A user who may not read everything gets a snapshot with notes, never a failed run.
#include <doctest/doctest.h>

#include "unit/collect_live_support.hpp"

using namespace collect_test;

namespace {

// Read access to everything the collector reads except Secrets.
nlohmann::json no_secrets_role(const std::string& user) {
  return nlohmann::json::array(
      {{{"apiVersion", "rbac.authorization.k8s.io/v1"},
        {"kind", "ClusterRole"},
        {"metadata", {{"name", "gpu-viewer"}}},
        {"rules",
         {{{"apiGroups", {""}}, {"resources", {"nodes", "pods", "events", "configmaps"}}, {"verbs", {"get", "list"}}},
          {{"apiGroups", {"apps"}}, {"resources", {"daemonsets", "deployments", "statefulsets"}}, {"verbs", {"get", "list"}}},
          {{"apiGroups", {"resource.k8s.io"}},
           {"resources", {"deviceclasses", "resourceslices", "resourceclaims", "resourceclaimtemplates"}},
           {"verbs", {"list"}}}}}},
       {{"apiVersion", "rbac.authorization.k8s.io/v1"},
        {"kind", "ClusterRoleBinding"},
        {"metadata", {{"name", "gpu-viewer"}}},
        {"roleRef", {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "ClusterRole"}, {"name", "gpu-viewer"}}},
        {"subjects", {{{"kind", "User"}, {"name", user}}}}}});
}

} // namespace

TEST_CASE("collect::collect as a user without access to Secrets") {
  kube_test::Cluster cluster(incident({kube_test::make_user("sre", "sre-token-s3cr3t", "", false, {})}));
  cluster.server.api().load(no_secrets_role("sre"));
  gpuslice::Snapshot admin = gpuslice::collect::collect(*cluster.admin(), {});
  auto client = cluster.client(cluster.endpoint("sre", fakekube::KubeconfigAuth::token));
  gpuslice::Snapshot limited = gpuslice::collect::collect(*client, {});

  REQUIRE(limited.meta.notes.size() == 1);
  CHECK(limited.meta.notes[0].starts_with("could not read secrets in nvidia-device-plugin: "));
  CHECK(limited.meta.notes[0].find("User \"sre\" cannot list resource \"secrets\"") != std::string::npos);
  CHECK(limited.helm_releases.empty());
  // Everything else is read as the admin reads it.
  CHECK(normalised(limited).nodes == normalised(admin).nodes);
  CHECK(names(limited.pods) == names(admin.pods));
  CHECK(names(limited.events) == names(admin.events));
  CHECK(names(limited.daemonsets) == names(admin.daemonsets));
  CHECK(limited.autoscaler_status == admin.autoscaler_status);
}

TEST_CASE("collect::collect as a user who may read nothing") {
  fakekube::Scenario scenario = incident({kube_test::make_user("nobody", "nobody-token-s3cr3t", "", false, {})});
  scenario.server_version = "v1.34.2";  // serves resource.k8s.io, whose lists are forbidden too
  kube_test::Cluster cluster(scenario);
  auto client = cluster.client(cluster.endpoint("nobody", fakekube::KubeconfigAuth::token));
  gpuslice::Snapshot snapshot = gpuslice::collect::collect(*client, {});
  CHECK(snapshot.nodes.empty());
  CHECK(snapshot.pods.empty());
  // One note per source the plan could not read, sorted; the three event lists fail as one.
  std::vector<std::string> sources;
  for (const std::string& note : snapshot.meta.notes) sources.push_back(note.substr(0, note.find(':')));
  CHECK(sources == std::vector<std::string>{
                       "could not read configmaps kube-system/cluster-autoscaler-status",
                       "could not read daemonsets in all namespaces",
                       "could not read deployments in all namespaces",
                       "could not read deviceclasses",
                       "could not read events in all namespaces",
                       "could not read nodes",
                       "could not read pods in all namespaces",
                       "could not read resourceclaims in all namespaces",
                       "could not read resourceclaimtemplates in all namespaces",
                       "could not read resourceslices",
                       "could not read statefulsets in all namespaces",
                   });
}

TEST_CASE("collect::collect propagates errors that are not about access") {
  kube_test::Cluster cluster(incident());
  auto client = cluster.admin();
  cluster.server.stop();
  CHECK_THROWS_AS(gpuslice::collect::collect(*client, {}), gpuslice::kube::ApiError);
}
