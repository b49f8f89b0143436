// SPDX-License-Identifier: Apache-2.0
#include "cli/step_flags.hpp"

#include <fstream>
#include <sstream>

#include <gpuslice/error.hpp>

namespace gpuslice::cli {

void add_config_flags(CLI::App& sub, remedy::ConfigApplyOptions& options) {
  sub.add_option("--replicas", options.replicas, "Time-slicing replicas per GPU (at least 2)");
  sub.add_option("--config-name", options.name, "Name of the time-slicing ConfigMap")->default_str(options.name);
  sub.add_option("--config-namespace", options.ns,
                 "Namespace of the ConfigMap (default: the device plugin's namespace, else nvidia-device-plugin)");
  sub.add_option("--config-key", options.key, "ConfigMap key: the config name the plugin selects")
      ->default_str(options.key);
  sub.add_flag("--rename-by-default", options.rename_by_default,
               "Advertise shared GPUs as <resource>.shared (pods must request nvidia.com/gpu.shared)");
  sub.add_flag("--fail-requests-greater-than-one", options.fail_requests_greater_than_one,
               "Reject pods that request more than one shared GPU");
  sub.add_option("--resource", options.resource, "The resource to share")->default_str(options.resource);
  sub.add_option("--from-file", options.from_file_name, "A full device-plugin config file to apply instead");
}

void load_config_file(remedy::ConfigApplyOptions& options) {
  if (options.from_file_name.empty()) return;
  std::ifstream in(options.from_file_name);
  if (!in) throw UsageError("--from-file " + options.from_file_name + ": cannot read the file");
  std::ostringstream text;
  text << in.rdbuf();
  options.from_file_text = text.str();
  if (options.from_file_text.empty()) throw UsageError("--from-file " + options.from_file_name + ": the file is empty");
}

void add_taint_flags(CLI::App& sub, remedy::TaintOptions& taint) {
  sub.add_option("--taint-key", taint.key, "Key of the GPU taint")->default_str(taint.key);
  sub.add_option("--taint-value", taint.value, "Value of the GPU taint")->default_str(taint.value);
  sub.add_option("--taint-effect", taint.effect, "Effect: NoSchedule, PreferNoSchedule or NoExecute")
      ->default_str(taint.effect);
}

} // namespace gpuslice::cli
