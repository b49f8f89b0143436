// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <gpuslice/model.hpp>

#include "unit/builders.hpp"

using namespace gpuslice::model;
using gpuslice::testing::DaemonSetBuilder;
using gpuslice::testing::DeploymentBuilder;
using gpuslice::testing::k_created;
using gpuslice::testing::PodBuilder;

TEST_CASE("model::pod_from_json") {
  SUBCASE("pending GPU pod with scheduler message") {
    Pod pod = PodBuilder("ml", "infer-0")
                  .container("app", "nvcr.io/nvidia/pytorch:24.01")
                  .gpus(1)
                  .request("cpu", "500m")
                  .node_selector("nvidia.com/gpu.present", "true")
                  .toleration("nvidia.com/gpu")
                  .unschedulable("0/9 nodes are available: 3 Insufficient nvidia.com/gpu.")
                  .owner("ReplicaSet", "infer-5d8f")
                  .build();
    CHECK(pod.meta.ns == "ml");
    CHECK(pod.meta.name == "infer-0");
    CHECK(pod.phase == "Pending");
    CHECK(pod.is_unscheduled());
    CHECK(pod.spec.scheduler_name == "default-scheduler");
    REQUIRE(pod.condition("PodScheduled") != nullptr);
    CHECK(pod.condition("PodScheduled")->reason == "Unschedulable");
    CHECK(pod.condition("PodScheduled")->message.starts_with("0/9 nodes"));
    CHECK(pod.spec.node_selector.at("nvidia.com/gpu.present") == "true");
    REQUIRE(pod.spec.tolerations.size() == 1);
    CHECK(pod.spec.tolerations[0].op == "Exists");
    REQUIRE(pod.meta.controller() != nullptr);
    CHECK(pod.meta.controller()->kind == "ReplicaSet");
    CHECK(effective_request(pod.spec, "nvidia.com/gpu").value() == 1);
    CHECK(effective_request(pod.spec, "cpu").milli() == 500);
  }
  SUBCASE("unknown fields and wrong types read as defaults") {
    nlohmann::json odd = {{"kind", "Pod"},
                          {"metadata", {{"name", "x"}, {"labels", "not-a-map"}, {"surprise", 1}}},
                          {"spec", {{"containers", "nope"}, {"tolerations", {{{"key", 5}}}}}},
                          {"status", 7}};
    Pod pod = pod_from_json(odd);
    CHECK(pod.meta.name == "x");
    CHECK(pod.meta.labels.empty());
    CHECK(pod.spec.containers.empty());
    REQUIRE(pod.spec.tolerations.size() == 1);
    CHECK(pod.spec.tolerations[0].key == "5");
    CHECK(pod.phase.empty());
    CHECK(pod_from_json(nlohmann::json()).meta.name.empty());
    CHECK(pod_from_json(nlohmann::json::array()).spec.containers.empty());
  }
}

