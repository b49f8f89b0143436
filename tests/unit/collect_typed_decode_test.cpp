// SPDX-License-Identifier: Apache-2.0
// The large-List path decodes items straight from simdjson into the typed records; the
// document path goes through nlohmann values. Both must give the same Snapshot, field for
// field, for every fixture and example and for odd input (typed scalars, nulls, duplicates).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include <gpuslice/collect.hpp>
#include <gpuslice/error.hpp>
#include <gpuslice/snapshot.hpp>

#include "collect/merge.hpp"
#include "collect/yaml_json.hpp"

using namespace gpuslice;

namespace {

std::string typed_decode_read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// One List of every object in `documents` (Lists flattened, their item kind made explicit),
// so that a YAML scenario or a single object can take the List path too.
nlohmann::json typed_decode_as_list(const std::vector<nlohmann::json>& documents) {
  nlohmann::json items = nlohmann::json::array();
  for (const nlohmann::json& document : documents) {
    std::string kind = document.value("kind", "");
    if (!kind.ends_with("List") || !document.contains("items")) {
      items.push_back(document);
      continue;
    }
    for (nlohmann::json item : document["items"]) {
      if (kind != "List" && !item.contains("kind")) item["kind"] = kind.substr(0, kind.size() - 4);
      items.push_back(std::move(item));
    }
  }
  return {{"apiVersion", "v1"}, {"kind", "List"}, {"metadata", nlohmann::json::object()}, {"items", items}};
}

// `text` read through a window of `window` bytes.
bool typed_decode_windowed(Snapshot& snapshot, std::string_view text, std::size_t window) {
  return collect::merge_list_window(snapshot, collect::text_reader(text), "windowed.json", window);
}

void typed_decode_check_window(const std::string& text, const std::string& name, std::size_t window) {
  CAPTURE(name);
  Snapshot by_nlohmann;
  collect::merge_documents(by_nlohmann, {nlohmann::json::parse(text)}, name);
  Snapshot by_simdjson;
  REQUIRE(typed_decode_windowed(by_simdjson, text, window));
  CHECK(by_simdjson.nodes == by_nlohmann.nodes);
  CHECK(by_simdjson.pods == by_nlohmann.pods);
  CHECK(by_simdjson.events == by_nlohmann.events);
  CHECK(by_simdjson.daemonsets == by_nlohmann.daemonsets);
  CHECK(by_simdjson.deployments == by_nlohmann.deployments);
  CHECK(by_simdjson.statefulsets == by_nlohmann.statefulsets);
  CHECK(by_simdjson.configmaps == by_nlohmann.configmaps);
  CHECK(by_simdjson.helm_releases == by_nlohmann.helm_releases);
  CHECK(by_simdjson.cluster_policies == by_nlohmann.cluster_policies);
  CHECK(by_simdjson == by_nlohmann);
}

// The same List text both ways: nlohmann values, and simdjson straight into the records
// through windows of several sizes (items cut at every place).
void typed_decode_check_same(const std::string& text, const std::string& name) {
  for (std::size_t window : {std::size_t{4} << 20, std::size_t{4096}, std::size_t{97}}) {
    CAPTURE(window);
    typed_decode_check_window(text, name, window);
  }
}


const std::string k_root = GPUSLICE_SOURCE_DIR;

} // namespace

TEST_CASE("typed decode: simdjson and nlohmann give the same records for every fixture and example") {
  for (const char* path : {"/examples/eks-gpu-incident.json", "/examples/eks-gpu-timesliced.json",
                           "/tests/fixtures/objects/nodes-list.json", "/tests/fixtures/objects/pods-podlist.json"}) {
    const std::string text = typed_decode_read(k_root + path);
    typed_decode_check_same(text, path);
    typed_decode_check_same(typed_decode_as_list({nlohmann::json::parse(text)}).dump(), path);
  }
  for (const char* path : {"/tests/fixtures/objects/helm-release-secret.json",
                           "/tests/fixtures/objects/helm-release-secret-uncompressed.json"}) {
    typed_decode_check_same(typed_decode_as_list({nlohmann::json::parse(typed_decode_read(k_root + path))}).dump(),
                            path);
  }
  for (const char* path : {"/tests/fixtures/objects/device-plugin.yaml", "/tests/fixtures/objects/events-v1.yaml",
                           "/tests/fixtures/scenarios/eks-gpu-incident.yaml",
                           "/tests/fixtures/scenarios/eks-gpu-timesliced.yaml"}) {
    const std::string text = typed_decode_read(k_root + path);
    typed_decode_check_same(typed_decode_as_list(collect::parse_yaml_documents(text, path)).dump(), path);
  }
}

