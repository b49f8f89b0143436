// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include <gpuslice/error.hpp>
#include <gpuslice/kube/config.hpp>

#include "unit/kube_test_support.hpp"

using gpuslice::kube::in_cluster_endpoint;
using gpuslice::kube::InClusterEnv;

TEST_CASE("kube::in_cluster_endpoint") {
  kube_test::MemoryFiles files;
  const std::string sa = "/root/var/run/secrets/kubernetes.io/serviceaccount";
  files.files[sa + "/token"] = "sa-token\n";
  files.files[sa + "/ca.crt"] = "CLUSTER-CA";
  files.files[sa + "/namespace"] = " gpu-ops \n";
  InClusterEnv env{"10.96.0.1", "443", "", "/root"};

  SUBCASE("server, trimmed token, token file to re-read, CA, namespace file") {
    const auto e = in_cluster_endpoint(env, files);
    REQUIRE(e.has_value());
    CHECK(e->in_cluster);
    CHECK(e->server == "https://10.96.0.1:443");
    CHECK(e->credentials.token == "sa-token");
    CHECK(e->credentials.token_file == sa + "/token");
    CHECK(e->ca_pem == "CLUSTER-CA");
    CHECK(e->namespace_name == "gpu-ops");
  }
  SUBCASE("POD_NAMESPACE wins over the namespace file") {
    env.pod_namespace = "from-env";
    CHECK(in_cluster_endpoint(env, files)->namespace_name == "from-env");
  }
  SUBCASE("no namespace anywhere: default") {
    files.files.erase(sa + "/namespace");
    CHECK(in_cluster_endpoint(env, files)->namespace_name == "default");
  }
  SUBCASE("IPv6 service host is bracketed") {
    env.service_host = "fd00::1";
    CHECK(in_cluster_endpoint(env, files)->server == "https://[fd00::1]:443");
  }
  SUBCASE("not in a pod: host/port unset or no token") {
    CHECK_FALSE(in_cluster_endpoint(InClusterEnv{"", "443", "", "/root"}, files).has_value());
    CHECK_FALSE(in_cluster_endpoint(InClusterEnv{"10.96.0.1", "", "", "/root"}, files).has_value());
    files.files.erase(sa + "/token");
    CHECK_FALSE(in_cluster_endpoint(env, files).has_value());
  }
}

TEST_CASE("kube::connect") {
  kube_test::MemoryFiles files;
  std::map<std::string, std::string> vars;
  const gpuslice::kube::GetEnv getenv = [&vars](const std::string& name) -> std::optional<std::string> {
    const auto found = vars.find(name);
    return found == vars.end() ? std::nullopt : std::optional<std::string>(found->second);
  };
  const std::string sa = "/pod/var/run/secrets/kubernetes.io/serviceaccount";
  files.files[sa + "/token"] = "sa-token";
  vars["HOME"] = "/home/me";

  SUBCASE("no kubeconfig and not in a pod: kubectl's localhost:8080") {
    const auto e = gpuslice::kube::connect({}, getenv, files, "/pod");
    CHECK(e.server == "http://localhost:8080");
  }
  SUBCASE("no kubeconfig, in a pod: in-cluster config, -n still wins") {
    vars["KUBERNETES_SERVICE_HOST"] = "10.0.0.1";
    vars["KUBERNETES_SERVICE_PORT"] = "6443";
    gpuslice::kube::GlobalOptions o;
    o.namespace_name = "mine";
    const auto e = gpuslice::kube::connect(o, getenv, files, "/pod");
    CHECK(e.in_cluster);
    CHECK(e.server == "https://10.0.0.1:6443");
    CHECK(e.namespace_name == "mine");
  }
  SUBCASE("a kubeconfig with a server wins over in-cluster") {
    vars["KUBERNETES_SERVICE_HOST"] = "10.0.0.1";
    vars["KUBERNETES_SERVICE_PORT"] = "6443";
    files.files["/home/me/.kube/config"] =
        "current-context: c\nclusters:\n- name: k\n  cluster: {server: 'https://k.example'}\n"
        "contexts:\n- name: c\n  context: {cluster: k}\n";
    CHECK(gpuslice::kube::connect({}, getenv, files, "/pod").server == "https://k.example");
  }
  SUBCASE("KUBECONFIG is honoured") {
    files.files["/x/cfg"] = "clusters:\n- name: k\n  cluster: {server: 'https://x.example'}\n";
    vars["KUBECONFIG"] = "/x/cfg";
    gpuslice::kube::GlobalOptions o;
    o.cluster = "k";
    CHECK(gpuslice::kube::connect(o, getenv, files, "/pod").server == "https://x.example");
  }
  SUBCASE("a bad --request-timeout fails before any file is read") {
    gpuslice::kube::GlobalOptions o;
    o.request_timeout = "forever";
    CHECK_THROWS_AS(gpuslice::kube::connect(o, getenv, files, "/pod"), gpuslice::UsageError);
    CHECK(files.reads == 0);
  }
}