TEST_CASE("model::effective_requests") {
  SUBCASE("requests default to limits") {
    PodSpec spec = PodBuilder("ns", "p").container("a", "img").limit("nvidia.com/gpu", "2").limit("cpu", "1")
                       .request("cpu", "250m").build().spec;
    CHECK(effective_request(spec, "nvidia.com/gpu").value() == 2);
    CHECK(effective_request(spec, "cpu").milli() == 250);
    CHECK(spec.containers[0].effective_request("nvidia.com/gpu").value() == 2);
    CHECK(effective_request(spec, "memory").is_zero());
  }
  SUBCASE("containers are summed") {
    PodSpec spec = PodBuilder("ns", "p").container("a", "img").gpus(1).container("b", "img").gpus(2).build().spec;
    CHECK(effective_request(spec, "nvidia.com/gpu").value() == 3);
  }
  SUBCASE("init containers count by their maximum") {
    PodSpec spec = PodBuilder("ns", "p")
                       .container("app", "img").gpus(1)
                       .init_container("warm-1", "img").gpus(2)
                       .init_container("warm-2", "img").gpus(1)
                       .build().spec;
    CHECK(effective_request(spec, "nvidia.com/gpu").value() == 2);
  }
  SUBCASE("an init container asking for a GPU makes a GPU pod even if the app does not") {
    PodSpec spec = PodBuilder("ns", "p").container("app", "img").init_container("probe", "img").gpus(1).build().spec;
    CHECK(effective_request(spec, "nvidia.com/gpu").value() == 1);
  }
  SUBCASE("sidecar init containers add to the containers") {
    nlohmann::json pod = PodBuilder("ns", "p").container("app", "img").request("cpu", "1")
                             .init_container("proxy", "img").request("cpu", "500m")
                             .init_container("setup", "img").request("cpu", "1200m").json();
    pod["spec"]["initContainers"][0]["restartPolicy"] = "Always";
    PodSpec spec = pod_from_json(pod).spec;
    // max(1 + 0.5, 0.5 + 1.2) = 1.7
    CHECK(effective_request(spec, "cpu").milli() == 1700);
  }
  SUBCASE("overhead is added") {
    nlohmann::json pod = PodBuilder("ns", "p").container("app", "img").request("cpu", "1").json();
    pod["spec"]["overhead"] = {{"cpu", "250m"}};
    CHECK(effective_request(pod_from_json(pod).spec, "cpu").milli() == 1250);
  }
  SUBCASE("MIG and shared resources are separate resources") {
    PodSpec spec = PodBuilder("ns", "p").container("a", "img").gpus(1, "nvidia.com/gpu.shared")
                       .gpus(1, "nvidia.com/mig-1g.5gb").build().spec;
    ResourceList all = effective_requests(spec);
    CHECK(quantity_of(all, "nvidia.com/gpu.shared").value() == 1);
    CHECK(quantity_of(all, "nvidia.com/mig-1g.5gb").value() == 1);
    CHECK(!all.contains("nvidia.com/gpu"));
  }
  SUBCASE("effective_gpu_requests: the GPU resources of effective_requests, and nothing else") {
    nlohmann::json pod = PodBuilder("ns", "p")
                             .container("app", "img").request("cpu", "1").limit("nvidia.com/gpu", "1")
                             .container("side", "img").gpus(1, "nvidia.com/mig-1g.5gb")
                             .init_container("proxy", "img").gpus(1)
                             .init_container("setup", "img").gpus(3).request("memory", "1Gi").json();
    pod["spec"]["initContainers"][0]["restartPolicy"] = "Always";
    pod["spec"]["overhead"] = {{"cpu", "250m"}, {"nvidia.com/gpu", "1"}};
    const PodSpec spec = pod_from_json(pod).spec;
    const ResourceList all = effective_requests(spec);
    ResourceList gpu_only;
    for (const auto& [name, quantity] : all)
      if (is_gpu_resource(name)) gpu_only.emplace(name, quantity);
    CHECK(effective_gpu_requests(spec) == gpu_only);
    // max(1 + sidecar 1, sidecar 1 + init 3) + overhead 1
    CHECK(quantity_of(effective_gpu_requests(spec), "nvidia.com/gpu").value() == 5);
    CHECK(effective_gpu_requests(PodBuilder("ns", "q").container("a", "img").request("cpu", "1").build().spec).empty());
  }
}

TEST_CASE("model::Pod status helpers") {
  Pod running = PodBuilder("kube-system", "nvdp-1").container("ctr", "img").running_on("gpu-1").build();
  CHECK(!running.is_unscheduled());
  CHECK(running.is_ready());
  CHECK(running.spec.node_name == "gpu-1");
  CHECK(running.start_time == k_created);
  // Of the conditions only PodScheduled is kept; Ready is not read (the statuses say it).
  REQUIRE(running.conditions.size() == 1);
  CHECK(running.conditions.at(0).type == "PodScheduled");
  CHECK(running.container_statuses.at(0).state == "running");
  Pod crashing = PodBuilder("kube-system", "nvdp-2").container("ctr", "img").running_on("gpu-2")
                     .waiting("CrashLoopBackOff", 6).build();
  CHECK(!crashing.is_ready());
  CHECK(crashing.restarts() == 6);
  CHECK(crashing.container_statuses.at(0).reason == "CrashLoopBackOff");
  CHECK(crashing.container_statuses.at(0).state == "waiting");
  CHECK(!PodBuilder("ns", "p").build().is_ready());
  Pod nominated = PodBuilder("ns", "p").node_name("n").build();
  CHECK(!nominated.is_unscheduled());
}

