// SPDX-License-Identifier: Apache-2.0
// Issue 22 part 4: on clusters whose device plugin the platform owns, `apply` sends no change
// and prints the command that does the job instead; `--yes` refuses (exit 3) naming why.
// Against fakekube over HTTPS, so the request log proves that nothing was written.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <fakekube/server.hpp>

#include "unit/cli_run_support.hpp"
#include "unit/kube_fakekube_support.hpp"

using nlohmann::json;

namespace {

json platform_node(const std::string& name, json labels, int gpus, std::string os_image = "Container-Optimized OS from Google") {
  labels["kubernetes.io/hostname"] = name;
  const std::string count = std::to_string(gpus);
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata", {{"name", name}, {"labels", labels}}},
          {"status",
           {{"capacity", {{"cpu", "8"}, {"nvidia.com/gpu", count}}},
            {"allocatable", {{"cpu", "8"}, {"nvidia.com/gpu", count}}},
            {"nodeInfo", {{"osImage", os_image}}},
            {"conditions", json::array({{{"type", "Ready"}, {"status", "True"}}})}}}};
}

json platform_gpu_deployment() {
  return json::parse(R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"infer","namespace":"ml"},
    "spec":{"replicas":2,"selector":{"matchLabels":{"app":"infer"}},"template":{"metadata":{"labels":{"app":"infer"}},
    "spec":{"containers":[{"name":"infer","image":"infer:1","resources":{"limits":{"nvidia.com/gpu":"1"}}}]}}}})");
}

