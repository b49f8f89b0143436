// SPDX-License-Identifier: Apache-2.0
// The scheduler stand-in: FailedScheduling wording per version, byte for byte against the
// real corpus, parsed back by the tool's own parser; binding; taints.
#include <doctest/doctest.h>

#include <gpuslice/diagnose.hpp>

#include <fakekube/server.hpp>

#include "fakekube_api_request.hpp"
#include "sim/node_fit.hpp"

namespace {

using nlohmann::json;
using fakekube_test::Call;

const std::string k_scenarios = GPUSLICE_SOURCE_DIR "/tests/fixtures/scenarios/";

// The exact message of generate_eks_gpu.py (kubernetes 1.30), which reproduces a real one.
const std::string k_incident_message =
    "0/9 nodes are available: 3 Insufficient nvidia.com/gpu, 6 node(s) didn't match Pod's node "
    "affinity/selector. preemption: 0/9 nodes are available: 3 No preemption victims found for "
    "incoming pod, 6 Preemption is not helpful for scheduling.";

fakekube::sim::FitResult failure(fakekube::sim::FitFailure kind, std::vector<std::string> reasons) {
  return {kind, std::move(reasons)};
}

// GET path, with an optional "?key=value" (value already decoded) passed as a query.
json get(fakekube::Api& api, const std::string& target) {
  const std::size_t question = target.find('?');
  Call call(api, "GET", target.substr(0, question));
  if (question != std::string::npos) {
    const std::string query = target.substr(question + 1);
    const std::size_t equals = query.find('=');
    call.query(query.substr(0, equals), query.substr(equals + 1));
  }
  fakekube_test::Reply reply = call.send();
  REQUIRE(reply.status == 200);
  return reply.body;
}

json pods_of(fakekube::Api& api, const std::string& ns, const std::string& selector) {
  return get(api, "/api/v1/namespaces/" + ns + "/pods?labelSelector=" + selector)["items"];
}

std::string scheduled_message(const json& pod) {
  for (const json& c : pod["status"].value("conditions", json::array()))
    if (c["type"] == "PodScheduled") return c.value("message", std::string());
  return "";
}

} // namespace

TEST_CASE("fakekube::sim::fit_error_message") {
  using fakekube::sim::FitFailure;
  std::vector<fakekube::sim::FitResult> nodes;
  for (int i = 0; i < 3; ++i) nodes.push_back(failure(FitFailure::resources, {"Insufficient nvidia.com/gpu"}));
  SUBCASE("1.30 matches the real GPU message of the corpus") {
    CHECK(fakekube::sim::fit_error_message(nodes, false, 30) ==
          "0/3 nodes are available: 3 Insufficient nvidia.com/gpu. preemption: 0/3 nodes are "
          "available: 3 No preemption victims found for incoming pod.");
  }
  SUBCASE("1.27 ends with two periods, as the real 1.26-1.28 scheduler did") {
    nodes.push_back(failure(FitFailure::taint, {"node(s) had untolerated taint {im-a-sparklike: true}"}));
    const std::string message = fakekube::sim::fit_error_message(nodes, false, 27);
    CHECK(message.ends_with("1 Preemption is not helpful for scheduling, 3 No preemption victims found for incoming pod.."));
    CHECK(message.starts_with("0/4 nodes are available: 1 node(s) had untolerated taint {im-a-sparklike: true}, 3 Insufficient"));
  }
  SUBCASE("1.23 has no preemption suffix; preemptionPolicy Never says so") {
    CHECK(fakekube::sim::fit_error_message(nodes, false, 23) ==
          "0/3 nodes are available: 3 Insufficient nvidia.com/gpu.");
    CHECK(fakekube::sim::fit_error_message(nodes, true, 30).ends_with(
        " preemption: not eligible due to preemptionPolicy=Never."));
  }
  SUBCASE("counts sort as strings: 10 before 2") {
    std::vector<fakekube::sim::FitResult> many;
    for (int i = 0; i < 10; ++i) many.push_back(failure(FitFailure::resources, {"Insufficient cpu"}));
    for (int i = 0; i < 2; ++i) many.push_back(failure(FitFailure::affinity, {"node(s) didn't match Pod's node affinity/selector"}));
    CHECK(fakekube::sim::fit_error_message(many, false, 23) ==
          "0/12 nodes are available: 10 Insufficient cpu, 2 node(s) didn't match Pod's node affinity/selector.");
  }
  SUBCASE("no nodes") {
    CHECK(fakekube::sim::fit_error_message({}, false, 30) == "no nodes available to schedule pods");
  }
}

