// SPDX-License-Identifier: Apache-2.0
// Parsing one kubeconfig file, and client-go's merge and file-selection rules (loader.go).
#include <algorithm>
#include <filesystem>
#include <set>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <gpuslice/error.hpp>
#include <gpuslice/kube/config.hpp>

#include "kube/base64.hpp"

namespace gpuslice::kube {

namespace {

struct FileError {
  std::string why;
};

std::string scalar(const YAML::Node& node, const char* key) {
  const YAML::Node value = node[key];
  if (!value || value.IsNull()) {
    return {};
  }
  if (!value.IsScalar()) {
    throw FileError{fmt::format("field \"{}\" must be a string", key)};
  }
  return value.Scalar();
}

bool boolean(const YAML::Node& node, const char* key) {
  const std::string text = scalar(node, key);
  if (text.empty() || text == "false") {
    return false;
  }
  if (text == "true") {
    return true;
  }
  throw FileError{fmt::format("field \"{}\": \"{}\" is not a boolean", key, text)};
}

std::vector<std::string> strings(const YAML::Node& node, const char* key) {
  std::vector<std::string> out;
  const YAML::Node value = node[key];
  if (!value || value.IsNull()) {
    return out;
  }
  if (!value.IsSequence()) {
    throw FileError{fmt::format("field \"{}\" must be a list", key)};
  }
  for (const YAML::Node& item : value) {
    out.push_back(item.IsScalar() ? item.Scalar() : std::string{});
  }
  return out;
}

std::string data_field(const YAML::Node& node, const char* key) {
  const std::string text = scalar(node, key);
  std::optional<std::string> decoded = base64_decode(text);
  if (!decoded) {
    throw FileError{fmt::format("field \"{}\" is not valid base64", key)};
  }
  return std::move(*decoded);
}

// Relative paths are relative to the file that named them, not to the working directory.
std::string resolve_path(const std::string& path, const std::filesystem::path& base) {
  if (path.empty() || path.front() == '/') {
    return path;
  }
  return (base / path).lexically_normal().string();
}

// Calls `fill(name, body)` for each `- name: x\n  <key>: {...}` entry; duplicate names fail.
template <typename Fill>
void each_named(const YAML::Node& root, const char* list, const char* key, Fill fill) {
  const YAML::Node entries = root[list];
  if (!entries || entries.IsNull()) {
    return;
  }
  if (!entries.IsSequence()) {
    throw FileError{fmt::format("\"{}\" must be a list", list)};
  }
  std::set<std::string> seen;
  for (const YAML::Node& entry : entries) {
    if (!entry.IsMap()) {
      throw FileError{fmt::format("\"{}\" entries must be maps", list)};
    }
    const std::string name = scalar(entry, "name");
    if (!seen.insert(name).second) {
      throw FileError{fmt::format("duplicate name \"{}\" in list {}", name, list)};
    }
    YAML::Node body = entry[key];
    if (body && !body.IsNull() && !body.IsMap()) {
      throw FileError{fmt::format("{} \"{}\": \"{}\" must be a map", list, name, key)};
    }
    fill(name, body ? body : YAML::Node(YAML::NodeType::Map));
  }
}

ExecConfig parse_exec(const YAML::Node& node, const std::filesystem::path& base) {
  ExecConfig exec;
  exec.command = scalar(node, "command");
  // A bare command is looked up on PATH; only one with a '/' is relative to the file.
  if (exec.command.find('/') != std::string::npos) {
    exec.command = resolve_path(exec.command, base);
  }
  exec.args = strings(node, "args");
  const YAML::Node env = node["env"];
  if (env && env.IsSequence()) {
    for (const YAML::Node& var : env) {
      exec.env.push_back({scalar(var, "name"), scalar(var, "value")});
    }
  }
  exec.api_version = scalar(node, "apiVersion");
  exec.install_hint = scalar(node, "installHint");
  exec.provide_cluster_info = boolean(node, "provideClusterInfo");
  exec.interactive_mode = scalar(node, "interactiveMode");
  // client-go's defaulting: the beta API predates the field and means IfAvailable.
  if (exec.interactive_mode.empty() &&
      exec.api_version != "client.authentication.k8s.io/v1") {
    exec.interactive_mode = "IfAvailable";
  }
  return exec;
}

Kubeconfig parse_root(const YAML::Node& root, const std::string& origin) {
  Kubeconfig config;
  if (!root || root.IsNull()) {
    return config; // an empty file is an empty config
  }
  if (!root.IsMap()) {
    throw FileError{"not a kubeconfig (expected a YAML map)"};
  }
  const std::filesystem::path base = std::filesystem::absolute(origin).parent_path();
  config.current_context = scalar(root, "current-context");
  each_named(root, "clusters", "cluster", [&](const std::string& name, const YAML::Node& c) {
    ClusterEntry entry;
    entry.server = scalar(c, "server");
    entry.tls_server_name = scalar(c, "tls-server-name");
    entry.insecure_skip_tls_verify = boolean(c, "insecure-skip-tls-verify");
    entry.certificate_authority = resolve_path(scalar(c, "certificate-authority"), base);
    entry.certificate_authority_data = data_field(c, "certificate-authority-data");
    entry.proxy_url = scalar(c, "proxy-url");
    entry.disable_compression = boolean(c, "disable-compression");
    entry.origin = origin;
    config.clusters.emplace(name, std::move(entry));
  });
  each_named(root, "users", "user", [&](const std::string& name, const YAML::Node& u) {
    UserEntry entry;
    entry.client_certificate = resolve_path(scalar(u, "client-certificate"), base);
    entry.client_certificate_data = data_field(u, "client-certificate-data");
    entry.client_key = resolve_path(scalar(u, "client-key"), base);
    entry.client_key_data = data_field(u, "client-key-data");
    entry.token = scalar(u, "token");
    entry.token_file = resolve_path(scalar(u, "tokenFile"), base);
    entry.as_user = scalar(u, "as");
    entry.as_groups = strings(u, "as-groups");
    entry.username = scalar(u, "username");
    entry.password = scalar(u, "password");
    if (const YAML::Node exec = u["exec"]; exec && exec.IsMap()) {
      entry.exec = parse_exec(exec, base);
    }
    entry.auth_provider = static_cast<bool>(u["auth-provider"]) && !u["auth-provider"].IsNull();
    entry.origin = origin;
    config.users.emplace(name, std::move(entry));
  });
  each_named(root, "contexts", "context", [&](const std::string& name, const YAML::Node& c) {
    config.contexts.emplace(
        name, ContextEntry{scalar(c, "cluster"), scalar(c, "user"), scalar(c, "namespace"), origin});
  });
  return config;
}

std::optional<std::string> read_config_file(FileReader& files, const std::string& path) {
  try {
    return files.read(path);
  } catch (const std::exception& e) {
    throw UsageError(fmt::format("error loading config file \"{}\": {}", path, e.what()));
  }
}

} // namespace

Kubeconfig parse_kubeconfig(const std::string& text, const std::string& origin) {
  try {
    return parse_root(YAML::Load(text), origin);
  } catch (const FileError& e) {
    throw UsageError(fmt::format("error loading config file \"{}\": {}", origin, e.why));
  } catch (const YAML::Exception& e) {
    throw UsageError(fmt::format("error loading config file \"{}\": {}", origin, e.what()));
  }
}

void merge_kubeconfig(Kubeconfig& first, const Kubeconfig& later) {
  // map::insert keeps an existing key: the first file to name an entry owns all of it.
  first.clusters.insert(later.clusters.begin(), later.clusters.end());
  first.users.insert(later.users.begin(), later.users.end());
  first.contexts.insert(later.contexts.begin(), later.contexts.end());
  if (first.current_context.empty()) {
    first.current_context = later.current_context;
  }
}

Kubeconfig load_kubeconfig(const LoadingRules& rules, FileReader& files) {
  if (!rules.explicit_path.empty()) {
    std::optional<std::string> text = read_config_file(files, rules.explicit_path);
    if (!text) {
      throw UsageError(fmt::format("stat {}: no such file or directory", rules.explicit_path));
    }
    return parse_kubeconfig(*text, rules.explicit_path);
  }
  std::vector<std::string> chain;
  if (!rules.kubeconfig_env.empty()) {
    std::size_t start = 0;
    while (start <= rules.kubeconfig_env.size()) {
      std::size_t end = rules.kubeconfig_env.find(':', start);
      if (end == std::string::npos) {
        end = rules.kubeconfig_env.size();
      }
      std::string path = rules.kubeconfig_env.substr(start, end - start);
      if (!path.empty() && std::find(chain.begin(), chain.end(), path) == chain.end()) {
        chain.push_back(std::move(path));
      }
      start = end + 1;
    }
  } else if (!rules.home.empty()) {
    chain.push_back(rules.home + "/.kube/config");
  }
  Kubeconfig merged;
  for (const std::string& path : chain) {
    const std::optional<std::string> text = read_config_file(files, path);
    if (text) {
      merge_kubeconfig(merged, parse_kubeconfig(*text, path));
    }
  }
  return merged;
}

} // namespace gpuslice::kube
