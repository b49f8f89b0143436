// SPDX-License-Identifier: Apache-2.0
// The query plan as the server sees it: per-node vs cluster-wide pod lists, requests that do
// not grow with CPU pods, namespace scope, and discovery before the ClusterPolicy list.
#include <fstream>
#include <map>
#include <mutex>

#include <nlohmann/json.hpp>

#include <doctest/doctest.h>

#include "unit/collect_live_support.hpp"

using namespace collect_test;
using gpuslice::Snapshot;

namespace {

const std::vector<std::string> k_cpu_extra_names = {"cpu-extra-0", "cpu-extra-1", "cpu-extra-2", "cpu-extra-3",
                                                    "cpu-extra-4", "cpu-extra-5", "cpu-extra-6"};

struct Run {
  Snapshot snapshot;
  std::vector<fakekube::LoggedRequest> log;
};

Run collect_logged(kube_test::Cluster& cluster, gpuslice::collect::Scope scope = {}) {
  cluster.server.clear_request_log();
  Run run;
  run.snapshot = gpuslice::collect::collect(*cluster.admin(), scope);
  run.log = cluster.server.request_log();
  return run;
}

} // namespace

TEST_CASE("collect::collect lists pods per GPU node when GPU nodes are few") {
  // 3 GPU nodes of 9 + 7 = 16: 18.75 %, under the 25 % line.
  kube_test::Cluster cluster(incident());
  cluster.server.api().load(cpu_nodes(7));
  gpuslice::collect::Scope scope;
  scope.page_size = 50; // small pages, so that any list touching the CPU pods would need more requests
  Run before = collect_logged(cluster, scope);
  CHECK(count_requests(before.log, "/api/v1/pods", "spec.nodeName=") == 3);
  CHECK(count_requests(before.log, "/api/v1/pods", "spec.nodeName=ip-10-0-1-17.us-west-2.compute.internal,status.phase!=Succeeded,status.phase!=Failed") == 1);
  // Each from the API server's watch cache (its spec.nodeName index), not a quorum read of all pods.
  CHECK(count_requests(before.log, "/api/v1/pods", "resourceVersion=0") == 3);
  CHECK(count_requests(before.log, "/api/v1/pods", "resourceVersion=") == 3); // the pending list reads the latest
  CHECK(count_requests(before.log, "/api/v1/pods", "fieldSelector=status.phase=Pending") == 1);
  CHECK(before.snapshot.pods.size() == 16);

  SUBCASE("200 CPU pods on CPU nodes change neither the requests nor the snapshot") {
    cluster.server.api().load(cpu_pods(200, k_cpu_extra_names));
    Run after = collect_logged(cluster, scope);
    CHECK(after.log.size() == before.log.size());
    CHECK(count_requests(after.log, "/api/v1/pods") == count_requests(before.log, "/api/v1/pods"));
    CHECK(names(after.snapshot.pods) == names(before.snapshot.pods));
  }
}

TEST_CASE("collect::collect lists pods cluster-wide when GPU nodes are a large share") {
  // The incident as it is: 3 GPU nodes of 9 (33 %).
  kube_test::Cluster cluster(incident());
  gpuslice::collect::Scope scope;
  scope.page_size = 50;
  Run before = collect_logged(cluster, scope);
  CHECK(count_requests(before.log, "/api/v1/pods", "spec.nodeName=") == 0);
  CHECK(count_requests(before.log, "/api/v1/pods", "fieldSelector=status.phase!=Succeeded,status.phase!=Failed") == 1);
  CHECK(before.snapshot.pods.size() == 16); // the same pods as per-node listing finds

  SUBCASE("the cluster-wide list pages through CPU pods but keeps none of them") {
    // The measured cost of this branch: 200 more pods at 50 a page are 4 more requests.
    cluster.server.api().load(cpu_pods(200, {"ip-10-0-2-24.us-west-2.compute.internal"}));
    Run after = collect_logged(cluster, scope);
    CHECK(count_requests(after.log, "/api/v1/pods", "status.phase!=Succeeded") ==
          count_requests(before.log, "/api/v1/pods", "status.phase!=Succeeded") + 4);
    CHECK(names(after.snapshot.pods) == names(before.snapshot.pods));
  }
}

