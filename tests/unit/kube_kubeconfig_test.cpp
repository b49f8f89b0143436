// SPDX-License-Identifier: Apache-2.0
// kubeconfig loading and merging: the cases of client-go's loader_test.go.
#include <filesystem>
#include <fstream>
#include <sstream>

#include <doctest/doctest.h>

#include <gpuslice/error.hpp>
#include <gpuslice/kube/config.hpp>

#include "unit/kube_test_support.hpp"

using gpuslice::UsageError;
using gpuslice::kube::Kubeconfig;
using gpuslice::kube::LoadingRules;
using gpuslice::kube::load_kubeconfig;
using gpuslice::kube::parse_kubeconfig;

namespace {

const char* const k_red = R"(
apiVersion: v1
kind: Config
current-context: red-context
clusters:
- name: cow-cluster
  cluster: {server: https://red.example:6443, certificate-authority: ca/red.crt}
users:
- name: red-user
  user: {token: red-token}
contexts:
- name: red-context
  context: {cluster: cow-cluster, user: red-user, namespace: red-ns}
)";

const char* const k_blue = R"(
current-context: blue-context
clusters:
- name: cow-cluster
  cluster: {server: https://blue.example:6443}
- name: chicken-cluster
  cluster: {server: https://chicken.example:6443}
users:
- name: red-user
  user: {username: blue, password: pw}
- name: blue-user
  user: {token: blue-token}
contexts:
- name: blue-context
  context: {cluster: chicken-cluster, user: blue-user}
)";

std::string read_fixture(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

} // namespace

TEST_CASE("kube::parse_kubeconfig") {
  SUBCASE("fields, *-data base64 and relative paths against the file's folder") {
    const Kubeconfig config = parse_kubeconfig(R"(
clusters:
- name: c
  cluster:
    server: https://1.2.3.4
    tls-server-name: api.internal
    certificate-authority: ../certs/ca.crt
    proxy-url: http://proxy:3128
    insecure-skip-tls-verify: false
users:
- name: u
  user:
    client-certificate-data: aGVsbG8=
    client-key: /abs/key.pem
    tokenFile: token
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      command: aws
      args: [--region, us-west-2, eks, get-token, --cluster-name, demo]
      env: [{name: AWS_PROFILE, value: prod}]
- name: v
  user:
    exec: {apiVersion: client.authentication.k8s.io/v1, command: ./bin/plugin, interactiveMode: Never}
)",
                                               "/home/me/.kube/config");
    const auto& c = config.clusters.at("c");
    CHECK(c.server == "https://1.2.3.4");
    CHECK(c.tls_server_name == "api.internal");
    CHECK(c.certificate_authority == "/home/me/certs/ca.crt");
    CHECK(c.proxy_url == "http://proxy:3128");
    CHECK(c.origin == "/home/me/.kube/config");
    const auto& u = config.users.at("u");
    CHECK(u.client_certificate_data == "hello");
    CHECK(u.client_key == "/abs/key.pem");
    CHECK(u.token_file == "/home/me/.kube/token");
    REQUIRE(u.exec.has_value());
    CHECK(u.exec->command == "aws"); // bare command: looked up on PATH, not made relative
    CHECK(u.exec->args.size() == 6);
    CHECK(u.exec->env.at(0).name == "AWS_PROFILE");
    CHECK(u.exec->interactive_mode == "IfAvailable"); // v1beta1 default
    CHECK(config.users.at("v").exec->command == "/home/me/.kube/bin/plugin");
    CHECK(config.users.at("v").exec->interactive_mode == "Never");
  }
  SUBCASE("an empty file is an empty config") {
    const Kubeconfig config = parse_kubeconfig("", "/k/empty");
    CHECK(config.clusters.empty());
    CHECK(config.current_context.empty());
  }
  SUBCASE("v1 exec without interactiveMode stays empty (validation reports it)") {
    const Kubeconfig config = parse_kubeconfig(
        "users:\n- name: u\n  user:\n    exec: {apiVersion: client.authentication.k8s.io/v1, command: x}\n", "/k/c");
    CHECK(config.users.at("u").exec->interactive_mode.empty());
  }
  SUBCASE("a duplicate name in one file is an error naming the file") {
    CHECK_THROWS_WITH_AS(parse_kubeconfig("clusters:\n- name: x\n  cluster: {server: a}\n- name: x\n  cluster: {server: b}\n",
                                          "/k/dup"),
                         "error loading config file \"/k/dup\": duplicate name \"x\" in list clusters",
                         UsageError);
  }
  SUBCASE("bad base64 in a *-data field") {
    CHECK_THROWS_AS(parse_kubeconfig("users:\n- name: u\n  user: {client-key-data: '!!notb64'}\n", "/k/b"),
                    UsageError);
  }
  SUBCASE("bad YAML and wrong shapes are clean errors") {
    CHECK_THROWS_AS(parse_kubeconfig("clusters: [", "/k/y"), UsageError);
    CHECK_THROWS_AS(parse_kubeconfig("- just a list", "/k/y"), UsageError);
    CHECK_THROWS_AS(parse_kubeconfig("clusters: {a: b}", "/k/y"), UsageError);
    CHECK_THROWS_AS(parse_kubeconfig("clusters:\n- name: c\n  cluster: [1]\n", "/k/y"), UsageError);
    CHECK_THROWS_AS(parse_kubeconfig("clusters:\n- name: c\n  cluster: {insecure-skip-tls-verify: maybe}\n", "/k/y"),
                    UsageError);
  }
}

TEST_CASE("kube::load_kubeconfig") {
  kube_test::MemoryFiles files;
  files.files["/a/red"] = k_red;
  files.files["/b/blue"] = k_blue;

  SUBCASE("first file wins each map key whole, and the first non-empty current-context") {
    const Kubeconfig config = load_kubeconfig({"", "/a/red:/b/blue", "/home"}, files);
    CHECK(config.current_context == "red-context");
    CHECK(config.clusters.at("cow-cluster").server == "https://red.example:6443");
    CHECK(config.clusters.count("chicken-cluster") == 1);
    // red-user comes only from the first file: the second file's basic auth is discarded.
    CHECK(config.users.at("red-user").token == "red-token");
    CHECK(config.users.at("red-user").username.empty());
    CHECK(config.contexts.size() == 2);
  }
  SUBCASE("an empty current-context does not hide a later one") {
    files.files["/c/nocurrent"] = "clusters: []\n";
    const Kubeconfig config = load_kubeconfig({"", "/c/nocurrent:/b/blue", ""}, files);
    CHECK(config.current_context == "blue-context");
  }
  SUBCASE("missing files and empty entries are skipped; the list is deduplicated") {
    const Kubeconfig config = load_kubeconfig({"", "/missing::/b/blue:/b/blue", ""}, files);
    CHECK(config.current_context == "blue-context");
    CHECK(files.reads == 2); // /missing and /b/blue once
  }
  SUBCASE("--kubeconfig loads only that file, ignoring KUBECONFIG") {
    const Kubeconfig config = load_kubeconfig({"/b/blue", "/a/red", ""}, files);
    CHECK(config.current_context == "blue-context");
    CHECK(config.users.at("red-user").username == "blue");
  }
  SUBCASE("--kubeconfig naming a missing file is an error") {
    CHECK_THROWS_WITH_AS(load_kubeconfig({"/nope", "", ""}, files),
                         "stat /nope: no such file or directory", UsageError);
  }
  SUBCASE("without KUBECONFIG, ~/.kube/config; absent is an empty config") {
    files.files["/home/.kube/config"] = k_blue;
    CHECK(load_kubeconfig({"", "", "/home"}, files).current_context == "blue-context");
    CHECK(load_kubeconfig({"", "", "/elsewhere"}, files).contexts.empty());
  }
  SUBCASE("a file that exists but cannot be read is an error naming it") {
    files.unreadable.push_back("/b/blue");
    CHECK_THROWS_WITH_AS(load_kubeconfig({"", "/a/red:/b/blue", ""}, files),
                         doctest::Contains("error loading config file \"/b/blue\""), UsageError);
  }
  SUBCASE("a relative path is resolved against the file that defined the entry") {
    const Kubeconfig config = load_kubeconfig({"", "/a/red:/b/blue", ""}, files);
    CHECK(config.clusters.at("cow-cluster").certificate_authority == "/a/ca/red.crt");
  }
}

TEST_CASE("kube::merge_kubeconfig") {
  Kubeconfig first = parse_kubeconfig(k_red, "/a/red");
  merge_kubeconfig(first, parse_kubeconfig(k_blue, "/b/blue"));
  CHECK(first.users.at("blue-user").origin == "/b/blue");
  CHECK(first.users.at("red-user").origin == "/a/red");
}

TEST_CASE("kube::parse_kubeconfig corpus of bad files") {
  // Every file in the bad corpus must fail with a clean UsageError, never crash.
  const std::filesystem::path folder =
      std::filesystem::path(GPUSLICE_SOURCE_DIR) / "tests/fixtures/kubeconfig/bad";
  int seen = 0;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    CAPTURE(entry.path().string());
    CHECK_THROWS_AS(parse_kubeconfig(read_fixture(entry.path()), entry.path().string()), UsageError);
    ++seen;
  }
  CHECK(seen >= 5);
}