TEST_CASE("typed decode: the examples are not empty on the simdjson path") {
  Snapshot s;
  REQUIRE(typed_decode_windowed(s, typed_decode_read(k_root + "/examples/eks-gpu-incident.json"), 4096));
  CHECK(!s.nodes.empty());
  CHECK(!s.pods.empty());
  CHECK(!s.events.empty());
}

TEST_CASE("typed decode: odd scalars, nulls, wrong types and duplicate keys read the same both ways") {
  const std::string list = R"({"apiVersion": "v1", "kind": "List", "items": [
    {"kind": "Node", "metadata": {"name": "n1", "generation": "7", "labels": {"a": 1, "b": true, "c": 1.5,
       "d": null, "e": -3, "f": 18446744073709551615, "g": "x", "g": "y", "h": [1], "i": {"j": 1}, "k": 1e300}},
     "spec": {"unschedulable": "true", "taints": [{"key": "k", "effect": 5}, 7, null], "providerID": null},
     "status": {"capacity": {"nvidia.com/gpu": 4, "cpu": "bad", "memory": "16Gi", "x": 2.5, "cpu": "2"},
                "allocatable": [], "conditions": {"type": "Ready"}, "nodeInfo": "x"}},
    {"kind": "Pod", "metadata": {"namespace": "ml", "name": "p", "generation": 2.9,
       "ownerReferences": [{"kind": "ReplicaSet", "name": "r", "controller": "false"}, {"controller": true}]},
     "spec": {"containers": [{"name": "c", "command": ["a", 1, null, true],
                "env": [{"name": "E", "valueFrom": {"secretKeyRef": {}, "configMapKeyRef": {}}}, {"name": "F", "value": 3}],
                "volumeMounts": [{"name": "v", "readOnly": "true"}],
                "resources": {"limits": {"nvidia.com/gpu": "1"}, "requests": null}}],
              "tolerations": [{"key": "nvidia.com/gpu", "tolerationSeconds": "30"}, {"tolerationSeconds": null}],
              "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                 {"matchExpressions": [{"key": "a", "operator": "Gt", "values": ["3"]}], "matchFields": []}]}}},
              "nodeSelector": {"gpu": true}, "volumes": [{"name": "v", "configMap": {"name": "cm", "items": [{"key": 1}]}}]},
     "status": {"phase": "Pending", "containerStatuses": [{"name": "c", "restartCount": "2",
                "state": {"waiting": null, "running": {"startedAt": "t"}}}]}},
    {"kind": "Pod", "metadata": {"namespace": "ml", "name": "q"},
     "spec": {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": 3}}}}},
    {"kind": "Event", "metadata": {"namespace": "ml", "name": "e"}, "regarding": {"kind": "Pod", "name": "p"},
     "note": "n", "deprecatedCount": 4, "series": {"count": 2}, "reportingController": "default-scheduler"},
    {"kind": "Event", "metadata": {"namespace": "ml", "name": "f"}, "involvedObject": null, "count": null,
     "message": "", "note": "from note"},
    {"kind": "DaemonSet", "metadata": {"namespace": "kube-system", "name": "d"},
     "spec": {"selector": {"matchLabels": {"app": "x"}, "matchExpressions": [{"key": "b", "operator": "Exists"}]},
              "template": {"metadata": {"labels": {"app": "x"}}, "spec": {"containers": [{"name": "p",
                "command": ["a", 1, null, true],
                "env": [{"name": "E", "valueFrom": {"secretKeyRef": {}, "configMapKeyRef": {}}}, {"name": "F", "value": 3}],
                "volumeMounts": [{"name": "v", "readOnly": "true"}]}],
                "volumes": [{"name": "v", "configMap": {"name": "cm", "items": [{"key": 1}]}}]}}},
     "status": {"desiredNumberScheduled": 3, "numberReady": "2"}},
    {"kind": "Deployment", "metadata": {"namespace": "ml", "name": "w"},
     "spec": {"replicas": null, "selector": {"matchLabels": 5}}, "status": {"conditions": [{"type": "Available"}]}},
    {"kind": "StatefulSet", "metadata": {"namespace": "ml", "name": "s"}, "spec": {"replicas": 0}},
    {"kind": "ConfigMap", "metadata": {"namespace": "kube-system", "name": "c"}, "data": {"k": "v", "n": 2}},
    {"kind": "ConfigMap", "metadata": {"namespace": "kube-system", "name": "cluster-autoscaler-status",
       "annotations": {"cluster-autoscaler.kubernetes.io/last-updated": "now"}}, "data": {"status": "ok"}},
    {"kind": "ClusterPolicy", "metadata": {"name": "cp"}, "spec": {"devicePlugin": {"enabled": "false",
       "config": {"name": "c", "default": "any"}}}, "status": {"state": "ready", "namespace": "gpu-operator"}},
    {"kind": "Secret", "type": "Opaque", "metadata": {"namespace": "x", "name": "s"}},
    {"kind": "Service", "metadata": {"name": "svc"}}
  ]})";
  typed_decode_check_same(list, "odd.json");
  Snapshot s;
  REQUIRE(typed_decode_windowed(s, list, 64));
  REQUIRE(s.nodes.size() == 1);
  CHECK(s.nodes[0].meta.labels.at("g") == "y"); // the last duplicate wins
  CHECK(s.nodes[0].meta.labels.at("a") == "1");
  CHECK(s.nodes[0].capacity.count("cpu") == 1); // "2" replaced "bad"
  REQUIRE(s.pods.size() == 2);
  CHECK(s.pods[0].spec.containers.at(0).env.empty()); // a pod's env is not kept (decode.hpp)
  REQUIRE(s.daemonsets.size() == 1);
  CHECK(s.daemonsets[0].pod_template.spec.containers.at(0).env.at(0).value_from == "configMapKeyRef");
  CHECK(s.daemonsets[0].pod_template.spec.volumes.at(0).items.at(0) == "1");
  CHECK(s.pods[0].spec.required_affinity.has_value());
  CHECK(!s.pods[1].spec.required_affinity.has_value());
  REQUIRE(s.autoscaler_status.has_value());
  CHECK(s.autoscaler_status->last_updated == "now");
}

