// SPDX-License-Identifier: Apache-2.0
// rest.InClusterConfig(): the API server a pod reaches through its service-account mount.
#include <filesystem>

#include <gpuslice/kube/config.hpp>

namespace gpuslice::kube {

namespace {

constexpr const char* k_service_account = "var/run/secrets/kubernetes.io/serviceaccount";

std::string trim(std::string text) {
  const std::size_t begin = text.find_first_not_of(" \t\r\n");
  const std::size_t end = text.find_last_not_of(" \t\r\n");
  return begin == std::string::npos ? std::string{} : text.substr(begin, end - begin + 1);
}

} // namespace

std::optional<ClusterEndpoint> in_cluster_endpoint(const InClusterEnv& env, FileReader& files) {
  if (env.service_host.empty() || env.service_port.empty()) {
    return std::nullopt;
  }
  const std::filesystem::path folder = std::filesystem::path(env.root) / k_service_account;
  const std::string token_file = (folder / "token").string();
  std::optional<std::string> token;
  try {
    token = files.read(token_file);
  } catch (const std::exception&) {
    return std::nullopt; // a directory or unreadable: not Possible(), as client-go decides
  }
  if (!token) {
    return std::nullopt;
  }
  ClusterEndpoint out;
  out.in_cluster = true;
  // An IPv6 service host needs brackets, as net.JoinHostPort adds them.
  const bool ipv6 = env.service_host.find(':') != std::string::npos;
  out.server = "https://" + (ipv6 ? "[" + env.service_host + "]" : env.service_host) + ":" +
               env.service_port;
  out.credentials.token = trim(*token);
  out.credentials.token_file = token_file; // re-read every minute and after a 401
  out.ca_file = (folder / "ca.crt").string();
  try {
    out.ca_pem = files.read(out.ca_file).value_or("");
  } catch (const std::exception&) {
    out.ca_pem.clear(); // client-go only logs an invalid CA file
  }
  if (!env.pod_namespace.empty()) {
    out.namespace_name = env.pod_namespace;
  } else if (std::optional<std::string> ns = files.read((folder / "namespace").string());
             ns && !trim(*ns).empty()) {
    out.namespace_name = trim(*ns);
  }
  return out;
}

} // namespace gpuslice::kube
