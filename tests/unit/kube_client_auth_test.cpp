// SPDX-License-Identifier: Apache-2.0
// Every auth mode against fakekube over real HTTPS, in-cluster config, and credential refresh.
#include <fstream>

#include <sys/stat.h>

#include <doctest/doctest.h>

#include <atomic>
#include <functional>
#include <vector>

#include "kube/base64.hpp"
#include "unit/kube_fakekube_support.hpp"

using fakekube::KubeconfigAuth;
using gpuslice::kube::ApiError;
using gpuslice::kube::ClusterEndpoint;
using namespace kube_test;

namespace {

std::string last_user(const Cluster& cluster) {
  const std::vector<fakekube::LoggedRequest> log = cluster.server.request_log();
  return log.empty() ? std::string{} : log.back().user;
}

void write_script(const std::filesystem::path& path, const std::string& text) {
  {
    std::ofstream out(path);
    out << text;
  }
  ::chmod(path.c_str(), 0700);
}

// Sets an environment variable for the scope of a test, restoring the old value after.
struct ScopedEnv {
  std::string name;
  std::optional<std::string> old;
  ScopedEnv(std::string variable, const std::string& value) : name(std::move(variable)) {
    if (const char* current = std::getenv(name.c_str())) {
      old = current;
    }
    ::setenv(name.c_str(), value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old) {
      ::setenv(name.c_str(), old->c_str(), 1);
    } else {
      ::unsetenv(name.c_str());
    }
  }
};

int count_lines(const std::filesystem::path& path) {
  std::ifstream in(path);
  int lines = 0;
  for (std::string line; std::getline(in, line);) {
    ++lines;
  }
  return lines;
}

// A kubeconfig at dir/<name>.yaml whose user runs ./<plugin> (a v1 exec plugin) against cluster.
gpuslice::kube::GlobalOptions exec_kubeconfig(const Cluster& cluster, const std::string& name, const std::string& plugin) {
  std::ofstream(cluster.dir.path / (name + ".yaml"))
      << "apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters:\n- name: k\n  cluster:\n    server: "
      << cluster.server.url() << "\n    certificate-authority: ca.crt\nusers:\n- name: u\n  user:\n    exec:\n"
      << "      apiVersion: client.authentication.k8s.io/v1\n      command: ./" << plugin << "\n      interactiveMode: Never\n"
      << "contexts:\n- name: c\n  context: {cluster: k, user: u}\n";
  std::ofstream(cluster.dir.path / "ca.crt") << cluster.server.ca_pem();
  gpuslice::kube::GlobalOptions options;
  options.kubeconfig = (cluster.dir.path / (name + ".yaml")).string();
  return options;
}

} // namespace

TEST_CASE("kube::Client auth modes") {
  Cluster cluster;
  for (const auto& [auth, name] : std::vector<std::pair<KubeconfigAuth, const char*>>{
           {KubeconfigAuth::token, "token"},
           {KubeconfigAuth::token_file, "tokenFile"},
           {KubeconfigAuth::client_cert_files, "client cert files"},
           {KubeconfigAuth::client_cert_data, "client cert data"},
           {KubeconfigAuth::basic, "basic"},
           {KubeconfigAuth::exec, "exec v1beta1 (fakekube's script)"}}) {
    SUBCASE(name) {
      auto client = cluster.client(cluster.endpoint("admin", auth));
      CHECK(client->server_version() == "v1.30.4");
      CHECK(last_user(cluster) == "admin");
      CHECK(client->get({k_pods, "gpu", "pod-100", ""})["metadata"]["name"] == "pod-100");
    }
  }
}