// The sim variant holds no verdicts or events: whatever is there after a tick, the
// simulation wrote. The plain file (a picture of the real cluster) must simulate unedited.
static void check_incident(const std::string& file) {
  fakekube::Api api;
  fakekube::Scenario scenario = fakekube::load_scenario(k_scenarios + file);
  api.set_server_version(scenario.server_version);
  api.load(scenario.objects);
  const std::uint64_t events_before = get(api, "/api/v1/events")["items"].size();
  api.simulation().tick();

  SUBCASE("the pending GPU pod gets the real 1.30 message, byte for byte, and the tool parses it") {
    const json pending = pods_of(api, "ml", "app.kubernetes.io/name=embeddings-worker");
    REQUIRE(pending.size() == 1);
    CHECK(pending[0]["spec"].value("nodeName", "") == "");
    const std::string message = scheduled_message(pending[0]);
    CHECK(message == k_incident_message);
    std::optional<gpuslice::diagnose::SchedulerMessage> parsed =
        gpuslice::diagnose::parse_scheduler_message(message);
    REQUIRE(parsed);
    CHECK(parsed->nodes_total == 9);
    REQUIRE(parsed->reasons.size() == 2);
    CHECK(parsed->reasons[0].count == 3);
    CHECK(parsed->has_preemption);
  }
  SUBCASE("a FailedScheduling event from default-scheduler is attached to the pod") {
    const json events = get(api, "/api/v1/events")["items"];
    CHECK(events.size() > events_before);
    int ours = 0;
    for (const json& e : events)
      if (e.value("reportingComponent", "") == "default-scheduler" &&
          e.value("reportingInstance", "") == "default-scheduler-fakekube") {
        ++ours;
        CHECK(e["reason"] == "FailedScheduling");
        CHECK(e["type"] == "Warning");
        CHECK(e["involvedObject"]["kind"] == "Pod");
        CHECK(gpuslice::diagnose::parse_scheduler_message(e.value("message", "")).has_value());
      }
    CHECK(ours == 4); // the four pending GPU pods
  }
  SUBCASE("running pods stay where they are") {
    const json running = pods_of(api, "ml", "app.kubernetes.io/name=gpu-inference");
    int bound = 0;
    for (const json& pod : running)
      if (!pod["spec"].value("nodeName", "").empty()) {
        ++bound;
        CHECK(pod["status"]["phase"] == "Running");
      }
    CHECK(bound == 2);
  }
}

TEST_CASE("fakekube::Simulation scheduler on the runbook incident (simulation variant)") {
  check_incident("eks-gpu-incident-sim.yaml");
}

TEST_CASE("fakekube::Simulation scheduler on the runbook incident (the plain file)") {
  check_incident("eks-gpu-incident.yaml");
}

TEST_CASE("fakekube::Simulation scheduler binds what fits and honours taints") {
  fakekube::Api api;
  api.load(json::parse(R"([
    {"apiVersion":"v1","kind":"Node","metadata":{"name":"n1","labels":{"kubernetes.io/hostname":"n1"}},
     "spec":{"taints":[{"key":"dedicated","value":"gpu","effect":"NoSchedule"}]},
     "status":{"allocatable":{"cpu":"2","memory":"4Gi","pods":"10"},"capacity":{"cpu":"2","memory":"4Gi","pods":"10"}}},
    {"apiVersion":"v1","kind":"Node","metadata":{"name":"n2"},
     "status":{"allocatable":{"cpu":"1","memory":"4Gi","pods":"10"},"capacity":{"cpu":"1","memory":"4Gi","pods":"10"}}}
  ])"));
  auto create = [&](const std::string& name, const std::string& cpu, bool tolerate) {
    json pod = {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", {{"name", name}}},
                {"spec", {{"containers", {{{"name", "c"}, {"image", "busybox"},
                                            {"resources", {{"requests", {{"cpu", cpu}}}}}}}}}}};
    if (tolerate) pod["spec"]["tolerations"] = {{{"key", "dedicated"}, {"operator", "Equal"}, {"value", "gpu"}, {"effect", "NoSchedule"}}};
    REQUIRE(Call(api, "POST", "/api/v1/namespaces/default/pods").json(pod).send().status == 201);
  };
  create("small", "500m", false);
  create("big", "1500m", false);
  create("big-tolerating", "1500m", true);
  api.simulation().tick();
  CHECK(get(api, "/api/v1/namespaces/default/pods/small")["spec"]["nodeName"] == "n2");
  CHECK(get(api, "/api/v1/namespaces/default/pods/big-tolerating")["spec"]["nodeName"] == "n1");
  const json big = get(api, "/api/v1/namespaces/default/pods/big");
  CHECK(big["spec"].value("nodeName", "") == "");
  CHECK(scheduled_message(big) ==
        "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint {dedicated: gpu}. "
        "preemption: 0/2 nodes are available: 1 No preemption victims found for incoming pod, 1 "
        "Preemption is not helpful for scheduling.");
  CHECK(get(api, "/api/v1/namespaces/default/pods/small")["status"]["phase"] == "Running");
}

