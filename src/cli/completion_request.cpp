// SPDX-License-Identifier: Apache-2.0
// The imperative side of completion: answer `kubectl_complete-gpuslice ARGS… WORD` (kubectl
// 1.26+) and `kubectl-gpuslice __complete ARGS… WORD` (our shell scripts), looking contexts up
// in the kubeconfig and namespaces and nodes up in the cluster with a short timeout. Any error
// yields no candidates and nothing on stderr: a completion must never spill into the prompt.
#include <sstream>

#include <gpuslice/kube/client.hpp>
#include <gpuslice/kube/config.hpp>

#include "cli/commands.hpp"
#include "cli/completion.hpp"

namespace gpuslice::cli {

namespace {

// Long enough for a healthy API server, short enough that a TAB never hangs.
constexpr const char* k_completion_request_timeout = "2s";

std::vector<std::string> kubeconfig_contexts(const GlobalFlags& flags) {
  const kube::GetEnv getenv = kube::system_getenv();
  kube::LoadingRules rules;
  rules.explicit_path = flags.kube.kubeconfig;
  rules.kubeconfig_env = getenv("KUBECONFIG").value_or("");
  rules.home = getenv("HOME").value_or("");
  const kube::Kubeconfig config = kube::load_kubeconfig(rules, kube::system_file_reader());
  std::vector<std::string> names;
  for (const auto& [name, entry] : config.contexts) names.push_back(name);
  return names;
}

std::vector<std::string> cluster_object_names(const GlobalFlags& flags, const kube::ResourceRef& type) {
  GlobalFlags quick = flags;
  if (quick.kube.request_timeout == "0") quick.kube.request_timeout = k_completion_request_timeout;
  quick.kube.verbosity = 0;
  std::ostringstream discarded_log;
  const std::unique_ptr<kube::Client> client = open_client(quick, discarded_log);
  kube::ListOptions options;
  options.namespace_name = "";
  const nlohmann::json items = client->list_items(type, options);
  std::vector<std::string> names;
  for (const nlohmann::json& item : items) {
    names.push_back(item.at("metadata").at("name").get<std::string>());
  }
  return names;
}

std::vector<std::string> look_up(ValueKind kind, const GlobalFlags& flags) {
  try {
    switch (kind) {
    case ValueKind::context: return kubeconfig_contexts(flags);
    case ValueKind::namespace_name: return cluster_object_names(flags, {"", "v1", "namespaces", false});
    case ValueKind::node: return cluster_object_names(flags, {"", "v1", "nodes", false});
    default: return {};
    }
  } catch (...) {
    return {}; // unreachable cluster, no kubeconfig, forbidden: complete nothing, say nothing
  }
}

std::string completion_basename(const std::string& path) { return path.substr(path.find_last_of('/') + 1); }

} // namespace

bool is_completion_request(int argc, const char* const* argv) {
  if (argc > 0 && completion_basename(argv[0]).rfind("kubectl_complete-", 0) == 0) return true;
  return argc > 1 && std::string(argv[1]) == "__complete";
}

ExitCode run_completion_request(int argc, const char* const* argv, Env& env) {
  const bool from_kubectl = completion_basename(argv[0]).rfind("kubectl_complete-", 0) == 0;
  std::vector<std::string> words(argv + (from_kubectl ? 1 : 2), argv + argc);
  std::string current;
  if (!words.empty()) {
    current = words.back();
    words.pop_back();
  }
  std::ostringstream discarded;
  Env quiet{discarded, discarded, "kubectl gpuslice"};
  CLI::App app;
  Commands commands;
  build_app(app, commands, quiet);
  // Fill the global connection flags from the words, so lookups use the cluster they name.
  for (const auto& [option, value] : root_option_values(app, words)) {
    try {
      CLI::Option* writable = app.get_option_no_throw(option->get_name());
      if (writable == nullptr) continue;
      writable->add_result(value);
      writable->run_callback();
    } catch (...) {
    }
  }
  const Completion completion = complete_words(
      app, words, current, [&commands](ValueKind kind) { return look_up(kind, commands.global); });
  for (const std::string& candidate : completion.candidates) env.out << candidate << "\n";
  env.out << ":" << completion.directive << "\n";
  return ExitCode::ok;
}

} // namespace gpuslice::cli
