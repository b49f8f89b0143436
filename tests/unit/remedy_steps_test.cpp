// SPDX-License-Identifier: Apache-2.0
// The step planners: pure functions over a Snapshot, checked on the incident scenario and on
// small built clusters.
#include <doctest/doctest.h>

#include <gpuslice/collect.hpp>
#include <gpuslice/error.hpp>
#include <gpuslice/remedy/plan.hpp>
#include <gpuslice/timeslicing.hpp>

#include "unit/builders.hpp"

using namespace gpuslice;
using gpuslice::testing::ConfigMapBuilder;
using gpuslice::testing::DeploymentBuilder;
using gpuslice::testing::NodeBuilder;
using gpuslice::testing::PodBuilder;

namespace {

Snapshot incident_snapshot() {
  return collect::load_snapshot_files(
      {std::string(GPUSLICE_SOURCE_DIR) + "/tests/fixtures/scenarios/eks-gpu-incident.yaml"});
}

Snapshot two_gpu_nodes() {
  Snapshot s;
  s.nodes.push_back(NodeBuilder("gpu-a").instance_type("g4dn.xlarge").gpus(1).taint("team", "x", "NoSchedule").build());
  s.nodes.push_back(NodeBuilder("gpu-b").instance_type("g4dn.xlarge").gpus(1).label("nvidia.com/gpu.present", "true").build());
  s.nodes.push_back(NodeBuilder("cpu-a").instance_type("m5.xlarge").build());
  return s;
}

std::size_t changed_count(const remedy::Step& step) {
  std::size_t n = 0;
  for (const remedy::Change& change : step.changes) n += change.changed ? 1 : 0;
  return n;
}

bool has_note(const remedy::Step& step, const std::string& part) {
  for (const std::string& note : step.notes) {
    if (note.find(part) != std::string::npos) return true;
  }
  return false;
}

} // namespace

TEST_CASE("remedy::plan_config_apply") {
  const Snapshot incident = incident_snapshot();
  remedy::ConfigApplyOptions options;
  options.replicas = 4;

  SUBCASE("creates the ConfigMap in the plugin's namespace with a config the plugin accepts") {
    const remedy::Step step = remedy::plan_config_apply(incident, options);
    REQUIRE(step.changes.size() == 1);
    const remedy::Change& change = step.changes[0];
    CHECK(change.action == remedy::Action::create);
    CHECK(change.changed);
    CHECK(change.target.display() == "ConfigMap/nvidia-device-plugin/time-slicing-config");
    CHECK(change.target.path() == "/api/v1/namespaces/nvidia-device-plugin/configmaps/time-slicing-config");
    const std::string text = change.object["data"]["any"];
    const diagnose::ConfigCheck check = diagnose::check_time_slicing_config(text);
    CHECK(check.problems.empty());
    CHECK(check.replicas_for("nvidia.com/gpu") == 4);
  }
  SUBCASE("options reach the config") {
    options.rename_by_default = true;
    options.fail_requests_greater_than_one = true;
    const diagnose::ConfigCheck check = diagnose::check_time_slicing_config(remedy::time_slicing_config_text(options));
    CHECK(check.config.rename_by_default);
    CHECK(check.config.fail_requests_greater_than_one);
  }
  SUBCASE("replicas below 2 are refused before anything is planned") {
    options.replicas = 1;
    CHECK_THROWS_WITH_AS(remedy::plan_config_apply(incident, options), doctest::Contains("--replicas 1: must be at least 2"),
                         UsageError);
  }
  SUBCASE("a misplaced key in --from-file is refused with its path") {
    options.from_file_name = "ts.yaml";
    options.from_file_text = "version: v1\nflags:\n  renameByDefault: true\nsharing:\n  timeSlicing:\n"
                             "    resources:\n      - name: nvidia.com/gpu\n        replicas: 4\n";
    CHECK_THROWS_WITH_AS(remedy::plan_config_apply(incident, options), doctest::Contains("flags.renameByDefault"),
                         UsageError);
  }
  SUBCASE("an existing key with the same text is left alone; other keys are kept on change") {
    Snapshot s = incident;
    const std::string text = remedy::time_slicing_config_text(options);
    s.configmaps.push_back(ConfigMapBuilder("nvidia-device-plugin", "time-slicing-config").data("any", text).build());
    CHECK_FALSE(remedy::plan_config_apply(s, options).changes[0].changed);

    s.configmaps.back() = ConfigMapBuilder("nvidia-device-plugin", "time-slicing-config")
                              .data("any", "old")
                              .data("other", "kept")
                              .build();
    const remedy::Change change = remedy::plan_config_apply(s, options).changes[0];
    CHECK(change.action == remedy::Action::patch);
    CHECK(change.changed);
    CHECK(change.after["data"]["other"] == "kept");
    CHECK(change.after["data"]["any"] == text);
  }
  SUBCASE("--config-namespace wins") {
    options.ns = "gpu-operator";
    CHECK(remedy::plan_config_apply(incident, options).changes[0].target.ns == "gpu-operator");
  }
}

