// SPDX-License-Identifier: Apache-2.0
// client.authentication.k8s.io exec credential plugins (client-go plugin/pkg/client/auth/exec).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <gpuslice/kube/config.hpp>
#include <gpuslice/kube/seams.hpp>

namespace gpuslice::kube {

// What a plugin returned; a token or a PEM cert/key pair.
struct ExecCredential {
  std::string token;
  std::string client_certificate_pem;
  std::string client_key_pem;
  std::optional<std::chrono::system_clock::time_point> expiry; // none = valid until a 401
};

using EnvList = std::vector<std::pair<std::string, std::string>>;

// KUBERNETES_EXEC_INFO for this plugin: the configured apiVersion, spec.interactive, and
// spec.cluster only when provideClusterInfo is set.
std::string exec_info_json(const ExecConfig& exec, const ClusterEndpoint& cluster, bool interactive);

// Runs the plugin (our environment, then its env entries, then KUBERNETES_EXEC_INFO), and
// validates its output as client-go does. Throws RuntimeError "getting credentials: exec: …"
// (not found + installHint, non-zero exit + the plugin's stderr, bad output).
ExecCredential run_exec_plugin(const ExecConfig& exec, const ClusterEndpoint& cluster, ProcessRunner& runner,
                               bool stdin_is_tty, const EnvList& base_env);

// RFC 3339 timestamps as Kubernetes writes them ("2026-01-01T00:14:00Z", offsets, fractions).
std::optional<std::chrono::system_clock::time_point> parse_rfc3339(const std::string& text);

// The calling process's environment.
EnvList process_environment();

} // namespace gpuslice::kube
