// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include <gpuslice/collect.hpp>
#include <gpuslice/error.hpp>

#include "unit/builders.hpp"

using namespace gpuslice;
using namespace gpuslice::testing;

namespace {

const std::string k_objects = std::string(GPUSLICE_SOURCE_DIR) + "/tests/fixtures/objects/";

// A file under the build tree holding `text`; removed when the test ends.
class TempFile {
public:
  TempFile(const std::string& name, const std::string& text)
      : m_path(std::filesystem::path(GPUSLICE_BINARY_DIR) / "collect-test" / name) {
    std::filesystem::create_directories(m_path.parent_path());
    std::ofstream(m_path, std::ios::binary) << text;
  }
  ~TempFile() { std::filesystem::remove(m_path); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  std::string path() const { return m_path.string(); }

private:
  std::filesystem::path m_path;
};

// The UsageError text of loading `text`, or "" if it loaded.
std::string load_error(const std::string& name, const std::string& text) {
  TempFile file(name, text);
  try {
    collect::load_snapshot_files({file.path()});
  } catch (const UsageError& e) {
    return e.what();
  }
  return {};
}

} // namespace

TEST_CASE("collect::load_snapshot_files") {
  SUBCASE("kubectl List of nodes") {
    Snapshot s = collect::load_snapshot_files({k_objects + "nodes-list.json"});
    REQUIRE(s.nodes.size() == 2);
    const model::Node& gpu = s.nodes[0];
    CHECK(gpu.name() == "ip-10-0-1-17.us-west-2.compute.internal");
    CHECK(gpu.instance_type() == "g4dn.xlarge");
    CHECK(model::quantity_of(gpu.allocatable, "nvidia.com/gpu").value() == 1);
    CHECK(gpu.ready() == true);
    CHECK(model::is_gpu_node(gpu));
    CHECK(s.nodes[1].unschedulable);
    CHECK(!s.nodes[1].ready().has_value());
    CHECK(!model::is_gpu_node(s.nodes[1]));
  }
  SUBCASE("API PodList whose items carry no kind") {
    Snapshot s = collect::load_snapshot_files({k_objects + "pods-podlist.json"});
    REQUIRE(s.pods.size() == 2);
    CHECK(s.pods[0].is_unscheduled());
    CHECK(model::effective_request(s.pods[0].spec, "nvidia.com/gpu").value() == 1);
    const model::Pod& plugin = s.pods[1];
    REQUIRE(plugin.container_statuses.size() == 1);
    CHECK(plugin.container_statuses[0].reason == "CrashLoopBackOff");
    CHECK(plugin.container_statuses[0].restart_count == 7);
    CHECK(plugin.container_statuses[0].last_terminated_reason == "Error");
    // A pod's env and volumes are not kept (decode.hpp): diagnosis does not read them.
    CHECK(plugin.spec.containers[0].env.empty());
    CHECK(plugin.spec.volumes.empty());
  }
  SUBCASE("multi-document YAML with both event API versions") {
    Snapshot s = collect::load_snapshot_files({k_objects + "events-v1.yaml"});
    REQUIRE(s.events.size() == 2);
    CHECK(s.events[0].reason == "FailedScheduling");
    CHECK(s.events[0].component() == "default-scheduler");
    CHECK(s.events[0].occurrences() == 14);
    CHECK(s.events[0].regarding.name == "gpu-inference-7c9d8b6f5-x2k4q");
    CHECK(s.events[0].message.find("didn't match Pod's node affinity/selector") != std::string::npos);
    CHECK(s.events[1].component() == "cluster-autoscaler");
    CHECK(s.events[1].occurrences() == 31);
  }
  SUBCASE("device plugin, config, ClusterPolicy and the autoscaler status") {
    Snapshot s = collect::load_snapshot_files({k_objects + "device-plugin.yaml"});
    REQUIRE(s.daemonsets.size() == 1);
    const model::DaemonSet& ds = s.daemonsets[0];
    CHECK(ds.status.number_ready == 2);
    CHECK(ds.status.number_unavailable == 1);
    REQUIRE(ds.pod_template.spec.required_affinity.has_value());
    CHECK(ds.pod_template.spec.required_affinity->terms.size() == 3);
    CHECK(ds.pod_template.spec.volumes[1].config_map == "time-slicing-config");
    // `version: 0.17.1` and `"2"` are text in labels/annotations whatever YAML typing says.
    CHECK(ds.meta.labels.at("app.kubernetes.io/version") == "0.17.1");
    REQUIRE(s.configmaps.size() == 1);
    CHECK(s.configmaps[0].data.at("any").find("replicas: 4") != std::string::npos);
    REQUIRE(s.cluster_policies.size() == 1);
    CHECK(s.cluster_policies[0].config_name == "time-slicing-config");
    CHECK(s.cluster_policies[0].config_default == "any");
    REQUIRE(s.autoscaler_status.has_value());
    CHECK(s.autoscaler_status->ns == "kube-system");
    CHECK(s.autoscaler_status->text.starts_with("time: 2026-12-01"));
    CHECK(s.autoscaler_status->last_updated == "2026-12-01 09:03:14.551871 +0000 UTC");
  }
  SUBCASE("Helm release Secret is reduced to its summary") {
    Snapshot s = collect::load_snapshot_files({k_objects + "helm-release-secret.json"});
    REQUIRE(s.helm_releases.size() == 1);
    CHECK(s.helm_releases[0].chart_name == "nvidia-device-plugin");
    std::string written = write_snapshot(s);
    CHECK(written.find("secret-") == std::string::npos);
    CHECK(written.find("\"data\"") == std::string::npos);
  }
  SUBCASE("several files merge; the same object twice is kept once") {
    Snapshot s = collect::load_snapshot_files(
        {k_objects + "nodes-list.json", k_objects + "pods-podlist.json", k_objects + "nodes-list.json"});
    CHECK(s.nodes.size() == 2);
    CHECK(s.pods.size() == 2);
  }
  SUBCASE("a JSON array of objects and a single object") {
    TempFile array("array.json", nlohmann::json::array({NodeBuilder("a").json(), NodeBuilder("b").json()}).dump());
    TempFile single("single.json", PodBuilder("ns", "p").json().dump());
    Snapshot s = collect::load_snapshot_files({array.path(), single.path()});
    CHECK(s.nodes.size() == 2);
    CHECK(s.pods.size() == 1);
  }
  SUBCASE("streamed <Kind>List: kubectl writes items before kind") {
    nlohmann::json pod = PodBuilder("ml", "p").gpus(1).json();
    pod.erase("kind");
    nlohmann::json list = {{"apiVersion", "v1"}, {"kind", "PodList"}, {"items", {pod, pod}}, {"metadata", nlohmann::json::object()}};
    list["items"][1]["metadata"]["name"] = "q";
    std::string text = list.dump(); // keys sorted: "items" comes before "kind"
    REQUIRE(text.find("\"items\"") < text.find("\"kind\":\"PodList\""));
    TempFile file("podlist.json", text);
    Snapshot s = collect::load_snapshot_files({file.path()});
    REQUIRE(s.pods.size() == 2);
    CHECK(s.pods[1].meta.name == "q");
    Snapshot whole;
    collect::merge_object(whole, list, "same");
    CHECK(whole.pods == s.pods);
  }
  SUBCASE("an empty List is a valid answer (no pending pods)") {
    TempFile empty("empty-list.json", list_of({}).dump());
    CHECK(collect::load_snapshot_files({empty.path()}).pods.empty());
  }
  SUBCASE("kinds diagnose does not read are skipped next to ones it does") {
    nlohmann::json service = {{"apiVersion", "v1"}, {"kind", "Service"}, {"metadata", {{"name", "svc"}}}};
    TempFile mixed("mixed.json", list_of({service, NodeBuilder("n").json()}).dump());
    CHECK(collect::load_snapshot_files({mixed.path()}).nodes.size() == 1);
  }
}

TEST_CASE("collect::load_snapshot_files errors") {
  SUBCASE("missing file") {
    std::string missing = k_objects + "no-such-file.json";
    try {
      collect::load_snapshot_files({missing});
      FAIL("expected UsageError");
    } catch (const UsageError& e) {
      CHECK(std::string(e.what()).find(missing) != std::string::npos);
      CHECK(std::string(e.what()).find("cannot open") != std::string::npos);
    }
  }
  SUBCASE("no files") { CHECK_THROWS_AS(collect::load_snapshot_files({}), UsageError); }
  SUBCASE("empty file") {
    CHECK(load_error("empty.json", "").find("empty.json: empty file") != std::string::npos);
    CHECK(load_error("blank.yaml", "  \n\n").find("empty file") != std::string::npos);
    CHECK(load_error("comments.yaml", "# nothing\n---\n").find("empty file") != std::string::npos);
  }
  SUBCASE("truncated JSON") {
    std::string text = NodeBuilder("n").json().dump();
    std::string error = load_error("cut.json", text.substr(0, text.size() / 2));
    CHECK(error.find("cut.json: truncated JSON") != std::string::npos);
  }
  SUBCASE("truncated List") {
    std::string text = list_of({NodeBuilder("a").json(), NodeBuilder("b").json()}).dump();
    std::string error = load_error("cut-list.json", text.substr(0, text.size() - 40));
    CHECK_MESSAGE(error.find("cut-list.json: ") != std::string::npos, error);
    CHECK(load_error("tail.json", text + " trailing").find("tail.json: invalid JSON") != std::string::npos);
  }
  SUBCASE("invalid JSON") {
    CHECK(load_error("bad.json", "{\"kind\": Node}").find("bad.json: invalid JSON at byte") != std::string::npos);
  }
  SUBCASE("invalid YAML") {
    std::string error = load_error("bad.yaml", "kind: Node\nmetadata: {name: [x\n");
    CHECK(error.find("bad.yaml: not valid YAML or JSON: line") != std::string::npos);
  }
  SUBCASE("plain text is not a Kubernetes object") {
    std::string error = load_error("notes.txt", "just some words\n");
    CHECK(error.find("notes.txt: document 1 is not a Kubernetes object") != std::string::npos);
  }
  SUBCASE("object without kind") {
    CHECK(load_error("nokind.json", R"({"metadata": {"name": "x"}})").find("has no \"kind\"") != std::string::npos);
    std::string in_list = load_error("nokind-list.json", list_of({{{"metadata", {{"name", "x"}}}}}).dump());
    CHECK(in_list.find("document 1 item 1 has no \"kind\"") != std::string::npos);
  }
  SUBCASE("wrong kind: nothing diagnose reads") {
    std::string error =
        load_error("service.yaml", "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n");
    CHECK(error.find("service.yaml: no object diagnose reads (found Service)") != std::string::npos);
  }
  SUBCASE("items that are not a list, items that are not objects") {
    CHECK(load_error("items.json", R"({"kind": "List", "items": 5})").find("\"items\" is not a list") !=
          std::string::npos);
    CHECK(load_error("items2.json", R"({"kind": "List", "items": [1]})").find("item 1 is not an object") !=
          std::string::npos);
  }
  SUBCASE("binary garbage") {
    std::string garbage("\x1f\x8b\x08\x00\xff\xfe\x00\x01", 8);
    CHECK(!load_error("garbage.bin", garbage).empty());
  }
  SUBCASE("hostile nesting") {
    for (std::size_t depth : {300u, 5000u, 100000u}) {
      std::string deep = std::string(depth, '[') + std::string(depth, ']');
      CHECK(!load_error("deep.yaml", "kind: Node\nmetadata: {name: x}\nspec: " + deep).empty());
      CHECK(!load_error("deep.json", deep).empty());
    }
  }
}

TEST_CASE("collect::merge_object") {
  Snapshot s;
  CHECK(collect::merge_object(s, NodeBuilder("n1").json(), "test") == 1);
  CHECK(collect::merge_object(s, DaemonSetBuilder("kube-system", "ds").json(), "test") == 1);
  CHECK(collect::merge_object(s, DeploymentBuilder("ml", "d").kind("StatefulSet").json(), "test") == 1);
  nlohmann::json plain_secret = {{"apiVersion", "v1"}, {"kind", "Secret"}, {"type", "Opaque"},
                                 {"metadata", {{"name", "db"}, {"namespace", "ml"}}},
                                 {"data", {{"password", "aHVudGVyMg=="}}}};
  CHECK(collect::merge_object(s, plain_secret, "test") == 0);
  CHECK(s.nodes.size() == 1);
  CHECK(s.daemonsets.size() == 1);
  CHECK(s.statefulsets.size() == 1);
  CHECK(s.deployments.empty());
  CHECK(write_snapshot(s).find("aHVudGVyMg") == std::string::npos);
  CHECK_THROWS_AS(collect::merge_object(s, nlohmann::json(42), "test"), UsageError);
}

TEST_CASE("DRA objects read alike from v1 JSON and v1beta1 YAML, and survive a snapshot file") {
  // JSON is read through simdjson, YAML through nlohmann: one record from either.
  const Snapshot v1 = collect::load_snapshot_files({k_objects + "dra-gpu-v1.json"});
  const Snapshot beta1 = collect::load_snapshot_files({k_objects + "dra-gpu-v1beta1.yaml"});
  REQUIRE(v1.device_classes.size() == 1);
  REQUIRE(v1.resource_slices.size() == 1);
  REQUIRE(v1.resource_claims.size() == 1);
  REQUIRE(v1.resource_claim_templates.size() == 1);
  REQUIRE(v1.pods.size() == 1);
  CHECK(v1.resource_slices[0].devices.size() == 2);
  CHECK(v1.resource_slices[0].devices[1].attributes.size() == 4);
  CHECK(v1.resource_claims[0].allocated_node == "gpu-node-1");
  CHECK(v1.resource_claim_templates[0].requests[0].exactly.count == 2);
  CHECK(v1.pods[0].spec.resource_claims[0].template_name == "two-gpus");
  CHECK(v1.pods[0].claim_statuses[0].claim_name == "trainer-0-gpus-8vxzq");
  CHECK(beta1.device_classes == v1.device_classes);
  CHECK(beta1.resource_slices == v1.resource_slices);
  CHECK(beta1.resource_claims == v1.resource_claims);
  CHECK(beta1.resource_claim_templates == v1.resource_claim_templates);
  CHECK(beta1.pods == v1.pods);

  TempFile written("dra-snapshot.json", write_snapshot(v1));
  const Snapshot again = collect::load_snapshot_files({written.path()});
  CHECK(again.device_classes == v1.device_classes);
  CHECK(again.resource_slices == v1.resource_slices);
  CHECK(again.resource_claims == v1.resource_claims);
  CHECK(again.resource_claim_templates == v1.resource_claim_templates);
  CHECK(again.pods == v1.pods);
}