TEST_CASE("collect::collect on a cluster with no GPU node") {
  fakekube::Scenario scenario;
  scenario.objects = cpu_nodes(3);
  for (auto& pod : cpu_pods(5, {"cpu-extra-0", "cpu-extra-1"})) scenario.objects.push_back(pod);
  // A GPU pod no node can take: the device plugin was never installed.
  nlohmann::json pending = running_pod("ml", "trainer", "", {{"nvidia.com/gpu", "1"}});
  pending["spec"].erase("nodeName");
  pending["status"] = {{"phase", "Pending"}};
  scenario.objects.push_back(pending);
  kube_test::Cluster cluster(scenario);
  Run run = collect_logged(cluster);
  CHECK(run.snapshot.nodes.size() == 3);
  CHECK(names(run.snapshot.pods) == std::vector<std::string>{"ml/trainer"});
  CHECK(run.snapshot.daemonsets.empty());
  CHECK(run.snapshot.helm_releases.empty());
  CHECK_FALSE(run.snapshot.autoscaler_status.has_value()); // a 404 of an optional source is silent
  CHECK(run.snapshot.meta.notes.empty());
  CHECK(count_requests(run.log, "/api/v1/pods") == 2); // only the pending and the Failed lists
  CHECK(count_requests(run.log, "/api/v1/namespaces/", "/secrets") == 0);
}

TEST_CASE("collect::collect in one namespace") {
  kube_test::Cluster cluster(incident());
  gpuslice::collect::Scope scope;
  scope.namespace_name = "research";
  Run run = collect_logged(cluster, scope);
  CHECK(count_requests(run.log, "/api/v1/namespaces/research/pods", "status.phase=Pending") == 1);
  CHECK(count_requests(run.log, "/api/v1/namespaces/research/events", "reason=FailedScheduling") == 1);
  // The autoscaler Deployment is looked for where it runs, not in the scope.
  CHECK(count_requests(run.log, "/apis/apps/v1/namespaces/kube-system/deployments") == 1);
  CHECK(run.snapshot.meta.namespace_scope == "research");
  // No pending GPU pod in research, but the GPU nodes are still read in full.
  CHECK(run.snapshot.events.empty());
  CHECK(run.snapshot.nodes.size() == 9);
  CHECK(run.snapshot.pods.size() == 12);
  CHECK(names(run.snapshot.deployments) == std::vector<std::string>{"kube-system/cluster-autoscaler"});
}

TEST_CASE("collect::collect reads the ClusterPolicy only when its CRD exists") {
  kube_test::Cluster cluster(incident());
  SUBCASE("no CRD: discovery says 404 and nothing else is asked") {
    Run run = collect_logged(cluster);
    CHECK(count_requests(run.log, "/apis/nvidia.com/v1") == 1);
    CHECK(count_requests(run.log, "/apis/nvidia.com/v1/clusterpolicies") == 0);
    CHECK(run.snapshot.cluster_policies.empty());
    CHECK(run.snapshot.meta.notes.empty());
  }
  SUBCASE("with the CRD: the policy and the ConfigMap it names") {
    cluster.server.api().load(nlohmann::json::array(
        {{{"apiVersion", "apiextensions.k8s.io/v1"},
          {"kind", "CustomResourceDefinition"},
          {"metadata", {{"name", "clusterpolicies.nvidia.com"}}},
          {"spec",
           {{"group", "nvidia.com"},
            {"scope", "Cluster"},
            {"names", {{"plural", "clusterpolicies"}, {"singular", "clusterpolicy"}, {"kind", "ClusterPolicy"}, {"listKind", "ClusterPolicyList"}}},
            {"versions", {{{"name", "v1"}, {"served", true}, {"storage", true}}}}}}},
         {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "gpu-operator"}}}},
         {{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata", {{"name", "time-slicing-config"}, {"namespace", "gpu-operator"}}},
          {"data", {{"any", "version: v1\nsharing:\n  timeSlicing:\n    resources:\n    - name: nvidia.com/gpu\n      replicas: 4\n"}}}}}));
    cluster.server.api().load({{"apiVersion", "nvidia.com/v1"},
                               {"kind", "ClusterPolicy"},
                               {"metadata", {{"name", "cluster-policy"}}},
                               {"spec", {{"devicePlugin", {{"config", {{"name", "time-slicing-config"}, {"default", "any"}}}}}}},
                               {"status", {{"state", "ready"}, {"namespace", "gpu-operator"}}}});
    Run run = collect_logged(cluster);
    REQUIRE(run.snapshot.cluster_policies.size() == 1);
    CHECK(run.snapshot.cluster_policies[0].config_name == "time-slicing-config");
    CHECK(names(run.snapshot.configmaps) == std::vector<std::string>{"gpu-operator/time-slicing-config"});
    CHECK(count_requests(run.log, "/api/v1/namespaces/gpu-operator/secrets", "owner=helm") == 1);
  }
}