TEST_CASE("typed decode: items without a kind take their List's, named before or after them") {
  typed_decode_check_same(R"({"items": [{"metadata": {"name": "a"}}, {"kind": "Pod", "metadata": {"name": "p"}},
    {"metadata": {"name": "b"}}, {"metadata": {"name": "a"}, "spec": {"unschedulable": true}}], "kind": "NodeList"})",
                          "after.json");
  typed_decode_check_same(R"({"kind": "NodeList", "items": [{"metadata": {"name": "a"}}, {"kind": "Pod",
    "metadata": {"name": "p"}}, {"metadata": {"name": "a"}, "spec": {"unschedulable": true}}]})", "before.json");
  // Items decoded (they name their kind) before one that must wait, in other batches: the
  // waiting one and all after it are merged last, in order, replacing the earlier copy.
  typed_decode_check_same(R"({"items": [{"kind": "Node", "metadata": {"name": "a"}}, {"kind": "Node",
    "metadata": {"name": "c"}}, {"metadata": {"name": "b"}}, {"kind": "Node", "metadata": {"name": "a"},
    "spec": {"unschedulable": true}}, {"metadata": {"name": "d"}}], "kind": "NodeList"})", "some-after.json");
}

TEST_CASE("typed decode: a bad item is named") {
  Snapshot s;
  CHECK_THROWS_WITH_AS(collect::merge_text(s, R"({"kind": "List", "items": [{"kind": "Node"}, 3]})", "bad.json"),
                       "bad.json: document 1 item 2 is not an object", UsageError);
  CHECK_THROWS_WITH_AS(collect::merge_text(s, R"({"kind": "List", "items": [{"metadata": {}}]})", "bad.json"),
                       "bad.json: document 1 item 1 has no \"kind\"", UsageError);
  CHECK_THROWS_WITH_AS(collect::merge_text(s, R"({"kind": "List", "items": [{"kind": "NodeList"}]})", "bad.json"),
                       "bad.json: document 1 item 1 is a nested NodeList", UsageError);
}

// By hand on generated clusters (their snapshots are too large for the repository):
// GPUSLICE_DECODE_COMPARE=S.json:M.json ctest -R unit_collect
TEST_CASE("typed decode: the files in $GPUSLICE_DECODE_COMPARE read the same both ways") {
  const char* files = std::getenv("GPUSLICE_DECODE_COMPARE");
  std::string_view rest = files ? files : "";
  while (!rest.empty()) {
    const std::string path(rest.substr(0, rest.find(':')));
    rest.remove_prefix(std::min(rest.size(), path.size() + 1));
    if (!path.empty()) typed_decode_check_same(typed_decode_read(path), path);
  }
}