TEST_CASE("remedy::plan_nodes_label") {
  const Snapshot s = two_gpu_nodes();
  SUBCASE("every GPU node by default; the labelled one is unchanged") {
    const remedy::Step step = remedy::plan_nodes_label(s, {});
    REQUIRE(step.changes.size() == 2);
    CHECK(step.changes[0].target.name == "gpu-a");
    CHECK(step.changes[0].changed);
    CHECK(step.changes[0].after["metadata"]["labels"]["nvidia.com/gpu.present"] == "true");
    CHECK(step.changes[0].after["metadata"]["labels"]["kubernetes.io/hostname"] == "gpu-a");
    CHECK_FALSE(step.changes[1].changed);
  }
  SUBCASE("--node and --selector choose") {
    CHECK(remedy::plan_nodes_label(s, {"", {"cpu-a"}}).changes.at(0).target.name == "cpu-a");
    CHECK(remedy::plan_nodes_label(s, {"node.kubernetes.io/instance-type=m5.xlarge", {}}).changes.size() == 1);
    CHECK_THROWS_AS(remedy::plan_nodes_label(s, {"", {"nope"}}), UsageError);
    CHECK_THROWS_AS(remedy::plan_nodes_label(s, {"a in (", {}}), UsageError);
  }
  SUBCASE("the incident's GPU nodes are already labelled") {
    CHECK(changed_count(remedy::plan_nodes_label(incident_snapshot(), {})) == 0);
  }
}

TEST_CASE("remedy::plan_nodes_taint") {
  Snapshot s = two_gpu_nodes();
  s.pods.push_back(PodBuilder("batch", "cpu-job").running_on("gpu-a").request("cpu", "1").build());
  s.pods.push_back(PodBuilder("ml", "gpu-job").running_on("gpu-a").gpus(1).build());
  const remedy::Step step = remedy::plan_nodes_taint(s, {}, {});
  REQUIRE(step.changes.size() == 2);
  SUBCASE("adds the taint and keeps the node's other taints") {
    const nlohmann::json taints = step.changes[0].after["spec"]["taints"];
    REQUIRE(taints.size() == 2);
    CHECK(taints[0]["key"] == "team");
    CHECK(taints[1] == nlohmann::json({{"key", "nvidia.com/gpu"}, {"value", "true"}, {"effect", "NoSchedule"}}));
  }
  SUBCASE("lists the non-GPU pods NoSchedule leaves in place") {
    CHECK(has_note(step, "node gpu-a: 1 non-GPU pod(s) stay"));
    CHECK(has_note(step, "batch/cpu-job"));
    CHECK_FALSE(has_note(step, "ml/gpu-job"));
  }
  SUBCASE("a node already tainted is unchanged; a bad effect is a usage error") {
    Snapshot tainted = s;
    tainted.nodes[0] = NodeBuilder("gpu-a").gpus(1).taint("nvidia.com/gpu", "true", "NoSchedule").build();
    CHECK_FALSE(remedy::plan_nodes_taint(tainted, {"", {"gpu-a"}}, {}).changes[0].changed);
    CHECK_THROWS_AS(remedy::plan_nodes_taint(s, {}, {"nvidia.com/gpu", "true", "Sometimes"}), UsageError);
  }
  SUBCASE("the incident's EKS node groups get their node-group settings") {
    const remedy::Step incident = remedy::plan_nodes_taint(incident_snapshot(), {}, {});
    CHECK(changed_count(incident) == 3);
    CHECK(has_note(incident, "aws eks update-nodegroup-config"));
    // The ASG's exact name from the status map, the taint as CA's tag value.
    CHECK(has_note(incident, "aws autoscaling create-or-update-tags --tags ResourceId=eks-gpu-t4-a-d7572246-7cfa-552c-"
                             "8397-b28956cc475a,ResourceType=auto-scaling-group,Key=k8s.io/cluster-autoscaler/"
                             "node-template/taint/nvidia.com/gpu,Value=true:NoSchedule,PropagateAtLaunch=false"));
  }
}