TEST_CASE("kube::Client exec plugins") {
  Cluster cluster;
  const std::filesystem::path runs = cluster.dir.path / "runs";

  SUBCASE("v1 plugin with cached credentials: one run for many requests") {
    const std::filesystem::path plugin = cluster.dir.path / "plugin-v1";
    write_script(plugin, "#!/bin/sh\necho run >> '" + runs.string() +
                             "'\ncase \"$KUBERNETES_EXEC_INFO\" in *client.authentication.k8s.io/v1\\\"*) ;; *) exit 9;; esac\n"
                             "echo '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\","
                             "\"status\":{\"token\":\"admin-token-s3cr3t\",\"expirationTimestamp\":\"2999-01-01T00:00:00Z\"}}'\n");
    const gpuslice::kube::GlobalOptions options = exec_kubeconfig(cluster, "v1", "plugin-v1");
    auto client = cluster.client(gpuslice::kube::connect(options, [](const std::string&) { return std::nullopt; }));
    for (int i = 0; i < 3; ++i) {
      CHECK(client->server_version() == "v1.30.4");
    }
    CHECK(count_lines(runs) == 1);
    CHECK(last_user(cluster) == "admin");
  }
  SUBCASE("a plugin whose every token is refused: re-run 3 times after the first 401, then the 401 stands") {
    const std::filesystem::path plugin = cluster.dir.path / "plugin-bogus";
    write_script(plugin, "#!/bin/sh\necho run >> '" + runs.string() +
                             "'\necho '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\","
                             "\"status\":{\"token\":\"bogus-'$$'\"}}'\n");
    const gpuslice::kube::GlobalOptions options = exec_kubeconfig(cluster, "bogus", "plugin-bogus");
    auto client = cluster.client(gpuslice::kube::connect(options, [](const std::string&) { return std::nullopt; }));
    try {
      client->server_version();
      FAIL("expected a 401");
    } catch (const ApiError& e) {
      CHECK(e.http_code == 401);
    }
    CHECK(count_lines(runs) == 4);
  }
  SUBCASE("the EKS kubeconfig: `aws --region R eks get-token …` found on PATH") {
    const std::filesystem::path bin = cluster.dir.path / "bin";
    std::filesystem::create_directories(bin);
    write_script(bin / "aws",
                 "#!/bin/sh\necho \"$*\" >> '" + runs.string() + "'\n"
                 "[ \"$1 $2 $3 $4 $5 $6\" = \"--region us-west-2 eks get-token --cluster-name gpu-demo\" ] || exit 2\n"
                 "[ \"$AWS_PROFILE\" = prod ] || exit 3\n"
                 "printf '{\"kind\":\"ExecCredential\",\"apiVersion\":\"client.authentication.k8s.io/v1beta1\","
                 "\"spec\":{},\"status\":{\"expirationTimestamp\":\"2999-01-01T00:14:00Z\",\"token\":\"k8s-aws-v1.%s\"}}\\n' "
                 "aHR0cHM6Ly9zdHMudXMtd2VzdC0yLmFtYXpvbmF3cy5jb20v\n");
    const ScopedEnv path("PATH", bin.string() + ":" + std::getenv("PATH"));
    const std::string arn = "arn:aws:eks:us-west-2:111122223333:cluster/gpu-demo";
    std::ofstream(cluster.dir.path / "eks.yaml")
        << "apiVersion: v1\nclusters:\n- cluster:\n    certificate-authority-data: "
        << gpuslice::kube::base64_encode(cluster.server.ca_pem()) << "\n    server: " << cluster.server.url()
        << "\n  name: " << arn << "\ncontexts:\n- context:\n    cluster: " << arn << "\n    user: " << arn
        << "\n  name: " << arn << "\ncurrent-context: " << arn << "\nkind: Config\npreferences: {}\nusers:\n- name: "
        << arn << "\n  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1beta1\n      args:\n"
        << "      - --region\n      - us-west-2\n      - eks\n      - get-token\n      - --cluster-name\n      - gpu-demo\n"
        << "      - --output\n      - json\n      command: aws\n      env:\n      - name: AWS_PROFILE\n        value: prod\n";
    gpuslice::kube::GlobalOptions options;
    options.kubeconfig = (cluster.dir.path / "eks.yaml").string();
    auto client = cluster.client(gpuslice::kube::connect(options, [](const std::string&) { return std::nullopt; }));
    CHECK(client->server_version() == "v1.30.4");
    CHECK(last_user(cluster) == "eks");
    CHECK(count_lines(runs) == 1);
  }
  SUBCASE("a missing plugin is a clear runtime error naming it") {
    std::ofstream(cluster.dir.path / "missing.yaml")
        << "clusters:\n- name: k\n  cluster: {server: '" << cluster.server.url()
        << "', insecure-skip-tls-verify: true}\nusers:\n- name: u\n  user:\n    exec:\n"
        << "      apiVersion: client.authentication.k8s.io/v1beta1\n      command: no-such-plugin-xyz\n"
        << "      installHint: install it with apt\ncontexts:\n- name: c\n  context: {cluster: k, user: u}\ncurrent-context: c\n";
    gpuslice::kube::GlobalOptions options;
    options.kubeconfig = (cluster.dir.path / "missing.yaml").string();
    auto client = cluster.client(gpuslice::kube::connect(options, [](const std::string&) { return std::nullopt; }));
    CHECK_THROWS_WITH_AS(client->server_version(),
                         "getting credentials: exec: executable no-such-plugin-xyz not found; install it with apt",
                         gpuslice::RuntimeError);
  }
}

