// SPDX-License-Identifier: Apache-2.0
// Platforms whose device plugin is not ours: apply plans nothing in-cluster there and names the
// provider's command instead (issue 22 part 4).
#include <doctest/doctest.h>

#include <gpuslice/remedy/plan.hpp>
#include <gpuslice/remedy/platform.hpp>

#include "unit/builders.hpp"

using gpuslice::Snapshot;
using gpuslice::remedy::managed_gpu_platform;
using gpuslice::remedy::ManagedPlatform;
using namespace gpuslice::testing;

namespace {

// Two T4 nodes of GKE pool "gpu-pool" in cluster "ml-prod", and a GPU Deployment.
Snapshot gke_cluster() {
  Snapshot s;
  for (const char* name : {"gke-ml-prod-gpu-pool-3f2a9c1d-x7k2", "gke-ml-prod-gpu-pool-3f2a9c1d-q9p4"}) {
    s.nodes.push_back(NodeBuilder(name)
                          .instance_type("n1-standard-8")
                          .label("cloud.google.com/gke-nodepool", "gpu-pool")
                          .label("cloud.google.com/gke-accelerator", "nvidia-tesla-t4")
                          .gpus(1)
                          .build());
  }
  s.nodes.push_back(NodeBuilder("gke-ml-prod-default-pool-aa11bb22-zz00")
                        .label("cloud.google.com/gke-nodepool", "default-pool")
                        .build());
  s.daemonsets.push_back(DaemonSetBuilder("kube-system", "nvidia-gpu-device-plugin-small-cos")
                             .label("k8s-app", "nvidia-gpu-device-plugin")
                             .label("addonmanager.kubernetes.io/mode", "Reconcile")
                             .container("nvidia-gpu-device-plugin", "gke.gcr.io/nvidia-gpu-device-plugin:1.0")
                             .build());
  s.deployments.push_back(DeploymentBuilder("ml", "infer").container("infer", "infer:1").limit("nvidia.com/gpu", "1").build());
  s.deployments.push_back(DeploymentBuilder("ml", "web").container("web", "nginx").build());
  return s;
}

} // namespace