namespace {

// The incident at Kubernetes 1.34, the first release serving resource.k8s.io/v1 by default.
fakekube::Scenario incident_with_dra() {
  fakekube::Scenario s = incident();
  s.server_version = "v1.34.2";
  return s;
}

} // namespace

TEST_CASE("collect::collect reads the DRA kinds at the version discovery serves, and pending pods with claims") {
  kube_test::Cluster cluster(incident_with_dra());
  std::ifstream in(std::string(GPUSLICE_SOURCE_DIR) + "/tests/fixtures/objects/dra-gpu-v1.json");
  const nlohmann::json list = nlohmann::json::parse(in);
  cluster.server.api().load(list["items"]);
  Run run = collect_logged(cluster);
  // Paths match by prefix: discovery of the group version, then its four lists.
  // The group's APIGroup document once, then its four lists at the preferred version.
  CHECK(count_requests(run.log, "/apis/resource.k8s.io") == 5);
  CHECK(count_requests(run.log, "/apis/resource.k8s.io/v1") == 4);
  CHECK(count_requests(run.log, "/apis/resource.k8s.io/v1/deviceclasses") == 1);
  CHECK(count_requests(run.log, "/apis/resource.k8s.io/v1/resourceslices") == 1);
  CHECK(count_requests(run.log, "/apis/resource.k8s.io/v1/resourceclaims") == 1);
  CHECK(count_requests(run.log, "/apis/resource.k8s.io/v1/resourceclaimtemplates") == 1);
  // v1 is served: the older versions are not asked for.
  CHECK(count_requests(run.log, "/apis/resource.k8s.io/v1beta2") == 0);
  REQUIRE(run.snapshot.resource_slices.size() == 1);
  CHECK(run.snapshot.resource_slices[0].devices.size() == 2);
  REQUIRE(run.snapshot.resource_claims.size() == 1);
  CHECK(run.snapshot.resource_claims[0].allocated_node == "gpu-node-1");
  CHECK(names(run.snapshot.resource_claim_templates) == std::vector<std::string>{"ml/two-gpus"});
  CHECK(names(run.snapshot.device_classes) == std::vector<std::string>{"gpu.nvidia.com"});
  // The pending pod asks for no nvidia.com/gpu, only a claim: kept, for the DRA diagnosis.
  bool kept = false;
  for (const auto& pod : run.snapshot.pods) kept = kept || pod.meta.name == "trainer-0";
  CHECK(kept);
  CHECK(run.snapshot.meta.notes.empty());
}

TEST_CASE("collect::collect on a cluster without the DRA API asks nothing of resource.k8s.io") {
  kube_test::Cluster cluster(incident());  // v1.30: resource.k8s.io is not served
  Run run = collect_logged(cluster);
  // One discovery request, answered 404, and no list.
  CHECK(count_requests(run.log, "/apis/resource.k8s.io") == 1);
  CHECK(count_requests(run.log, "/apis/resource.k8s.io/") == 0);
  CHECK(run.snapshot.device_classes.empty());
  CHECK(run.snapshot.resource_slices.empty());
  CHECK(run.snapshot.meta.notes.empty());  // an absent API is not a gap in what was read
  // The same cluster at 1.34 serves the group: its (empty) lists are read.
  kube_test::Cluster newer(incident_with_dra());
  CHECK(count_requests(collect_logged(newer).log, "/apis/resource.k8s.io/v1/resourceslices") == 1);
}