json platform_ns(const std::string& name) { return {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", name}}}}; }

fakekube::Scenario platform_scenario(std::vector<json> objects) {
  fakekube::Scenario s;
  s.objects = json::array({platform_ns("default"), platform_ns("kube-system"), platform_ns("ml")});
  for (json& object : objects) s.objects.push_back(std::move(object));
  s.objects.push_back(platform_gpu_deployment());
  return s;
}

fakekube::Scenario platform_gke() {
  const json labels = {{"cloud.google.com/gke-nodepool", "gpu-pool"},
                       {"cloud.google.com/gke-accelerator", "nvidia-tesla-t4"},
                       {"node.kubernetes.io/instance-type", "n1-standard-8"}};
  return platform_scenario({platform_node("gke-ml-prod-gpu-pool-3f2a9c1d-x7k2", labels, 1), platform_node("gke-ml-prod-gpu-pool-3f2a9c1d-q9p4", labels, 1)});
}

int platform_writes(const std::vector<fakekube::LoggedRequest>& log) {
  int count = 0;
  for (const fakekube::LoggedRequest& r : log)
    if (r.method != "GET") ++count;
  return count;
}

struct PlatformRun {
  cli_test::CliRun result;
  int writes = 0;
};

PlatformRun platform_apply(const fakekube::Scenario& s, std::vector<std::string> args) {
  kube_test::Cluster cluster(s);
  const std::string kubeconfig = cluster.kubeconfig("admin", fakekube::KubeconfigAuth::token).string();
  args.insert(args.begin(), {"apply", "--replicas", "4", "--kubeconfig", kubeconfig});
  PlatformRun run{cli_test::run_cli(args), 0};
  run.writes = platform_writes(cluster.server.request_log());
  return run;
}

bool platform_contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

} // namespace

TEST_CASE("apply on GKE: the gcloud node-pool command, the pods' node selector, no request that writes") {
  const PlatformRun dry = platform_apply(platform_gke(), {"--dry-run=client"});
  CHECK(dry.result.code == gpuslice::ExitCode::ok);
  CHECK(dry.writes == 0);
  CHECK(platform_contains(dry.result.out, "Refused (GKE): GKE installs and reconciles its own NVIDIA device plugin"));
  CHECK(platform_contains(dry.result.out,
                 "\n  gcloud container node-pools create gpu-pool-shared --cluster=ml-prod --location=CLUSTER_LOCATION "
                 "--machine-type=n1-standard-8 --num-nodes=2 "
                 "--accelerator=type=nvidia-tesla-t4,count=1,gpu-sharing-strategy=time-sharing,max-shared-clients-per-gpu=4\n"));
  CHECK(platform_contains(dry.result.out,
                 "\n  kubectl patch deployment infer -n ml --type merge -p '{\"spec\":{\"template\":{\"spec\":{\"nodeSelector\":"
                 "{\"cloud.google.com/gke-gpu-sharing-strategy\":\"time-sharing\",\"cloud.google.com/gke-max-shared-clients-per-gpu\":\"4\"}}}}}'\n"));
  CHECK_FALSE(platform_contains(dry.result.out, "Step 1/"));

  const PlatformRun json_run = platform_apply(platform_gke(), {"--dry-run=client", "-o", "json"});
  const json plan = json::parse(json_run.result.out);
  CHECK(plan["refused"]["platform"] == "GKE");
  CHECK(plan["steps"].empty());
  CHECK(plan["changes"] == false);

  const PlatformRun real = platform_apply(platform_gke(), {"--yes", "--no-wait"});
  CHECK(real.result.code == gpuslice::ExitCode::runtime);
  CHECK(real.writes == 0);
  CHECK(platform_contains(real.result.err, "apply: nothing was changed: GKE installs and reconciles its own NVIDIA device plugin"));
}

TEST_CASE("apply on EKS Auto Mode and an AKS addon-managed plugin: refused with why; Bottlerocket keeps its settings") {
  SUBCASE("EKS Auto Mode") {
    const PlatformRun dry = platform_apply(platform_scenario({platform_node("i-0abc", {{"eks.amazonaws.com/compute-type", "auto"},
                                                     {"node.kubernetes.io/instance-type", "g5.xlarge"}},
                                        1, "Bottlerocket (EKS Auto, Nvidia) 2025.3.1")}),
                          {"--dry-run=client"});
    CHECK(dry.result.code == gpuslice::ExitCode::ok);
    CHECK(dry.writes == 0);
    CHECK(platform_contains(dry.result.out, "Refused (EKS Auto Mode): EKS Auto Mode runs the NVIDIA device plugin inside the node image"));
    CHECK_FALSE(platform_contains(dry.result.out, "settings.kubelet-device-plugins"));
  }
  SUBCASE("AKS") {
    const json plugin = json::parse(R"({"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"nvidia-device-plugin-daemonset",
      "namespace":"kube-system","labels":{"addonmanager.kubernetes.io/mode":"Reconcile"}},
      "spec":{"selector":{"matchLabels":{"name":"nvdp"}},"template":{"metadata":{"labels":{"name":"nvdp"}},
      "spec":{"containers":[{"name":"nvidia-device-plugin-ctr","image":"mcr.microsoft.com/oss/nvidia/k8s-device-plugin:v0.17.0"}]}}}})");
    const PlatformRun dry = platform_apply(platform_scenario({platform_node("aks-gpu-12345678-vmss000000", {{"kubernetes.azure.com/agentpool", "gpu"},
                                                                         {"node.kubernetes.io/instance-type", "Standard_NC4as_T4_v3"}},
                                        1, "Ubuntu 22.04.5 LTS"),
                                   plugin}),
                          {"--dry-run=client"});
    CHECK(dry.writes == 0);
    CHECK(platform_contains(dry.result.out, "Refused (AKS): the device plugin DaemonSet kube-system/nvidia-device-plugin-daemonset "
                                   "belongs to the platform's addon manager"));
    CHECK(platform_contains(dry.result.out, "\n  az aks nodepool add --resource-group RESOURCE_GROUP --cluster-name CLUSTER_NAME "
                                   "--name gpushared --node-vm-size VM_SIZE --node-count 1 --gpu-driver none\n"));
  }
  SUBCASE("Bottlerocket on a managed node group: not refused, the host settings are printed") {
    const PlatformRun dry = platform_apply(platform_scenario({platform_node("ip-10-0-1-5", {{"eks.amazonaws.com/nodegroup", "gpu"},
                                                          {"node.kubernetes.io/instance-type", "g4dn.xlarge"}},
                                        1, "Bottlerocket OS 1.30.0 (aws-k8s-1.30-nvidia)")}),
                          {"--dry-run=client"});
    CHECK(dry.result.code == gpuslice::ExitCode::ok);
    CHECK(dry.writes == 0);
    CHECK_FALSE(platform_contains(dry.result.out, "Refused"));
    CHECK(platform_contains(dry.result.out, "[settings.kubelet-device-plugins.nvidia.time-slicing]"));
  }
}