TEST_CASE("remedy::managed_gpu_platform") {
  SUBCASE("GKE: one node-pool command per GPU pool, the GPU workloads' node selector") {
    const std::optional<ManagedPlatform> platform = managed_gpu_platform(gke_cluster(), 4);
    REQUIRE(platform);
    CHECK(platform->name == "GKE");
    CHECK(platform->commands ==
          std::vector<std::string>{
              "gcloud container node-pools create gpu-pool-shared --cluster=ml-prod --location=CLUSTER_LOCATION "
              "--machine-type=n1-standard-8 --num-nodes=2 "
              "--accelerator=type=nvidia-tesla-t4,count=1,gpu-sharing-strategy=time-sharing,max-shared-clients-per-gpu=4",
              "kubectl patch deployment infer -n ml --type merge -p "
              "'{\"spec\":{\"template\":{\"spec\":{\"nodeSelector\":{\"cloud.google.com/gke-gpu-sharing-strategy\":"
              "\"time-sharing\",\"cloud.google.com/gke-max-shared-clients-per-gpu\":\"4\"}}}}}'"});
  }
  SUBCASE("GKE pool already time-shared: the physical count is advertised / max clients") {
    Snapshot s = gke_cluster();
    for (auto& node : s.nodes) {
      if (!node.meta.label("cloud.google.com/gke-accelerator")) continue;
      node = NodeBuilder(node.name())
                 .label("cloud.google.com/gke-nodepool", "gpu-pool")
                 .label("cloud.google.com/gke-accelerator", "nvidia-l4")
                 .label("cloud.google.com/gke-gpu-sharing-strategy", "time-sharing")
                 .label("cloud.google.com/gke-max-shared-clients-per-gpu", "2")
                 .gpus(4)
                 .build();
    }
    const std::optional<ManagedPlatform> platform = managed_gpu_platform(s, 8);
    REQUIRE(platform);
    CHECK(platform->commands.front().find("--machine-type=MACHINE_TYPE") != std::string::npos);
    CHECK(platform->commands.front().find("type=nvidia-l4,count=2,") != std::string::npos);
    CHECK(platform->commands.front().find("max-shared-clients-per-gpu=8") != std::string::npos);
  }
  SUBCASE("a node name that does not spell the cluster gets a placeholder") {
    Snapshot s;
    s.nodes.push_back(NodeBuilder("gke-a-very-long-cluster-na-gpu-pool-9c1d-x7k2")
                          .label("cloud.google.com/gke-nodepool", "gpu-pool-with-long-name")
                          .label("cloud.google.com/gke-accelerator", "nvidia-tesla-t4")
                          .gpus(1)
                          .build());
    const std::optional<ManagedPlatform> platform = managed_gpu_platform(s, 4);
    REQUIRE(platform);
    CHECK(platform->commands.front().find("--cluster=CLUSTER_NAME ") != std::string::npos);
  }
  SUBCASE("EKS Auto Mode: refused, no command, says why") {
    Snapshot s;
    s.nodes.push_back(NodeBuilder("i-0abc").label("eks.amazonaws.com/compute-type", "auto").instance_type("g5.xlarge").gpus(1).build());
    const std::optional<ManagedPlatform> platform = managed_gpu_platform(s, 4);
    REQUIRE(platform);
    CHECK(platform->name == "EKS Auto Mode");
    CHECK(platform->commands.empty());
    CHECK(platform->why.find("cannot be configured") != std::string::npos);
  }
  SUBCASE("AKS: a plugin DaemonSet the addon manager owns; the GPU Operator pool command") {
    Snapshot s;
    s.nodes.push_back(NodeBuilder("aks-gpu-12345678-vmss000000")
                          .label("kubernetes.azure.com/agentpool", "gpu")
                          .instance_type("Standard_NC4as_T4_v3")
                          .gpus(1)
                          .build());
    s.daemonsets.push_back(DaemonSetBuilder("kube-system", "nvidia-device-plugin-daemonset")
                               .label("addonmanager.kubernetes.io/mode", "Reconcile")
                               .container("nvidia-device-plugin-ctr", "mcr.microsoft.com/oss/nvidia/k8s-device-plugin:v0.17.0")
                               .build());
    const std::optional<ManagedPlatform> platform = managed_gpu_platform(s, 4);
    REQUIRE(platform);
    CHECK(platform->name == "AKS");
    REQUIRE(platform->commands.size() == 1);
    CHECK(platform->commands[0] ==
          "az aks nodepool add --resource-group RESOURCE_GROUP --cluster-name CLUSTER_NAME --name gpushared "
          "--node-vm-size VM_SIZE --node-count 1 --gpu-driver none");
  }
  SUBCASE("healthy twins: our own plugin on AKS, EKS managed node groups, a mixed Auto Mode cluster") {
    Snapshot aks;
    aks.nodes.push_back(NodeBuilder("aks-gpu-1").label("kubernetes.azure.com/agentpool", "gpu").gpus(1).build());
    aks.daemonsets.push_back(DaemonSetBuilder("nvidia", "nvdp-nvidia-device-plugin")
                                 .container("nvidia-device-plugin-ctr", "nvcr.io/nvidia/k8s-device-plugin:v0.17.1")
                                 .build());
    CHECK_FALSE(managed_gpu_platform(aks, 4));
    Snapshot eks;
    eks.nodes.push_back(NodeBuilder("ip-10-0-1-5").label("eks.amazonaws.com/nodegroup", "gpu").instance_type("g4dn.xlarge").gpus(1).build());
    CHECK_FALSE(managed_gpu_platform(eks, 4));
    eks.nodes.push_back(NodeBuilder("i-0abc").label("eks.amazonaws.com/compute-type", "auto").gpus(1).build());
    CHECK_FALSE(managed_gpu_platform(eks, 4));
  }
}

TEST_CASE("remedy::plan_apply on a managed platform changes nothing") {
  gpuslice::remedy::ApplyOptions options;
  options.config.replicas = 4;
  const gpuslice::remedy::Plan plan = gpuslice::remedy::plan_apply(gke_cluster(), options);
  REQUIRE(plan.platform);
  CHECK(plan.steps.empty());
  CHECK_FALSE(plan.has_changes());
  const nlohmann::ordered_json json = gpuslice::remedy::plan_to_json(plan, true);
  CHECK(json["refused"]["platform"] == "GKE");
  CHECK(json["refused"]["commands"].size() == 2);
  SUBCASE("with --no-plugin the node and workload steps are planned as asked") {
    options.configure_plugin = false;
    CHECK_FALSE(gpuslice::remedy::plan_apply(gke_cluster(), options).platform);
  }
}
