// SPDX-License-Identifier: Apache-2.0
// kubeconfig loading, merging, validation and flag overrides, following client-go's
// tools/clientcmd rules (shared/reference/kubeclient.md §1), resolved into a ClusterEndpoint.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <gpuslice/kube/seams.hpp>

namespace gpuslice::kube {

// Client-side rate limit defaults. kubectl uses 5 QPS / burst 10 for ordinary requests and
// 50 / 300 for discovery; a diagnosis issues a few dozen reads (many of them paged lists), so
// 20 / 40 finishes a large cluster in seconds while staying well under what APF gives one
// client. A negative --qps disables the limiter.
inline constexpr double k_default_qps = 20.0;
inline constexpr int k_default_burst = 40;

// The global connection flags, named as kubectl names them. Empty = flag not given.
struct GlobalOptions {
  std::string kubeconfig;
  std::string context;
  std::string cluster;
  std::string user;
  std::string namespace_name;
  std::string server;
  std::string token;
  std::string certificate_authority;
  std::string client_certificate;
  std::string client_key;
  bool insecure_skip_tls_verify = false;
  std::string tls_server_name;
  std::string as_user;
  std::vector<std::string> as_groups;
  std::string request_timeout = "0";
  int verbosity = 0;
  double qps = k_default_qps;
  int burst = k_default_burst;
};

struct ExecEnvVar {
  std::string name;
  std::string value;
};

// users[].user.exec (client.authentication.k8s.io exec plugin).
struct ExecConfig {
  std::string command;
  std::vector<std::string> args;
  std::vector<ExecEnvVar> env;
  std::string api_version;
  std::string install_hint;
  bool provide_cluster_info = false;
  std::string interactive_mode; // Never | IfAvailable | Always; defaulted for v1beta1
};

struct ClusterEntry {
  std::string server;
  std::string tls_server_name;
  bool insecure_skip_tls_verify = false;
  std::string certificate_authority;      // path, absolute after loading
  std::string certificate_authority_data; // decoded PEM
  std::string proxy_url;
  bool disable_compression = false;
  std::string origin; // file that defined the entry
};

struct UserEntry {
  std::string client_certificate;
  std::string client_certificate_data; // decoded PEM
  std::string client_key;
  std::string client_key_data; // decoded PEM
  std::string token;
  std::string token_file;
  std::string as_user;
  std::vector<std::string> as_groups;
  std::string username;
  std::string password;
  std::optional<ExecConfig> exec;
  bool auth_provider = false; // legacy auth-provider: unsupported, reported by name
  std::string origin;
};

struct ContextEntry {
  std::string cluster;
  std::string user;
  std::string namespace_name;
  std::string origin;
};

// A (merged) kubeconfig. Maps hold whole entries: the first file naming a key wins.
struct Kubeconfig {
  std::map<std::string, ClusterEntry> clusters;
  std::map<std::string, UserEntry> users;
  std::map<std::string, ContextEntry> contexts;
  std::string current_context;
};

// Parses one kubeconfig file's text; relative paths are made absolute against origin's folder
// (exec.command only when it contains '/'). Throws UsageError
// `error loading config file "<origin>": <why>` on bad YAML, bad base64 or duplicate names.
Kubeconfig parse_kubeconfig(const std::string& text, const std::string& origin);

// Merges `later` under `first`: map keys and a non-empty current-context of `first` win.
void merge_kubeconfig(Kubeconfig& first, const Kubeconfig& later);

// Where kubeconfig files come from.
struct LoadingRules {
  std::string explicit_path; // --kubeconfig: only this file, and it must exist
  std::string kubeconfig_env; // $KUBECONFIG, ':'-separated
  std::string home;           // for ~/.kube/config
};

// Loads and merges as client-go does: an explicit path alone (error if missing), else the
// deduplicated KUBECONFIG list (missing files skipped), else ~/.kube/config if present.
Kubeconfig load_kubeconfig(const LoadingRules& rules, FileReader& files);

// Credentials of the chosen user, with file contents loaded into memory.
struct Credentials {
  std::string token;
  std::string token_file; // re-read periodically; wins over token when both are set
  std::string client_certificate_pem;
  std::string client_key_pem;
  std::string username;
  std::string password;
  std::optional<ExecConfig> exec;
  std::string as_user;
  std::vector<std::string> as_groups;
};

// Everything needed to talk to one API server. Holds secrets: never print it whole.
struct ClusterEndpoint {
  std::string context_name;
  std::string cluster_name;
  std::string user_name;
  std::string server; // https://host:port[/prefix]
  std::string tls_server_name;
  bool insecure_skip_tls_verify = false;
  std::string ca_pem;  // from certificate-authority(-data); empty = system roots
  std::string ca_file; // for messages only
  std::string proxy_url;
  bool disable_compression = false;
  std::string namespace_name = "default";
  Credentials credentials;
  std::chrono::milliseconds request_timeout{0}; // 0 = none
  bool in_cluster = false;
};

// Picks the context (flag, else current-context), applies the flag overrides with kubectl's
// quirks, validates, loads CA/cert/key files, and returns the endpoint. Throws UsageError
// `invalid configuration: …` or `context "x" does not exist`. Returns nullopt when neither
// the kubeconfig nor the flags name any cluster (the caller then tries in-cluster config).
std::optional<ClusterEndpoint> resolve_endpoint(const Kubeconfig& config,
                                                const GlobalOptions& options, FileReader& files);

// In-cluster configuration from the pod's environment and service-account folder.
struct InClusterEnv {
  std::string service_host; // $KUBERNETES_SERVICE_HOST
  std::string service_port; // $KUBERNETES_SERVICE_PORT
  std::string pod_namespace; // $POD_NAMESPACE
  std::string root = "/";   // tests point this at a temp folder
};

// The endpoint rest.InClusterConfig() would build, or nullopt when not running in a pod
// (host/port unset or no token file).
std::optional<ClusterEndpoint> in_cluster_endpoint(const InClusterEnv& env, FileReader& files);

// "0" = none; a bare integer = seconds; else a Go duration ("1s", "2m", "1m30s", "500ms").
// Throws UsageError with kubectl's message on anything else.
std::chrono::milliseconds parse_request_timeout(const std::string& value);

// How the process environment is read (tests pass a map).
using GetEnv = std::function<std::optional<std::string>(const std::string&)>;
GetEnv system_getenv();

// The whole chain for a command: kubeconfig (per rules from options and env), overrides,
// in-cluster fallback, else http://localhost:8080 as kubectl does. Throws UsageError.
ClusterEndpoint connect(const GlobalOptions& options, const GetEnv& getenv = system_getenv(),
                        FileReader& files = system_file_reader(), const std::string& root = "/");

} // namespace gpuslice::kube
