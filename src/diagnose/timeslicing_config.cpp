// SPDX-License-Identifier: Apache-2.0
// Mirrors the device plugin's parsing (reference/nvidia.md §1.1-1.6): sigs.k8s.io/yaml into Go
// structs, so unknown keys are silently ignored (the classic "renameByDefault under flags",
// NVIDIA/k8s-device-plugin#1433) and type mismatches abort the plugin. We report both kinds;
// only the second is fatal.
#include <gpuslice/timeslicing.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <utility>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "text.hpp"

namespace gpuslice::diagnose {

namespace {

using Keys = std::initializer_list<std::string_view>;

// Where each known key lives, to tell a misplaced key from an unknown one.
constexpr std::array<std::pair<std::string_view, std::string_view>, 16> k_home{{
    {"version", ""},
    {"flags", ""},
    {"sharing", ""},
    {"imex", ""},
    {"migStrategy", "flags"},
    {"failOnInitError", "flags"},
    {"plugin", "flags"},
    {"deviceListStrategy", "flags.plugin"},
    {"deviceIDStrategy", "flags.plugin"},
    {"passDeviceSpecs", "flags.plugin"},
    {"timeSlicing", "sharing"},
    {"mps", "sharing"},
    {"renameByDefault", "sharing.timeSlicing"},
    {"failRequestsGreaterThanOne", "sharing.timeSlicing"},
    {"resources", "sharing.timeSlicing"},
    {"replicas", "sharing.timeSlicing.resources[]"},
}};

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string join_path(std::string_view parent, std::string_view key) {
  return parent.empty() ? std::string(key) : fmt::format("{}.{}", parent, key);
}

// The section name without list indices: "sharing.timeSlicing.resources[0]" →
// "sharing.timeSlicing.resources[]".
std::string section_of(std::string_view path) {
  std::string out;
  for (std::size_t i = 0; i < path.size(); ++i) {
    out += path[i];
    if (path[i] == '[') {
      while (i + 1 < path.size() && path[i + 1] != ']') ++i;
    }
  }
  return out;
}

class Checker {
public:
  ConfigCheck run(std::string_view text);

private:
  void fatal(std::string path, std::string message) {
    m_check.problems.push_back({std::move(path), std::move(message), true});
  }
  void ignored(std::string path, std::string message) {
    m_check.problems.push_back({std::move(path), std::move(message), false});
  }
  void check_keys(const YAML::Node& map, std::string_view path, Keys known);
  std::optional<bool> read_bool(const YAML::Node& node, const std::string& path);
  void check_flags(const YAML::Node& flags);
  void check_sharing(const YAML::Node& sharing);
  // Returns the resources when the block is valid enough to use.
  std::vector<SharedResource> check_replicated(const YAML::Node& block, const std::string& path,
                                              bool* rename, std::optional<bool>* fail_many);
  std::optional<SharedResource> check_resource(const YAML::Node& node, const std::string& path);