TEST_CASE("model::to_json(Pod)") {
  Pod pod = PodBuilder("ml", "infer-0")
                .container("app", "img").gpus(1).request("memory", "8Gi").env("MODE", "fast")
                .init_container("init", "img").request("cpu", "100m")
                .affinity("nvidia.com/gpu.product", "In", {"Tesla-T4", "NVIDIA-A10G"})
                .toleration("", "Exists", "", "")
                .scheduler_name("volcano")
                .unschedulable("0/3 nodes are available")
                .build();
  CHECK(pod_from_json(to_json(pod)) == pod);
  CHECK(pod.spec.scheduler_name == "volcano");
  REQUIRE(pod.spec.required_affinity.has_value());
  CHECK(pod.spec.required_affinity->terms.at(0).match_expressions.at(0).values.size() == 2);
}

TEST_CASE("model::pod_from_json keeps what diagnosis reads; workload templates keep everything") {
  // One container as a real pod carries it: a sidecar init container, env (a credential among
  // them), command, args, a mounted ConfigMap volume, and annotations.
  auto spec_of = [](auto builder) {
    return builder.label("app", "infer")
        .annotation("prometheus.io/scrape", "true")
        .owner("ReplicaSet", "infer-5d8f")
        .container("app", "nvcr.io/nvidia/pytorch:24.01")
        .command({"python"})
        .args({"--config=/etc/app/config.yaml"})
        .env("AWS_SECRET_ACCESS_KEY", "s3cr3t")
        .config_map_volume("config", "app-config", "/etc/app")
        .gpus(1)
        .request("cpu", "500m")
        .node_selector("nvidia.com/gpu.present", "true")
        .toleration("nvidia.com/gpu")
        .affinity("nvidia.com/gpu.product", "In", {"Tesla-T4"});
  };
  Pod pod = spec_of(PodBuilder("ml", "infer-0")).unschedulable("0/3 nodes are available").build();
  const Container& c = pod.spec.containers.at(0);
  CHECK(c.env.empty());
  CHECK(c.command.empty());
  CHECK(c.args.empty());
  CHECK(c.volume_mounts.empty());
  CHECK(pod.spec.volumes.empty());
  CHECK(pod.meta.annotations.empty());
  CHECK(to_json(pod).dump().find("s3cr3t") == std::string::npos);
  // What the analyzers read stays.
  CHECK(c.name == "app");
  CHECK(c.image == "nvcr.io/nvidia/pytorch:24.01");
  CHECK(quantity_of(c.limits, "nvidia.com/gpu").value() == 1);
  CHECK(quantity_of(c.requests, "cpu").milli() == 500);
  CHECK(pod.meta.labels.at("app") == "infer");
  REQUIRE(pod.meta.controller() != nullptr);
  CHECK(pod.meta.controller()->name == "infer-5d8f");
  CHECK(pod.spec.node_selector.at("nvidia.com/gpu.present") == "true");
  CHECK(pod.spec.tolerations.at(0).key == "nvidia.com/gpu");
  CHECK(pod.spec.required_affinity.has_value());
  REQUIRE(pod.condition("PodScheduled") != nullptr);
  CHECK(pod.condition("PodScheduled")->message == "0/3 nodes are available");

  for (const PodTemplate& t : {spec_of(DaemonSetBuilder("kube-system", "nvdp")).build().pod_template,
                               spec_of(DeploymentBuilder("ml", "infer")).build().pod_template}) {
    const Container& tc = t.spec.containers.at(0);
    REQUIRE(tc.env.size() == 1);
    CHECK(tc.env.at(0).value == "s3cr3t");
    CHECK(tc.command == std::vector<std::string>{"python"});
    CHECK(tc.args == std::vector<std::string>{"--config=/etc/app/config.yaml"});
    CHECK(tc.volume_mounts.at(0).mount_path == "/etc/app");
    CHECK(t.spec.volumes.at(0).config_map == "app-config");
  }
}
