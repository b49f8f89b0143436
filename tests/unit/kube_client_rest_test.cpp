// SPDX-License-Identifier: Apache-2.0
// Verbs, paging, watch and error types against fakekube.
#include <atomic>
#include <thread>

#include <doctest/doctest.h>

#include "unit/kube_fakekube_support.hpp"

using gpuslice::kube::ApiError;
using gpuslice::kube::ListOptions;
using gpuslice::kube::ListPage;
using gpuslice::kube::ObjectRef;
using gpuslice::kube::PatchType;
using gpuslice::kube::WriteOptions;
using namespace kube_test;

namespace {

nlohmann::json config_map(const std::string& name) {
  return {{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata", {{"name", name}, {"namespace", "gpu"}}},
          {"data", {{"a", "1"}}}};
}

std::vector<fakekube::LoggedRequest> writes(const Cluster& cluster) {
  std::vector<fakekube::LoggedRequest> out;
  for (const fakekube::LoggedRequest& r : cluster.server.request_log()) {
    if (r.method != "GET") {
      out.push_back(r);
    }
  }
  return out;
}

ApiError api_error_of(const std::function<void()>& call) {
  try {
    call();
  } catch (const ApiError& e) {
    return e;
  }
  FAIL("expected an ApiError");
  throw std::logic_error("unreachable");
}

} // namespace

TEST_CASE("kube::collection_path") {
  CHECK(gpuslice::kube::collection_path(k_pods, "gpu") == "/api/v1/namespaces/gpu/pods");
  CHECK(gpuslice::kube::collection_path(k_pods, "") == "/api/v1/pods");
  CHECK(gpuslice::kube::collection_path(k_nodes, "ignored") == "/api/v1/nodes");
  CHECK(gpuslice::kube::collection_path({"apps", "v1", "daemonsets", true}, "kube-system") ==
        "/apis/apps/v1/namespaces/kube-system/daemonsets");
  CHECK(gpuslice::kube::object_path({{"apps", "v1", "deployments", true}, "a", "web", "status"}) ==
        "/apis/apps/v1/namespaces/a/deployments/web/status");
}

TEST_CASE("kube::Client verbs") {
  Cluster cluster;
  auto client = cluster.admin();
  const ObjectRef cm{k_configmaps, "gpu", "settings", ""};

  SUBCASE("create, get, update with resourceVersion, 409 on a stale one") {
    const nlohmann::json created = client->create(k_configmaps, "gpu", config_map("settings"));
    CHECK(created["metadata"]["uid"].is_string());
    nlohmann::json current = client->get(cm);
    current["data"]["a"] = "2";
    const nlohmann::json updated = client->update(cm, current);
    CHECK(updated["data"]["a"] == "2");
    current["data"]["a"] = "3"; // still carries the old resourceVersion
    const ApiError conflict = api_error_of([&] { client->update(cm, current); });
    CHECK(conflict.is_conflict());
    CHECK(conflict.verb == "update");
    const ApiError exists = api_error_of([&] { client->create(k_configmaps, "gpu", config_map("settings")); });
    CHECK(exists.is_already_exists());
    const std::vector<fakekube::LoggedRequest> w = writes(cluster);
    REQUIRE(w.size() >= 2);
    CHECK(w[0].method == "POST");
    CHECK(w[0].query.find("fieldManager=kubectl-gpuslice") != std::string::npos);
    CHECK(w[0].content_type.find("application/json") == 0);
  }
  SUBCASE("patch: json, merge, strategic and server-side apply with our field manager") {
    client->create(k_configmaps, "gpu", config_map("settings"));
    client->patch(cm, PatchType::json, R"([{"op":"add","path":"/data/b","value":"x"}])");
    client->patch(cm, PatchType::merge, R"({"data":{"c":"y"}})");
    client->patch(cm, PatchType::strategic, R"({"metadata":{"labels":{"l":"v"}}})");
    const nlohmann::json applied = client->patch(
        cm, PatchType::apply, R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"settings","namespace":"gpu"},"data":{"d":"z"}})",
        WriteOptions{false, "", true});
    CHECK(applied["data"]["b"] == "x");
    CHECK(applied["data"]["c"] == "y");
    CHECK(applied["data"]["d"] == "z");
    CHECK(applied["metadata"]["labels"]["l"] == "v");
    const std::vector<fakekube::LoggedRequest> w = writes(cluster);
    REQUIRE(w.size() == 5);
    CHECK(w[1].content_type.find("application/json-patch+json") == 0);
    CHECK(w[2].content_type.find("application/merge-patch+json") == 0);
    CHECK(w[3].content_type.find("application/strategic-merge-patch+json") == 0);
    CHECK(w[4].content_type.find("application/apply-patch+yaml") == 0);
    CHECK(w[4].query.find("fieldManager=kubectl-gpuslice") != std::string::npos);
    CHECK(w[4].query.find("force=true") != std::string::npos);
  }
  SUBCASE("dryRun=All on every mutation changes nothing") {
    client->create(k_configmaps, "gpu", config_map("settings"));
    const WriteOptions dry{true, "", false};
    client->create(k_configmaps, "gpu", config_map("dry"), dry);
    client->patch(cm, PatchType::merge, R"({"data":{"a":"changed"}})", dry);
    client->update(cm, client->get(cm), dry);
    client->remove(cm, {true, "Background", std::nullopt});
    CHECK(client->get(cm)["data"]["a"] == "1");
    CHECK(api_error_of([&] { client->get({k_configmaps, "gpu", "dry", ""}); }).is_not_found());
    const std::vector<fakekube::LoggedRequest> w = writes(cluster);
    REQUIRE(w.size() == 5);
    for (std::size_t i = 1; i < w.size(); ++i) {
      CHECK(w[i].query.find("dryRun=All") != std::string::npos);
    }
  }
  SUBCASE("delete with a propagation policy; 404 after") {
    client->create(k_configmaps, "gpu", config_map("settings"));
    client->remove(cm, {false, "Foreground", 0});
    const ApiError gone = api_error_of([&] { client->get(cm); });
    CHECK(gone.is_not_found());
    CHECK(std::string(gone.what()) == "Error from server (NotFound): configmaps \"settings\" not found "
                                      "(get /api/v1/namespaces/gpu/configmaps/settings)");
  }
  SUBCASE("403 names the missing permission") {
    auto viewer = cluster.client(cluster.endpoint("viewer", fakekube::KubeconfigAuth::token));
    const ApiError e = api_error_of([&] { viewer->list_items(k_nodes, {}); });
    CHECK(e.is_forbidden());
    CHECK(std::string(e.what()).find("cannot list resource \"nodes\"") != std::string::npos);
  }
}

