// SPDX-License-Identifier: Apache-2.0
#include <gpuslice/model/addons.hpp>

#include <gpuslice/model/gpu.hpp>

#include <algorithm>
#include <cctype>
#include <optional>

namespace gpuslice::model {

namespace {

bool addon_text_has(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

struct AddonSignature {
  std::string_view fragment;
  GpuAddon addon;
};

// Fragments of the DaemonSet's own name that pin the kind where images are shared: the chart
// names its GFD and MPS DaemonSets <fullname>-gpu-feature-discovery / -mps-control-daemon.
constexpr AddonSignature k_addon_daemonset_names[] = {
    {"gpu-feature-discovery", GpuAddon::feature_discovery},
    {"mps-control-daemon", GpuAddon::mps_daemon},
    {"dcgm-exporter", GpuAddon::dcgm_exporter},
};

// Container names and commands (a mirrored or private registry keeps these even when the
// image path changes). The narrower programs come before nvidia-device-plugin.
constexpr AddonSignature k_addon_programs[] = {
    {"gpu-feature-discovery", GpuAddon::feature_discovery},
    {"mps-control-daemon", GpuAddon::mps_daemon},
    {"dcgm-exporter", GpuAddon::dcgm_exporter},
    {"nvidia-device-plugin", GpuAddon::device_plugin},
    {"hami-device-plugin", GpuAddon::hami},
};

// Image path fragments of each component (nvidia.md §2, §3, §5.2).
constexpr AddonSignature k_addon_images[] = {
    {"gpu-feature-discovery", GpuAddon::feature_discovery},
    {"dcgm-exporter", GpuAddon::dcgm_exporter},
    {"k8s-device-plugin", GpuAddon::device_plugin},
    {"gpu-operator", GpuAddon::gpu_operator}, // operator and its validator
    {"k8s-driver-manager", GpuAddon::gpu_operator},
    {"nvidia/driver", GpuAddon::gpu_operator},
    {"container-toolkit", GpuAddon::gpu_operator},
    {"k8s-mig-manager", GpuAddon::gpu_operator},
    {"nvidia/cloud-native/dcgm", GpuAddon::gpu_operator},
    {"projecthami/hami", GpuAddon::hami},
    {"4pdosc/k8s-vdevice", GpuAddon::hami},
};

// app.kubernetes.io/name (charts) and app / name (static manifests, the operator).
constexpr AddonSignature k_addon_label_values[] = {
    {"gpu-feature-discovery", GpuAddon::feature_discovery},
    {"dcgm-exporter", GpuAddon::dcgm_exporter},
    {"nvidia-device-plugin", GpuAddon::device_plugin},
    {"hami", GpuAddon::hami},
};

template <std::size_t N> GpuAddon match_addon(std::string_view text, const AddonSignature (&table)[N]) {
  for (const AddonSignature& s : table)
    if (addon_text_has(text, s.fragment)) return s.addon;
  return GpuAddon::none;
}

GpuAddon recognise_addon_container(const Container& c) {
  if (GpuAddon by_name = match_addon(c.name, k_addon_programs); by_name != GpuAddon::none) return by_name;
  if (!c.command.empty())
    if (GpuAddon by_command = match_addon(c.command.front(), k_addon_programs); by_command != GpuAddon::none)
      return by_command;
  return match_addon(c.image, k_addon_images);
}

bool is_plugin_kind(GpuAddon addon) {
  return addon == GpuAddon::device_plugin || addon == GpuAddon::feature_discovery || addon == GpuAddon::mps_daemon;
}

} // namespace

GpuAddon recognise_gpu_addon(const DaemonSet& daemonset) {
  const PodSpec& spec = daemonset.pod_template.spec;
  GpuAddon found = GpuAddon::none;
  for (const auto* containers : {&spec.containers, &spec.init_containers}) {
    for (const Container& c : *containers) {
      found = recognise_addon_container(c);
      if (found != GpuAddon::none) break;
    }
    if (found != GpuAddon::none) break;
  }
  // One image serves the plugin, GFD and MPS daemon: the DaemonSet's name settles which.
  if (found == GpuAddon::none || is_plugin_kind(found))
    if (GpuAddon by_name = match_addon(daemonset.meta.name, k_addon_daemonset_names); by_name != GpuAddon::none)
      return by_name;
  if (found != GpuAddon::none) return found;
  for (std::string_view key : {"app.kubernetes.io/name", "app", "name"})
    if (std::optional<std::string_view> value = daemonset.meta.label(key))
      if (GpuAddon by_label = match_addon(*value, k_addon_label_values); by_label != GpuAddon::none) return by_label;
  if (daemonset.meta.label("app.kubernetes.io/part-of") == "nvidia-gpu") return GpuAddon::gpu_operator;
  if (is_operator_managed(daemonset.meta)) return GpuAddon::gpu_operator;
  return GpuAddon::none;
}

bool runs_feature_discovery(const std::vector<DaemonSet>& daemonsets) {
  return std::any_of(daemonsets.begin(), daemonsets.end(), [](const DaemonSet& ds) {
    const GpuAddon addon = recognise_gpu_addon(ds);
    if (addon == GpuAddon::feature_discovery) return true;
    if (addon != GpuAddon::device_plugin) return false;
    const std::vector<Container>& containers = ds.pod_template.spec.containers;
    return std::any_of(containers.begin(), containers.end(), [](const Container& c) {
      return recognise_addon_container(c) == GpuAddon::feature_discovery;
    });
  });
}

bool is_feature_discovery_label(std::string_view key) {
  if (key.starts_with("nvidia.com/gpu."))
    return key != "nvidia.com/gpu.present" && !key.starts_with("nvidia.com/gpu.deploy.");
  return key.starts_with("nvidia.com/cuda.") || key == "nvidia.com/mig.capable" || key == "nvidia.com/mig.strategy" ||
         key == "nvidia.com/mps.capable" || key == "nvidia.com/vgpu.present" || key == "nvidia.com/gfd.timestamp";
}

bool is_operator_managed(const ObjectMeta& meta) {
  const OwnerReference* owner = meta.controller();
  return owner && owner->kind == "ClusterPolicy";
}

bool reads_config_file(const DaemonSet& daemonset) {
  const std::vector<Container>& containers = daemonset.pod_template.spec.containers;
  return std::any_of(containers.begin(), containers.end(), [](const Container& c) {
    const bool env = std::any_of(c.env.begin(), c.env.end(),
                                 [](const EnvVar& e) { return e.name == "CONFIG_FILE" && !e.value.empty(); });
    const bool arg = std::any_of(c.args.begin(), c.args.end(),
                                 [](const std::string& a) { return a.starts_with("--config-file"); });
    return env || arg;
  });
}

bool mounts_plugin_config(const DaemonSet& daemonset, const ConfigMap& configmap) {
  if (daemonset.meta.ns != configmap.meta.ns || !reads_config_file(daemonset)) return false;
  const std::vector<Volume>& volumes = daemonset.pod_template.spec.volumes;
  return std::any_of(volumes.begin(), volumes.end(),
                     [&](const Volume& v) { return v.config_map == configmap.meta.name; });
}

bool runs_host_device_plugin(const Node& node) {
  std::string os_image = node.os_image;
  std::transform(os_image.begin(), os_image.end(), os_image.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return addon_text_has(os_image, "bottlerocket") || gpu_platform(node) == GpuPlatform::eks_auto_mode;
}

GpuPlatform gpu_platform(const Node& node) {
  if (node.meta.label(k_label_gke_accelerator)) return GpuPlatform::gke;
  if (node.meta.label("eks.amazonaws.com/compute-type") == "auto") return GpuPlatform::eks_auto_mode;
  return GpuPlatform::configurable;
}

GpuPlatform gpu_platform(const std::vector<const Node*>& gpu_nodes) {
  bool all_auto_mode = !gpu_nodes.empty();
  for (const Node* node : gpu_nodes) {
    const GpuPlatform platform = gpu_platform(*node);
    if (platform == GpuPlatform::gke) return GpuPlatform::gke;
    all_auto_mode = all_auto_mode && platform == GpuPlatform::eks_auto_mode;
  }
  return all_auto_mode ? GpuPlatform::eks_auto_mode : GpuPlatform::configurable;
}

} // namespace gpuslice::model
