// SPDX-License-Identifier: Apache-2.0
// A fakekube server plus the kubeconfigs and clients the kube room's tests point at it.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <sstream>
#include <string>

#include <unistd.h>

#include <fakekube/server.hpp>

#include <gpuslice/kube.hpp>

#include "unit/kube_test_support.hpp"

namespace kube_test {

// A fresh folder under the system temp folder, removed with everything in it.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    static int counter = 0;
    path = std::filesystem::temp_directory_path() /
           ("gpuslice-kube-" + std::to_string(::getpid()) + "-" + std::to_string(++counter));
    std::filesystem::create_directories(path);
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
};

inline fakekube::User make_user(const std::string& name, const std::string& token, const std::string& password,
                                bool client_certificate, std::vector<std::string> groups) {
  fakekube::User user;
  user.name = name;
  user.groups = std::move(groups);
  user.token = token;
  user.password = password;
  user.client_certificate = client_certificate;
  return user;
}

inline nlohmann::json pod(const std::string& ns, const std::string& name) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}, {"namespace", ns}, {"labels", {{"app", "demo"}}}}},
          {"spec", {{"containers", {{{"name", "c"}, {"image", "busybox"}}}}}}};
}

// Users: admin (every auth mode, system:masters), eks (any k8s-aws-v1. token), viewer (no RBAC).
inline fakekube::Scenario default_scenario(int pods = 3) {
  fakekube::Scenario scenario;
  scenario.users.push_back(make_user("admin", "admin-token-s3cr3t", "admin-pa55word", true, {"system:masters"}));
  scenario.users.push_back(make_user("eks", "k8s-aws-v1.*", "", false, {"system:masters"}));
  scenario.users.push_back(make_user("viewer", "viewer-token-s3cr3t", "", false, {}));
  scenario.objects.push_back({{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "gpu"}}}});
  for (int i = 0; i < pods; ++i) {
    scenario.objects.push_back(pod("gpu", "pod-" + std::to_string(100 + i)));
  }
  return scenario;
}

// Server::start returns before httplib's listen loop runs, and a stop() in that window hangs
// the destructor; one answered request proves the loop is running. The log is cleared after it.
inline void wait_until_listening(fakekube::Server& server) {
  gpuslice::kube::ClusterEndpoint probe;
  probe.server = server.url();
  probe.insecure_skip_tls_verify = true;
  try {
    gpuslice::kube::Client(probe).get_raw("/version");
  } catch (const gpuslice::kube::ApiError&) {
    // a 401/403 answer is just as good
  }
  server.clear_request_log();
}

// A started server, a temp folder, and helpers to reach it as a given user.
struct Cluster {
  fakekube::Server server;
  TempDir dir;
  FakeClock clock;
  std::ostringstream log;

  explicit Cluster(fakekube::Scenario scenario = default_scenario()) : server(std::move(scenario)) {
    server.start(0);
    wait_until_listening(server);
  }

  std::filesystem::path kubeconfig(const std::string& user, fakekube::KubeconfigAuth auth,
                                   const std::string& file = "config") {
    return server.write_kubeconfig(dir.path / (user + "-" + file), user, auth);
  }

  // The endpoint kubectl would build from that kubeconfig (plus flags).
  gpuslice::kube::ClusterEndpoint endpoint(const std::string& user, fakekube::KubeconfigAuth auth,
                                           gpuslice::kube::GlobalOptions options = {}) {
    options.kubeconfig = kubeconfig(user, auth).string();
    return gpuslice::kube::connect(options, [](const std::string&) { return std::nullopt; });
  }

  // A client whose sleeps are instant and whose -v log lands in `log`.
  std::unique_ptr<gpuslice::kube::Client> client(gpuslice::kube::ClusterEndpoint endpoint, int verbosity = 0) {
    gpuslice::kube::ClientOptions options;
    options.clock = &clock;
    options.log = &log;
    options.verbosity = verbosity;
    return std::make_unique<gpuslice::kube::Client>(std::move(endpoint), options);
  }

  std::unique_ptr<gpuslice::kube::Client> admin(int verbosity = 0) {
    return client(endpoint("admin", fakekube::KubeconfigAuth::token), verbosity);
  }
};

// Requests in the log that change something (SelfSubjectAccessReviews, a POST that only asks, excepted).
inline std::size_t mutations_in(const std::vector<fakekube::LoggedRequest>& log) {
  std::size_t n = 0;
  for (const fakekube::LoggedRequest& request : log) {
    const bool review = request.path.find("selfsubjectaccessreviews") != std::string::npos;
    if (request.method != "GET" && !review) ++n;
  }
  return n;
}

inline const gpuslice::kube::ResourceRef k_pods{"", "v1", "pods", true};
inline const gpuslice::kube::ResourceRef k_configmaps{"", "v1", "configmaps", true};
inline const gpuslice::kube::ResourceRef k_nodes{"", "v1", "nodes", false};

} // namespace kube_test