TEST_CASE("remedy::plan_workloads_tolerate") {
  SUBCASE("the incident's pods got the toleration at admission: no template is patched") {
    const remedy::Step step = remedy::plan_workloads_tolerate(incident_snapshot(), {}, {});
    CHECK(step.changes.size() == 2);
    CHECK(changed_count(step) == 0);
    CHECK(has_note(step, "ExtendedResourceToleration"));
  }
  Snapshot s;
  s.deployments.push_back(DeploymentBuilder("ml", "shared").replicas(2).gpus(1, "nvidia.com/gpu.shared").build());
  s.pods.push_back(PodBuilder("ml", "shared-1").label("app", "shared").gpus(1, "nvidia.com/gpu.shared").build());
  s.deployments.push_back(DeploymentBuilder("ml", "idle").gpus(1).build());
  s.deployments.push_back(
      DeploymentBuilder("ml", "ok").gpus(1).toleration("nvidia.com/gpu", "Exists", "", "NoSchedule").build());
  s.deployments.push_back(DeploymentBuilder("web", "cpu").request("cpu", "1").build());
  const remedy::Step step = remedy::plan_workloads_tolerate(s, {}, {});
  SUBCASE("patches where the pods lack it (gpu.shared) or no pod shows it; skips CPU workloads") {
    REQUIRE(step.changes.size() == 3);
    CHECK(step.changes[0].changed);
    CHECK(step.changes[0].after["spec"]["template"]["spec"]["tolerations"][0]["key"] == "nvidia.com/gpu");
    CHECK(step.changes[1].changed);
    CHECK_FALSE(step.changes[2].changed);
    CHECK(has_note(step, "Deployment ml/shared: patching its pod template rolls out its 2 pod(s)"));
  }
  SUBCASE("--deployment narrows; an unknown one is a usage error") {
    CHECK(remedy::plan_workloads_tolerate(s, {"", {"ml/idle"}}, {}).changes.size() == 1);
    CHECK_THROWS_AS(remedy::plan_workloads_tolerate(s, {"", {"ml/nope"}}, {}), UsageError);
    CHECK_THROWS_AS(remedy::plan_workloads_tolerate(s, {"", {"nope"}}, {}), UsageError);
  }
}