TEST_CASE("fakekube::Simulation scheduler counts what bound pods request against allocatable") {
  fakekube::Api api;
  auto resource_node = [](const std::string& name, const std::string& cpu, const std::string& memory, const std::string& pods,
                 const std::string& gpus) {
    json resources = {{"cpu", cpu}, {"memory", memory}, {"pods", pods}};
    if (!gpus.empty()) resources["nvidia.com/gpu"] = gpus;
    return json{{"apiVersion", "v1"}, {"kind", "Node"},
                {"metadata", {{"name", name}, {"labels", {{"kubernetes.io/hostname", name}}}}},
                {"status", {{"allocatable", resources}, {"capacity", resources}}}};
  };
  // "full" has room for one more pod only; "cordoned" has everything but is unschedulable.
  json cordoned = resource_node("cordoned", "64", "256Gi", "110", "8");
  cordoned["spec"]["unschedulable"] = true;
  json small = resource_node("small", "2", "4Gi", "110", "1");
  json full = resource_node("full", "8", "32Gi", "1", "4");
  for (json* with_fpga : {&small, &full})
    for (const char* list : {"allocatable", "capacity"}) (*with_fpga)["status"][list]["example.com/fpga"] = "1";
  api.load(json::array({small, full, cordoned}));
  // The scheduler alone: no device plugin stand-in zeroing GPUs of nodes without a plugin pod.
  api.simulation().set_enabled(fakekube::Controller::device_plugin, false);
  auto create = [&](const std::string& name, json requests, json extra = json::object()) {
    json pod = {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", {{"name", name}}},
                {"spec", {{"containers", {{{"name", "c"}, {"image", "busybox"},
                                            {"resources", {{"requests", requests}, {"limits", requests}}}}}}}}};
    pod["spec"].update(extra);
    REQUIRE(Call(api, "POST", "/api/v1/namespaces/default/pods").json(pod).send().status == 201);
  };
  create("first", {{"cpu", "1500m"}, {"memory", "3Gi"}, {"nvidia.com/gpu", "1"}, {"example.com/fpga", "1"}},
         {{"nodeSelector", {{"kubernetes.io/hostname", "small"}}}});
  create("filler", {{"cpu", "100m"}}, {{"nodeSelector", {{"kubernetes.io/hostname", "full"}}}});
  api.simulation().tick();
  REQUIRE(get(api, "/api/v1/namespaces/default/pods/first")["spec"]["nodeName"] == "small");
  // Now small has 500m, 1Gi, no GPU and no FPGA left; full holds its one pod.
  create("second", {{"cpu", "1"}, {"memory", "2Gi"}, {"nvidia.com/gpu", "1"}, {"example.com/fpga", "1"}});
  api.simulation().tick();
  CHECK(get(api, "/api/v1/namespaces/default/pods/filler")["spec"]["nodeName"] == "full");
  const json second = get(api, "/api/v1/namespaces/default/pods/second");
  CHECK(second["spec"].value("nodeName", "") == "");
  CHECK(second["status"]["phase"] == "Pending");
  CHECK(scheduled_message(second) ==
        "0/3 nodes are available: 1 Insufficient cpu, 1 Insufficient example.com/fpga, 1 Insufficient memory, "
        "1 Insufficient nvidia.com/gpu, 1 Too many pods, 1 node(s) were unschedulable. preemption: 0/3 nodes "
        "are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod.");
  // A toleration of the unschedulable taint lets a pod onto the cordoned node, as DaemonSet pods do.
  create("tolerant", {{"cpu", "1"}}, {{"tolerations", json::array({{{"key", "node.kubernetes.io/unschedulable"},
                                                                    {"operator", "Exists"}, {"effect", "NoSchedule"}}})}});
  api.simulation().tick();
  CHECK(get(api, "/api/v1/namespaces/default/pods/tolerant")["spec"]["nodeName"] == "cordoned");
  CHECK(get(api, "/api/v1/namespaces/default/pods/first")["status"]["phase"] == "Running");
  // The node affinity and the selector both have to match.
  create("picky", {{"cpu", "100m"}},
         {{"nodeSelector", {{"kubernetes.io/hostname", "small"}}},
          {"affinity", {{"nodeAffinity", {{"requiredDuringSchedulingIgnoredDuringExecution",
                                          {{"nodeSelectorTerms", json::array({{{"matchExpressions", json::array({{{"key", "kubernetes.io/hostname"},
                                                                                                                {"operator", "NotIn"},
                                                                                                                {"values", {"small"}}}})}}})}}}}}}}});
  api.simulation().tick();
  CHECK(scheduled_message(get(api, "/api/v1/namespaces/default/pods/picky")) ==
        "0/3 nodes are available: 1 node(s) were unschedulable, 2 node(s) didn't match Pod's node affinity/selector. "
        "preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.");
}
