// SPDX-License-Identifier: Apache-2.0
// connect(): kubeconfig, then in-cluster, then kubectl's localhost:8080 fallback.
#include <cstdlib>

#include <gpuslice/kube/config.hpp>

namespace gpuslice::kube {

GetEnv system_getenv() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    if (value == nullptr) {
      return std::nullopt;
    }
    return std::string(value);
  };
}

ClusterEndpoint connect(const GlobalOptions& options, const GetEnv& getenv, FileReader& files,
                        const std::string& root) {
  // Validate flags that need no file first, so a bad value is reported even without a config.
  const std::chrono::milliseconds timeout = parse_request_timeout(options.request_timeout);
  LoadingRules rules;
  rules.explicit_path = options.kubeconfig;
  rules.kubeconfig_env = getenv("KUBECONFIG").value_or("");
  rules.home = getenv("HOME").value_or("");
  const Kubeconfig config = load_kubeconfig(rules, files);
  if (std::optional<ClusterEndpoint> endpoint = resolve_endpoint(config, options, files)) {
    return std::move(*endpoint);
  }
  InClusterEnv env;
  env.service_host = getenv("KUBERNETES_SERVICE_HOST").value_or("");
  env.service_port = getenv("KUBERNETES_SERVICE_PORT").value_or("");
  env.pod_namespace = getenv("POD_NAMESPACE").value_or("");
  env.root = root;
  std::optional<ClusterEndpoint> endpoint = in_cluster_endpoint(env, files);
  if (!endpoint) {
    // client-go's default when nothing names a server; the first request then fails clearly.
    endpoint = ClusterEndpoint{};
    endpoint->server = "http://localhost:8080";
  }
  if (!options.namespace_name.empty()) {
    endpoint->namespace_name = options.namespace_name;
  }
  if (!options.as_user.empty()) {
    endpoint->credentials.as_user = options.as_user;
    endpoint->credentials.as_groups = options.as_groups;
  }
  endpoint->request_timeout = timeout;
  return std::move(*endpoint);
}

} // namespace gpuslice::kube