TEST_CASE("collect::collect reports each list page read to Scope::on_page") {
  kube_test::Cluster cluster(incident());
  cluster.server.api().load(cpu_pods(200, {"ip-10-0-2-24.us-west-2.compute.internal"}));
  gpuslice::collect::Scope scope;
  scope.page_size = 50;
  std::mutex mutex;
  std::map<std::string, std::vector<gpuslice::collect::PageRead>> reads; // by list
  scope.on_page = [&](const gpuslice::collect::PageRead& read) {
    const std::lock_guard lock(mutex);
    reads[read.what].push_back(read);
  };
  Run run = collect_logged(cluster, scope);
  // One call per page the server sent, numbered from 1, with a running item count.
  std::size_t calls = 0;
  for (const auto& [what, pages] : reads) {
    for (std::size_t i = 0; i < pages.size(); ++i) {
      INFO(what, " page ", i + 1);
      CHECK(pages[i].page == static_cast<int>(i + 1));
      if (i > 0) CHECK(pages[i].items >= pages[i - 1].items);
    }
    calls += pages.size();
  }
  CHECK(calls >= reads.size());
  // The cluster-wide pod list: every pod the server holds that is not Succeeded or Failed
  // (231: the incident's 31 and the 200 added) at 50 a page is 5 pages, every item counted.
  gpuslice::kube::ListOptions all_live;
  all_live.field_selector = "status.phase!=Succeeded,status.phase!=Failed";
  const std::size_t live_pods = cluster.admin()->list_items({"", "v1", "pods", true}, all_live).size();
  CHECK(live_pods == 231);
  const auto pods = reads.find("pods in all namespaces (status.phase!=Succeeded,status.phase!=Failed)");
  REQUIRE(pods != reads.end());
  CHECK(pods->second.size() == 5);
  CHECK(count_requests(run.log, "/api/v1/pods", "status.phase!=Succeeded") == 5);
  CHECK(pods->second.back().items == live_pods);
}

TEST_CASE("collect::collect keeps the GPU pods the kubelet refused at admission, from one Failed list") {
  fakekube::Scenario scenario = incident();
  auto failed = [](const std::string& name, const std::string& reason, nlohmann::json resources) {
    nlohmann::json pod = running_pod("ml", name, "ip-10-0-1-17.us-west-2.compute.internal", std::move(resources));
    pod["status"] = {{"phase", "Failed"}, {"reason", reason},
                     {"message", "Allocate failed due to rpc error: maximum request size for shared resources is 1"}};
    return pod;
  };
  scenario.objects.push_back(failed("refused", "UnexpectedAdmissionError", {{"nvidia.com/gpu", "2"}}));
  scenario.objects.push_back(failed("evicted", "Evicted", {{"nvidia.com/gpu", "1"}}));              // another reason
  scenario.objects.push_back(failed("cpu-refused", "UnexpectedAdmissionError", {{"cpu", "1"}}));     // no GPU
  kube_test::Cluster cluster(scenario);
  Run run = collect_logged(cluster);
  CHECK(count_requests(run.log, "/api/v1/pods", "fieldSelector=status.phase=Failed") == 1);
  std::vector<std::string> refused;
  for (const gpuslice::model::Pod& pod : run.snapshot.pods)
    if (pod.phase == "Failed") refused.push_back(pod.meta.ns + "/" + pod.meta.name);
  CHECK(refused == std::vector<std::string>{"ml/refused"});
  const auto kept = std::find_if(run.snapshot.pods.begin(), run.snapshot.pods.end(),
                                 [](const gpuslice::model::Pod& p) { return p.meta.name == "refused"; });
  REQUIRE(kept != run.snapshot.pods.end());
  CHECK(kept->message.find("maximum request size for shared resources is 1") != std::string::npos);
}