TEST_CASE("remedy::apply_edit") {
  const nlohmann::json node = NodeBuilder("n").taint("a", "1", "NoSchedule").json();
  const remedy::Edit taint{remedy::EditKind::add_taint, {{"key", "nvidia.com/gpu"}, {"value", "true"}, {"effect", "NoSchedule"}}};
  const nlohmann::json once = remedy::apply_edit(taint, node);
  CHECK(once["spec"]["taints"].size() == 2);
  CHECK(remedy::apply_edit(taint, once) == once);
  const remedy::Edit toleration{remedy::EditKind::add_toleration,
                                {{"key", "nvidia.com/gpu"}, {"operator", "Exists"}, {"effect", "NoSchedule"}}};
  const nlohmann::json deployment = DeploymentBuilder("ml", "d").toleration("other").json();
  const nlohmann::json tolerant = remedy::apply_edit(toleration, deployment);
  CHECK(tolerant["spec"]["template"]["spec"]["tolerations"].size() == 2);
  CHECK(remedy::apply_edit(toleration, tolerant) == tolerant);
}

TEST_CASE("remedy::plan_apply orders the steps and a settled cluster plans nothing") {
  remedy::ApplyOptions options;
  options.config.replicas = 4;
  const remedy::Plan plan = remedy::plan_apply(incident_snapshot(), options);
  std::vector<std::string> names;
  for (const remedy::Step& step : plan.steps) names.push_back(step.name);
  CHECK(names ==
        std::vector<std::string>{"config apply", "nodes label", "plugin install", "workloads tolerate", "nodes taint"});
  CHECK(plan.has_changes());
  // The incident's plugin is a Helm release: re-pointed in place, and the note gives the
  // corrected helm command that makes the release itself read the config.
  CHECK(has_note(plan.steps[2], "helm upgrade"));
  CHECK(has_note(plan.steps[2], "config.name=time-slicing-config"));
  const nlohmann::ordered_json doc = remedy::plan_to_json(plan, true);
  CHECK(doc["kind"] == "Plan");
  CHECK(doc["steps"][0]["changes"][0]["action"] == "create");
  CHECK(doc["steps"][0]["changes"][0]["after"]["kind"] == "ConfigMap");
}

TEST_CASE("apply's config step names the ASG tags a scale-up from zero needs (cluster-autoscaler on EKS)") {
  remedy::ApplyOptions options;
  options.config.replicas = 4;
  const remedy::Plan plan = remedy::plan_apply(incident_snapshot(), options);
  const remedy::Step& config = plan.steps.front();
  REQUIRE(config.name == "config apply");
  // gpu-t4-a's ASG is in the status map; one T4 per g4dn.xlarge × 4 replicas.
  CHECK(has_note(config, "ResourceId=eks-gpu-t4-a-d7572246-7cfa-552c-8397-b28956cc475a,ResourceType=auto-scaling-group,"
                         "Key=k8s.io/cluster-autoscaler/node-template/resources/nvidia.com/gpu,Value=4,"
                         "PropagateAtLaunch=false ResourceId=eks-gpu-t4-a-d7572246-7cfa-552c-8397-b28956cc475a,"
                         "ResourceType=auto-scaling-group,Key=k8s.io/cluster-autoscaler/node-template/label/"
                         "nvidia.com/gpu.present,Value=true,PropagateAtLaunch=false"));
  CHECK(has_note(config, "until they say 4 nvidia.com/gpu and the label, a scale-up from zero plans 1 pod(s) per node"));
  SUBCASE("--rename-by-default tags the shared resource and warns what autoscalers make of it") {
    options.config.rename_by_default = true;
    const remedy::Plan renamed = remedy::plan_apply(incident_snapshot(), options);
    CHECK(has_note(renamed.steps.front(), "node-template/resources/nvidia.com/gpu.shared,Value=4"));
    CHECK(has_note(renamed.steps.front(), "cluster-autoscaler takes a node with its GPU label but no nvidia.com/gpu "
                                          "allocatable for not ready (ResourceUnready)"));
  }
  SUBCASE("no autoscaler, no tag note") {
    Snapshot quiet = incident_snapshot();
    quiet.autoscaler_status.reset();
    quiet.events.clear();
    const remedy::Plan untagged = remedy::plan_apply(quiet, options);
    for (const std::string& note : untagged.steps.front().notes) {
      CHECK(note.find("create-or-update-tags") == std::string::npos);
    }
  }
}