  ConfigCheck m_check;
};

void Checker::check_keys(const YAML::Node& map, std::string_view path, Keys known) {
  const std::string section = section_of(path);
  for (const auto& item : map) {
    const std::string key = item.first.IsScalar() ? item.first.Scalar() : std::string("?");
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    const std::string here = join_path(path, key);
    const auto home = std::find_if(k_home.begin(), k_home.end(),
                                   [&](const auto& h) { return h.first == key; });
    if (home != k_home.end() && home->second != section) {
      ignored(here, fmt::format("misplaced: '{}' belongs under '{}'; the device plugin ignores "
                                "it here",
                                key, home->second.empty() ? "the top level" : home->second));
      continue;
    }
    const auto alike = std::find_if(known.begin(), known.end(),
                                    [&](std::string_view k) { return lower(k) == lower(key); });
    if (alike != known.end()) {
      ignored(here, fmt::format("unknown key '{}' (keys are case-sensitive: did you mean '{}'?); "
                                "the device plugin ignores it",
                                key, *alike));
    } else {
      ignored(here, fmt::format("unknown key '{}'; the device plugin ignores it", key));
    }
  }
}

std::optional<bool> Checker::read_bool(const YAML::Node& node, const std::string& path) {
  // A quoted "true" is a JSON string after sigs.k8s.io/yaml and fails to unmarshal into bool.
  if (node.IsScalar() && node.Tag() != "!") {
    const std::string v = node.Scalar();
    if (v == "true" || v == "True" || v == "TRUE") return true;
    if (v == "false" || v == "False" || v == "FALSE") return false;
  }
  fatal(path, fmt::format("must be true or false, not {}",
                          node.IsScalar() ? fmt::format("'{}'", node.Scalar()) : "a structure"));
  return std::nullopt;
}

void Checker::check_flags(const YAML::Node& flags) {
  if (!flags.IsMap()) {
    if (!flags.IsNull()) fatal("flags", "must be a mapping");
    return;
  }
  check_keys(flags, "flags",
             {"migStrategy", "failOnInitError", "nvidiaDriverRoot", "nvidiaDevRoot", "mpsRoot",
              "gdrcopyEnabled", "gdsEnabled", "mofedEnabled", "useNodeFeatureAPI",
              "deviceDiscoveryStrategy", "plugin", "gfd", "kubeletSocket"});
  if (const YAML::Node mig = flags["migStrategy"]) {
    const std::string value = mig.IsScalar() ? mig.Scalar() : std::string{};
    if (value != "none" && value != "single" && value != "mixed") {
      fatal("flags.migStrategy", fmt::format("unknown MIG strategy: '{}' (none | single | mixed)", value));
    } else {
      m_check.config.mig_strategy = value;
    }
  }
  if (const YAML::Node plugin = flags["plugin"]; plugin && plugin.IsMap()) {
    check_keys(plugin, "flags.plugin",
               {"passDeviceSpecs", "deviceListStrategy", "deviceIDStrategy", "cdiAnnotationPrefix",
                "nvidiaCTKPath", "containerDriverRoot", "sharedDevicesAllocationPolicy"});
  }
}

std::optional<SharedResource> Checker::check_resource(const YAML::Node& node,
                                                      const std::string& path) {
  if (!node.IsMap()) {
    fatal(path, "each resource must be a mapping with name and replicas");
    return std::nullopt;
  }
  check_keys(node, path, {"name", "rename", "devices", "replicas"});
  SharedResource r;
  bool ok = true;
  const YAML::Node name = node["name"];
  if (!name || !name.IsScalar() || name.Scalar().empty()) {
    fatal(path + ".name", "no resource name specified (e.g. name: nvidia.com/gpu)");
    ok = false;
  } else {
    r.name = name.Scalar().find('/') == std::string::npos ? "nvidia.com/" + name.Scalar()
                                                         : name.Scalar();
    if (r.name.ends_with(".shared")) {
      ignored(path + ".name", fmt::format("'{}' is not a device resource; share 'nvidia.com/gpu' "
                                          "and set renameByDefault: true to get .shared",
                                          r.name));
    }
  }
  const YAML::Node replicas = node["replicas"];
  if (!replicas || replicas.IsNull()) {
    fatal(path + ".replicas", "no replicas specified");
    ok = false;
  } else if (!replicas.IsScalar()) {
    fatal(path + ".replicas", "replicas must be a whole number >= 2, not a structure");
    ok = false;
  } else if (replicas.Tag() == "!") {
    fatal(path + ".replicas",
          fmt::format("replicas must be a number, not the string \"{}\": remove the quotes",
                      replicas.Scalar()));
    ok = false;
  } else if (const std::optional<int> n = parse_count(replicas.Scalar()); !n) {
    fatal(path + ".replicas",
          fmt::format("replicas must be a whole number >= 2, not '{}'", replicas.Scalar()));
    ok = false;
  } else if (*n < 2) {
    fatal(path + ".replicas",
          fmt::format("number of replicas must be >= 2 (got {}); to turn sharing off, remove the "
                      "sharing section",
                      *n));
    ok = false;
  } else {
    r.replicas = *n;
  }
  if (node["rename"]) {
    ignored(path + ".rename", "ignored by the device plugin: use renameByDefault: true for "
                              "'<name>.shared'");
  }
  if (const YAML::Node devices = node["devices"]) {
    if (devices.IsScalar() && devices.Tag() != "?" ) {
      if (devices.Scalar() != "all") {
        fatal(path + ".devices", fmt::format("devices set as '{}' but the only valid string "
                                             "input is 'all'",
                                             devices.Scalar()));
      }
    } else if (devices.IsScalar()) {
      const std::optional<int> count = parse_count(devices.Scalar());
      if (devices.Scalar() == "all") {
      } else if (!count || *count == 0) {
        fatal(path + ".devices", fmt::format("devices set as '{}': use 'all', a count > 0 or a "
                                             "list",
                                             devices.Scalar()));
      } else {
        ignored(path + ".devices", "ignored by the device plugin: every GPU is shared");
      }
    } else {
      ignored(path + ".devices", "ignored by the device plugin: every GPU is shared");
    }
  }
  return ok ? std::optional<SharedResource>(std::move(r)) : std::nullopt;
}

std::vector<SharedResource> Checker::check_replicated(const YAML::Node& block,
                                                     const std::string& path, bool* rename,
                                                     std::optional<bool>* fail_many) {
  std::vector<SharedResource> out;
  if (!block.IsMap()) {
    fatal(path, "must be a mapping with resources");
    return out;
  }
  check_keys(block, path, {"renameByDefault", "failRequestsGreaterThanOne", "resources"});
  if (const YAML::Node r = block["renameByDefault"]) {
    if (const std::optional<bool> v = read_bool(r, path + ".renameByDefault")) *rename = *v;
  }
  if (const YAML::Node f = block["failRequestsGreaterThanOne"]) {
    if (const std::optional<bool> v = read_bool(f, path + ".failRequestsGreaterThanOne")) *fail_many = *v;
  }
  const YAML::Node resources = block["resources"];
  if (!resources || resources.IsNull() || (resources.IsSequence() && resources.size() == 0)) {
    fatal(path + ".resources", "no resources specified (a list of {name, replicas})");
    return out;
  }
  if (!resources.IsSequence()) {
    fatal(path + ".resources", "must be a list of {name, replicas}");
    return out;
  }
  for (std::size_t i = 0; i < resources.size(); ++i) {
    if (std::optional<SharedResource> r = check_resource(resources[i], fmt::format("{}.resources[{}]", path, i))) {
      out.push_back(std::move(*r));
    }
  }
  return out;
}

void Checker::check_sharing(const YAML::Node& sharing) {
  if (!sharing.IsMap()) {
    if (!sharing.IsNull()) fatal("sharing", "must be a mapping with timeSlicing or mps");
    return;
  }
  check_keys(sharing, "sharing", {"timeSlicing", "mps"});
  SharingConfig& c = m_check.config;
  const YAML::Node ts = sharing["timeSlicing"];
  const YAML::Node mps = sharing["mps"];
  std::optional<bool> ts_fail;
  std::optional<bool> mps_fail;
  bool ts_rename = false;
  bool mps_rename = false;
  std::vector<SharedResource> ts_resources;
  std::vector<SharedResource> mps_resources;
  if (ts) ts_resources = check_replicated(ts, "sharing.timeSlicing", &ts_rename, &ts_fail);
  if (mps) mps_resources = check_replicated(mps, "sharing.mps", &mps_rename, &mps_fail);
  if (ts && mps) {
    ignored("sharing.mps", "time-slicing and MPS are mutually exclusive: MPS wins and "
                           "sharing.timeSlicing is ignored");
  }
  if (mps && !mps_resources.empty()) {
    c.strategy = "mps";
    c.rename_by_default = mps_rename;
    c.fail_requests_greater_than_one = mps_fail.value_or(true);  // MPS's historical default
    c.resources = std::move(mps_resources);
  } else if (!ts_resources.empty()) {
    c.strategy = "time-slicing";
    c.rename_by_default = ts_rename;
    c.fail_requests_greater_than_one = ts_fail.value_or(false);
    c.resources = std::move(ts_resources);
  }
}

ConfigCheck Checker::run(std::string_view text) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    fatal("", fmt::format("not valid YAML: {}", e.what()));
    return std::move(m_check);
  }
  if (root.IsNull()) return std::move(m_check);  // an empty config: no sharing, plugin defaults
  if (!root.IsMap()) {
    fatal("", "the config must be a YAML mapping (version, flags, sharing)");
    return std::move(m_check);
  }
  check_keys(root, "", {"version", "flags", "resources", "sharing", "imex"});
  if (const YAML::Node version = root["version"]) {
    const std::string v = version.IsScalar() ? version.Scalar() : std::string("?");
    if (v != "v1" && !v.empty()) fatal("version", fmt::format("unknown version: {} (use v1)", v));
  }
  if (root["resources"]) {
    ignored("resources", "Customizing the 'resources' field is not yet supported: the device "
                         "plugin ignores it");
  }
  if (const YAML::Node flags = root["flags"]) check_flags(flags);
  if (const YAML::Node sharing = root["sharing"]) check_sharing(sharing);
  return std::move(m_check);
}

} // namespace

bool ConfigCheck::usable() const {
  return std::none_of(problems.begin(), problems.end(),
                      [](const ConfigProblem& p) { return p.fatal; });
}

std::optional<int> ConfigCheck::replicas_for(std::string_view resource) const {
  if (!usable()) return std::nullopt;
  for (const SharedResource& r : config.resources) {
    if (r.name == resource) return r.replicas;
  }
  return std::nullopt;
}

ConfigCheck check_time_slicing_config(std::string_view text) { return Checker().run(text); }

} // namespace gpuslice::diagnose