TEST_CASE("kube::Client refresh after 401") {
  fakekube::Scenario scenario = default_scenario();
  Cluster cluster(scenario);
  SUBCASE("exec: the plugin is re-run and the request retried once") {
    auto client = cluster.client(cluster.endpoint("admin", KubeconfigAuth::exec));
    CHECK(client->server_version() == "v1.30.4");
    cluster.server.transport_faults().token_ttl_requests = 2; // the token dies after 2 uses
    for (int i = 0; i < 5; ++i) {
      CHECK(client->server_version() == "v1.30.4");
    }
    int unauthorized = 0;
    for (const fakekube::LoggedRequest& request : cluster.server.request_log()) {
      unauthorized += request.status == 401 ? 1 : 0;
    }
    CHECK(unauthorized >= 1);
  }
  SUBCASE("exec, 8 requests in flight: a token the others used up after this one refreshed it is refreshed again") {
    auto client = cluster.client(cluster.endpoint("admin", KubeconfigAuth::exec));
    cluster.server.transport_faults().token_ttl_requests = 6; // as cli_faults_test, where this failed now and again
    std::vector<std::function<void()>> calls;
    std::atomic<int> answered{0};
    for (int i = 0; i < 160; ++i)
      calls.emplace_back([&] {
        if (client->server_version() == "v1.30.4") ++answered;
      });
    client->parallel(calls);
    CHECK(answered == 160);
    int unauthorized = 0;
    for (const fakekube::LoggedRequest& request : cluster.server.request_log()) unauthorized += request.status == 401 ? 1 : 0;
    CHECK(unauthorized >= 20); // each token served six requests: ~26 rotations
  }
  SUBCASE("tokenFile: re-read after a 401") {
    auto client = cluster.client(cluster.endpoint("admin", KubeconfigAuth::token_file));
    cluster.server.transport_faults().token_ttl_requests = 1;
    for (int i = 0; i < 3; ++i) {
      CHECK(client->server_version() == "v1.30.4");
    }
  }
  SUBCASE("a static token that expired stays a 401: exit-3 error saying to log in") {
    auto client = cluster.client(cluster.endpoint("admin", KubeconfigAuth::token));
    cluster.server.transport_faults().token_ttl_requests = 1;
    CHECK(client->server_version() == "v1.30.4");
    try {
      client->server_version();
      FAIL("expected a 401");
    } catch (const ApiError& e) {
      CHECK(e.http_code == 401);
      CHECK(std::string(e.what()).rfind("You must be logged in to the server (Unauthorized)", 0) == 0);
    }
  }
}

TEST_CASE("kube::Client in-cluster") {
  Cluster cluster;
  const std::filesystem::path sa = cluster.dir.path / "root/var/run/secrets/kubernetes.io/serviceaccount";
  std::filesystem::create_directories(sa);
  std::ofstream(sa / "token") << "admin-token-s3cr3t\n";
  std::ofstream(sa / "ca.crt") << cluster.server.ca_pem();
  std::ofstream(sa / "namespace") << "gpu";
  const std::map<std::string, std::string> env = {{"KUBERNETES_SERVICE_HOST", "127.0.0.1"},
                                                  {"KUBERNETES_SERVICE_PORT", std::to_string(cluster.server.port())}};
  const ClusterEndpoint endpoint = gpuslice::kube::connect(
      {},
      [&env](const std::string& name) -> std::optional<std::string> {
        const auto found = env.find(name);
        return found == env.end() ? std::nullopt : std::optional<std::string>(found->second);
      },
      gpuslice::kube::system_file_reader(), (cluster.dir.path / "root").string());
  CHECK(endpoint.in_cluster);
  CHECK(endpoint.namespace_name == "gpu");
  auto client = cluster.client(endpoint);
  CHECK(client->server_version() == "v1.30.4");
  CHECK(last_user(cluster) == "admin");
}