TEST_CASE("kube::Client::list") {
  Cluster cluster(default_scenario(25));
  auto client = cluster.admin();
  SUBCASE("pages of `limit` streamed one by one, following continue") {
    std::vector<std::size_t> sizes;
    std::vector<bool> last;
    client->list(k_pods, ListOptions{"gpu", "", "", 10, ""}, [&](const ListPage& page) {
      CHECK(page.index == static_cast<int>(sizes.size()));
      CHECK_FALSE(page.restarted);
      sizes.push_back(nlohmann::json::parse(page.body)["items"].size());
      last.push_back(page.last);
    });
    CHECK(sizes == std::vector<std::size_t>{10, 10, 5});
    CHECK(last == std::vector<bool>{false, false, true});
    const std::vector<fakekube::LoggedRequest> log = cluster.server.request_log();
    REQUIRE(log.size() == 3);
    CHECK(log[0].query.find("limit=10") != std::string::npos);
    CHECK(log[1].query.find("continue=") != std::string::npos);
  }
  SUBCASE("selectors are sent and applied") {
    CHECK(client->list_items(k_pods, ListOptions{"gpu", "app=demo", "metadata.name=pod-101", 500, ""}).size() == 1);
    CHECK(client->list_items(k_pods, ListOptions{"gpu", "app=other", "", 500, ""}).empty());
  }
  SUBCASE("an expired continue token restarts the list, then falls back to one unpaged list") {
    cluster.server.api().faults().expire_continue_tokens = true;
    int restarts = 0;
    std::size_t items_after_last_restart = 0;
    client->list(k_pods, ListOptions{"gpu", "", "", 10, ""}, [&](const ListPage& page) {
      if (page.restarted) {
        ++restarts;
        items_after_last_restart = 0;
      }
      items_after_last_restart += nlohmann::json::parse(page.body)["items"].size();
    });
    CHECK(restarts == 2);
    CHECK(items_after_last_restart == 25);
    CHECK(client->list_items(k_pods, ListOptions{"gpu", "", "", 10, ""}).size() == 25);
  }
  SUBCASE("all namespaces") {
    CHECK(client->list_items(k_pods, ListOptions{"", "", "", 7, ""}).size() == 25);
  }
}

TEST_CASE("kube::Client::watch") {
  Cluster cluster;
  auto client = cluster.admin();
  const std::string rv = client->get({k_pods, "gpu", "pod-100", ""})["metadata"]["resourceVersion"];
  std::vector<std::string> seen;
  std::thread writer([&cluster] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    auto other = cluster.admin();
    other->create(k_configmaps, "gpu", config_map("watched"));
  });
  client->watch(k_configmaps, {"gpu", "", "", rv, 10, false}, [&](const gpuslice::kube::WatchEvent& event) {
    seen.push_back(event.type + " " + event.object["metadata"]["name"].get<std::string>());
    return false; // stop after the first event
  });
  writer.join();
  CHECK(seen == std::vector<std::string>{"ADDED watched"});
}

TEST_CASE("kube::Client::parallel") {
  Cluster cluster(default_scenario(20));
  auto client = cluster.admin();
  std::vector<std::function<void()>> tasks;
  std::atomic<int> found{0};
  for (int i = 0; i < 20; ++i) {
    tasks.emplace_back([&client, &found, i] {
      if (client->get({k_pods, "gpu", "pod-" + std::to_string(100 + i), ""}).contains("spec")) {
        ++found;
      }
    });
  }
  client->parallel(tasks);
  CHECK(found == 20);
  tasks.emplace_back([&client] { client->get({k_pods, "gpu", "missing", ""}); });
  CHECK_THROWS_AS(client->parallel(tasks), ApiError);
}
