// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include "unit/builders.hpp"

using gpuslice::model::GpuAddon;
using gpuslice::testing::ConfigMapBuilder;
using gpuslice::testing::DaemonSetBuilder;
using gpuslice::testing::NodeBuilder;

namespace {
constexpr const char* k_addons_plugin_image = "nvcr.io/nvidia/k8s-device-plugin:v0.20.0";
}

TEST_CASE("model::recognise_gpu_addon") {
  SUBCASE("the chart's three DaemonSets share one image; names tell them apart") {
    CHECK(gpuslice::model::recognise_gpu_addon(
              DaemonSetBuilder("nvidia", "nvdp-nvidia-device-plugin")
                  .container("nvidia-device-plugin-ctr", k_addons_plugin_image).build()) == GpuAddon::device_plugin);
    CHECK(gpuslice::model::recognise_gpu_addon(
              DaemonSetBuilder("nvidia", "nvdp-nvidia-device-plugin-mps-control-daemon")
                  .container("mps-control-daemon-ctr", k_addons_plugin_image).build()) == GpuAddon::mps_daemon);
    CHECK(gpuslice::model::recognise_gpu_addon(
              DaemonSetBuilder("nvidia", "nvdp-nvidia-device-plugin-gpu-feature-discovery")
                  .container("ctr", k_addons_plugin_image).build()) == GpuAddon::feature_discovery);
  }
  SUBCASE("the config-manager init container does not make the pod a device plugin") {
    CHECK(gpuslice::model::recognise_gpu_addon(DaemonSetBuilder("x", "gfd")
                                                   .container("gpu-feature-discovery-ctr", "mirror/gfd:1")
                                                   .init_container("nvidia-device-plugin-init", k_addons_plugin_image)
                                                   .build()) == GpuAddon::feature_discovery);
  }
  SUBCASE("operator operands by their ClusterPolicy owner; others are none") {
    CHECK(gpuslice::model::recognise_gpu_addon(DaemonSetBuilder("gpu-operator", "nvidia-operator-validator")
                                                   .container("validator", "corp/validator:1")
                                                   .owner("ClusterPolicy", "cluster-policy", true, "nvidia.com/v1")
                                                   .build()) == GpuAddon::gpu_operator);
    CHECK(gpuslice::model::recognise_gpu_addon(DaemonSetBuilder("kube-system", "kube-proxy")
                                                   .container("kube-proxy", "eks/kube-proxy:v1.30.3").build()) ==
          GpuAddon::none);
  }
}

TEST_CASE("model::mounts_plugin_config") {
  const gpuslice::model::ConfigMap cm = ConfigMapBuilder("kube-system", "ts").data("any", "version: v1").build();
  SUBCASE("a mounted ConfigMap counts only when the plugin reads a config file") {
    DaemonSetBuilder ds("kube-system", "nvidia-device-plugin-daemonset");
    ds.container("nvidia-device-plugin-ctr", k_addons_plugin_image).config_map_volume("cfg", "ts", "/config");
    CHECK_FALSE(gpuslice::model::mounts_plugin_config(ds.build(), cm));
    ds.env("CONFIG_FILE", "/config/any");
    CHECK(gpuslice::model::mounts_plugin_config(ds.build(), cm));
  }
  SUBCASE("--config-file works too; another namespace does not") {
    DaemonSetBuilder ds("nvidia", "p");
    ds.container("nvidia-device-plugin-ctr", k_addons_plugin_image).args({"--config-file=/c/any"}).config_map_volume("c", "ts", "/c");
    CHECK(gpuslice::model::reads_config_file(ds.build()));
    CHECK_FALSE(gpuslice::model::mounts_plugin_config(ds.build(), cm));
  }
}

TEST_CASE("model::runs_host_device_plugin") {
  CHECK(gpuslice::model::runs_host_device_plugin(NodeBuilder("b").os_image("Bottlerocket OS 1.26.1 (aws-k8s-1.30-nvidia)").build()));
  CHECK(gpuslice::model::runs_host_device_plugin(NodeBuilder("a").label("eks.amazonaws.com/compute-type", "auto").build()));
  CHECK_FALSE(gpuslice::model::runs_host_device_plugin(NodeBuilder("al").build()));
}
