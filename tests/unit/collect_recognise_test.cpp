// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "collect/recognise.hpp"

using gpuslice::collect::GpuComponent;
using gpuslice::collect::recognise_daemonset;
using nlohmann::json;

namespace {

json daemonset(const std::string& name, const std::string& container, const std::string& image, json labels = json::object()) {
  return {{"apiVersion", "apps/v1"},
          {"kind", "DaemonSet"},
          {"metadata", {{"name", name}, {"namespace", "x"}, {"labels", labels}}},
          {"spec", {{"template", {{"spec", {{"containers", {{{"name", container}, {"image", image}}}}}}}}}}};
}

GpuComponent recognise(const json& ds) {
  return recognise_daemonset(gpuslice::model::daemonset_from_json(ds));
}

} // namespace

TEST_CASE("collect::recognise_daemonset") {
  SUBCASE("by image") {
    CHECK(recognise(daemonset("nvdp-nvidia-device-plugin", "ctr", "nvcr.io/nvidia/k8s-device-plugin:v0.17.1")) ==
          GpuComponent::device_plugin);
    CHECK(recognise(daemonset("dcgm", "exporter", "nvcr.io/nvidia/k8s/dcgm-exporter:3.3.5-3.4.0-ubuntu22.04")) ==
          GpuComponent::dcgm_exporter);
    CHECK(recognise(daemonset("nvidia-driver-daemonset", "driver", "nvcr.io/nvidia/driver:550.54.15")) ==
          GpuComponent::gpu_operator);
    CHECK(recognise(daemonset("hami-device-plugin", "plugin", "projecthami/hami:v2.4.1")) == GpuComponent::hami);
  }
  SUBCASE("GFD shares the device plugin image; its container name tells it apart") {
    CHECK(recognise(daemonset("nvdp-nvidia-device-plugin-gpu-feature-discovery", "gpu-feature-discovery-ctr",
                              "nvcr.io/nvidia/k8s-device-plugin:v0.17.1")) == GpuComponent::feature_discovery);
  }
  SUBCASE("a mirrored image is still recognised by container name or label") {
    CHECK(recognise(daemonset("plugin", "nvidia-device-plugin-ctr", "registry.corp/mirror/plugin:1")) ==
          GpuComponent::device_plugin);
    CHECK(recognise(daemonset("gfd", "main", "registry.corp/mirror/x:1",
                              {{"app.kubernetes.io/name", "gpu-feature-discovery"}})) == GpuComponent::feature_discovery);
  }
  SUBCASE("an operator operand by its ClusterPolicy owner") {
    json ds = daemonset("nvidia-operator-validator", "validator", "registry.corp/validator:1");
    ds["metadata"]["ownerReferences"] = {{{"apiVersion", "nvidia.com/v1"}, {"kind", "ClusterPolicy"},
                                          {"name", "cluster-policy"}, {"uid", "u"}, {"controller", true}}};
    CHECK(recognise(ds) == GpuComponent::gpu_operator);
  }
  SUBCASE("other DaemonSets are not") {
    CHECK(recognise(daemonset("aws-node", "aws-node", "602401143452.dkr.ecr.us-west-2.amazonaws.com/amazon-k8s-cni:v1.18.5")) ==
          GpuComponent::none);
    CHECK(recognise(daemonset("kube-proxy", "kube-proxy", "eks/kube-proxy:v1.30.3", {{"k8s-app", "kube-proxy"}})) ==
          GpuComponent::none);
  }
}

TEST_CASE("collect::is_gpu_component_name") {
  CHECK(gpuslice::collect::is_gpu_component_name("nvidia-device-plugin"));
  CHECK(gpuslice::collect::is_gpu_component_name("gpu-operator"));
  CHECK(gpuslice::collect::is_gpu_component_name("hami"));
  CHECK_FALSE(gpuslice::collect::is_gpu_component_name("nvdp")); // a release name alone says nothing
  CHECK_FALSE(gpuslice::collect::is_gpu_component_name("ingress-nginx"));
}

TEST_CASE("collect::configmaps_used") {
  json ds = daemonset("p", "c", "i");
  json& spec = ds["spec"]["template"]["spec"];
  spec["volumes"] = {{{"name", "available-configs"}, {"configMap", {{"name", "time-slicing-config"}}}},
                     {{"name", "host"}, {"hostPath", {{"path", "/var/lib/kubelet/device-plugins"}}}},
                     {{"name", "p"}, {"projected", {{"sources", {{{"configMap", {{"name", "projected-cm"}}}}}}}}}};
  spec["containers"][0]["envFrom"] = {{{"configMapRef", {{"name", "env-cm"}}}}};
  spec["containers"][0]["env"] = {{{"name", "X"}, {"valueFrom", {{"configMapKeyRef", {{"name", "key-cm"}, {"key", "k"}}}}}},
                                  {{"name", "Y"}, {"valueFrom", {{"secretKeyRef", {{"name", "a-secret"}, {"key", "k"}}}}}}};
  CHECK(gpuslice::collect::configmaps_used(ds) ==
        std::vector<std::string>{"env-cm", "key-cm", "projected-cm", "time-slicing-config"});
}

TEST_CASE("collect::requests_gpu") {
  gpuslice::model::PodSpec spec = gpuslice::model::pod_spec_from_json(
      json{{"containers", {{{"name", "c"}, {"resources", {{"limits", {{"nvidia.com/gpu", "1"}}}}}}}}});
  CHECK(gpuslice::collect::requests_gpu(spec));
  spec = gpuslice::model::pod_spec_from_json(
      json{{"initContainers", {{{"name", "i"}, {"resources", {{"requests", {{"nvidia.com/gpu.shared", "1"}}}}}}}},
           {"containers", {{{"name", "c"}}}}});
  CHECK(gpuslice::collect::requests_gpu(spec));
  spec = gpuslice::model::pod_spec_from_json(
      json{{"containers", {{{"name", "c"}, {"resources", {{"requests", {{"cpu", "2"}}}}}}}}});
  CHECK_FALSE(gpuslice::collect::requests_gpu(spec));
}
