// SPDX-License-Identifier: Apache-2.0
// Context selection, flag overrides and validation (client-go client_config.go / validation.go).
#include <doctest/doctest.h>

#include <gpuslice/error.hpp>
#include <gpuslice/kube/config.hpp>

#include "unit/kube_test_support.hpp"

using gpuslice::UsageError;
using gpuslice::kube::ClusterEndpoint;
using gpuslice::kube::GlobalOptions;
using gpuslice::kube::parse_kubeconfig;
using gpuslice::kube::resolve_endpoint;

namespace {

const char* const k_config = R"(
current-context: prod
clusters:
- name: prod-cluster
  cluster:
    server: https://prod.example:6443
    tls-server-name: api.prod.internal
    certificate-authority-data: UFJPRC1DQQ==
- name: file-ca
  cluster: {server: https://file.example, certificate-authority: /certs/ca.crt}
- name: both-ca
  cluster: {server: https://both.example, certificate-authority: /certs/ca.crt, certificate-authority-data: UFJPRC1DQQ==}
- name: insecure-ca
  cluster: {server: https://x, insecure-skip-tls-verify: true, certificate-authority-data: UFJPRC1DQQ==}
- name: no-server
  cluster: {}
users:
- name: token-user
  user: {token: t0k3n, tokenFile: /tokens/t}
- name: cert-files
  user: {client-certificate: /certs/u.crt, client-key: /certs/u.key}
- name: cert-no-key
  user: {client-certificate-data: Q0VSVA==}
- name: token-and-basic
  user: {token: a, username: b, password: c}
- name: exec-v1-no-mode
  user:
    exec: {apiVersion: client.authentication.k8s.io/v1, command: plugin}
- name: exec-no-command
  user:
    exec: {apiVersion: client.authentication.k8s.io/v1beta1}
- name: groups-only
  user: {as-groups: [admins]}
- name: legacy-provider
  user:
    auth-provider: {name: gcp}
contexts:
- name: prod
  context: {cluster: prod-cluster, user: token-user, namespace: gpu-team}
- name: files
  context: {cluster: file-ca, user: cert-files}
- name: dangling
  context: {cluster: gone, user: token-user}
)";

struct Fixture {
  kube_test::MemoryFiles files;
  gpuslice::kube::Kubeconfig config = parse_kubeconfig(k_config, "/home/me/.kube/config");
  Fixture() {
    files.files["/certs/ca.crt"] = "FILE-CA";
    files.files["/certs/u.crt"] = "USER-CERT";
    files.files["/certs/u.key"] = "USER-KEY";
  }
  ClusterEndpoint resolve(const GlobalOptions& options) {
    std::optional<ClusterEndpoint> endpoint = resolve_endpoint(config, options, files);
    REQUIRE(endpoint.has_value());
    return *endpoint;
  }
};

GlobalOptions with_context(const std::string& context) {
  GlobalOptions options;
  options.context = context;
  return options;
}

} // namespace

TEST_CASE("kube::resolve_endpoint") {
  Fixture f;
  SUBCASE("current-context: server, CA data, SNI name, token, namespace from the context") {
    const ClusterEndpoint e = f.resolve({});
    CHECK(e.context_name == "prod");
    CHECK(e.server == "https://prod.example:6443");
    CHECK(e.tls_server_name == "api.prod.internal");
    CHECK(e.ca_pem == "PROD-CA");
    CHECK(e.credentials.token == "t0k3n");
    CHECK(e.credentials.token_file == "/tokens/t"); // both kept: the file wins when sending
    CHECK(e.namespace_name == "gpu-team");
  }
  SUBCASE("--context picks another context; files are loaded into memory") {
    const ClusterEndpoint e = f.resolve(with_context("files"));
    CHECK(e.ca_pem == "FILE-CA");
    CHECK(e.ca_file == "/certs/ca.crt");
    CHECK(e.credentials.client_certificate_pem == "USER-CERT");
    CHECK(e.credentials.client_key_pem == "USER-KEY");
    CHECK(e.namespace_name == "default");
  }
  SUBCASE("-n wins over the context's namespace") {
    GlobalOptions o;
    o.namespace_name = "other";
    CHECK(f.resolve(o).namespace_name == "other");
  }
  SUBCASE("--context naming a missing context is an error") {
    CHECK_THROWS_WITH_AS(f.resolve(with_context("nope")), "context \"nope\" does not exist", UsageError);
  }
  SUBCASE("--cluster and --user override the context and must exist") {
    GlobalOptions o;
    o.cluster = "file-ca";
    o.user = "cert-files";
    const ClusterEndpoint e = f.resolve(o);
    CHECK(e.server == "https://file.example");
    CHECK(e.credentials.client_key_pem == "USER-KEY");
    o.cluster = "ghost";
    CHECK_THROWS_WITH_AS(f.resolve(o), "cluster \"ghost\" does not exist", UsageError);
    o.cluster.clear();
    o.user = "ghost";
    CHECK_THROWS_WITH_AS(f.resolve(o), "auth info \"ghost\" does not exist", UsageError);
  }
  SUBCASE("a context naming a missing cluster has no server") {
    CHECK_THROWS_WITH_AS(f.resolve(with_context("dangling")),
                         doctest::Contains("no server found for cluster \"gone\""), UsageError);
  }
  SUBCASE("--server clears the kubeconfig's tls-server-name unless --tls-server-name is given") {
    GlobalOptions o;
    o.server = "https://127.0.0.1:6443";
    CHECK(f.resolve(o).tls_server_name.empty());
    o.tls_server_name = "kept.example";
    CHECK(f.resolve(o).tls_server_name == "kept.example");
  }
  SUBCASE("--insecure-skip-tls-verify clears the kubeconfig's CA") {
    GlobalOptions o;
    o.insecure_skip_tls_verify = true;
    const ClusterEndpoint e = f.resolve(o);
    CHECK(e.insecure_skip_tls_verify);
    CHECK(e.ca_pem.empty());
  }
  SUBCASE("--insecure-skip-tls-verify with --certificate-authority is rejected") {
    GlobalOptions o;
    o.insecure_skip_tls_verify = true;
    o.certificate_authority = "/certs/ca.crt";
    CHECK_THROWS_WITH_AS(f.resolve(o), doctest::Contains("root certificates file with the insecure flag"),
                         UsageError);
  }
  SUBCASE("--certificate-authority replaces CA data") {
    GlobalOptions o;
    o.certificate_authority = "/certs/ca.crt";
    CHECK(f.resolve(o).ca_pem == "FILE-CA");
  }
  SUBCASE("--token clears tokenFile") {
    GlobalOptions o;
    o.token = "flag-token";
    const ClusterEndpoint e = f.resolve(o);
    CHECK(e.credentials.token == "flag-token");
    CHECK(e.credentials.token_file.empty());
  }
  SUBCASE("--client-certificate/--client-key replace the kubeconfig's") {
    f.files.files["/flag/c.crt"] = "FLAG-CERT";
    f.files.files["/flag/c.key"] = "FLAG-KEY";
    GlobalOptions o = with_context("files");
    o.client_certificate = "/flag/c.crt";
    o.client_key = "/flag/c.key";
    const ClusterEndpoint e = f.resolve(o);
    CHECK(e.credentials.client_certificate_pem == "FLAG-CERT");
    CHECK(e.credentials.client_key_pem == "FLAG-KEY");
  }
  SUBCASE("--as and --as-group set impersonation") {
    GlobalOptions o;
    o.as_user = "jane";
    o.as_groups = {"devs", "ops"};
    const ClusterEndpoint e = f.resolve(o);
    CHECK(e.credentials.as_user == "jane");
    CHECK(e.credentials.as_groups.size() == 2);
  }
  SUBCASE("--request-timeout is parsed; a bad one is a usage error") {
    GlobalOptions o;
    o.request_timeout = "1m30s";
    CHECK(f.resolve(o).request_timeout == std::chrono::seconds(90));
    o.request_timeout = "soon";
    CHECK_THROWS_AS(f.resolve(o), UsageError);
  }
  SUBCASE("nothing configured and no flags: nullopt (in-cluster is next)") {
    gpuslice::kube::Kubeconfig empty;
    CHECK_FALSE(resolve_endpoint(empty, {}, f.files).has_value());
    GlobalOptions o;
    o.server = "https://flag.example";
    CHECK(resolve_endpoint(empty, o, f.files)->server == "https://flag.example");
  }
}

TEST_CASE("kube::resolve_endpoint validation") {
  Fixture f;
  auto with = [&](const std::string& cluster, const std::string& user) {
    GlobalOptions o;
    o.cluster = cluster;
    o.user = user;
    return o;
  };
  SUBCASE("certificate-authority and -data both set is an error") {
    CHECK_THROWS_WITH_AS(f.resolve(with("both-ca", "token-user")),
                         doctest::Contains("certificate-authority-data and certificate-authority are both specified for both-ca"),
                         UsageError);
  }
  SUBCASE("insecure with a CA in the kubeconfig is an error") {
    CHECK_THROWS_WITH_AS(f.resolve(with("insecure-ca", "token-user")),
                         doctest::Contains("insecure flag is not allowed"), UsageError);
  }
  SUBCASE("an unreadable CA file is reported at load") {
    f.files.files.erase("/certs/ca.crt");
    CHECK_THROWS_WITH_AS(f.resolve(with("file-ca", "token-user")),
                         doctest::Contains("unable to read certificate-authority /certs/ca.crt for file-ca"), UsageError);
  }
  SUBCASE("no server") {
    CHECK_THROWS_WITH_AS(f.resolve(with("no-server", "token-user")),
                         "invalid configuration: no server found for cluster \"no-server\"", UsageError);
  }
  SUBCASE("more than one authentication method") {
    CHECK_THROWS_WITH_AS(f.resolve(with("prod-cluster", "token-and-basic")),
                         "invalid configuration: more than one authentication method found for token-and-basic; "
                         "found [token basicAuth], only one is allowed",
                         UsageError);
  }
  SUBCASE("a client certificate without a key") {
    CHECK_THROWS_WITH_AS(f.resolve(with("prod-cluster", "cert-no-key")),
                         doctest::Contains("client-key-data or client-key must be specified for cert-no-key"), UsageError);
  }
  SUBCASE("exec v1 requires interactiveMode; exec requires a command") {
    CHECK_THROWS_WITH_AS(f.resolve(with("prod-cluster", "exec-v1-no-mode")),
                         doctest::Contains("interactiveMode must be specified for exec-v1-no-mode"), UsageError);
    CHECK_THROWS_WITH_AS(f.resolve(with("prod-cluster", "exec-no-command")),
                         doctest::Contains("command must be specified for exec-no-command"), UsageError);
  }
  SUBCASE("impersonating groups without a user") {
    CHECK_THROWS_WITH_AS(f.resolve(with("prod-cluster", "groups-only")),
                         doctest::Contains("without impersonating a user"), UsageError);
  }
  SUBCASE("legacy auth-provider is refused with what to use instead") {
    CHECK_THROWS_WITH_AS(f.resolve(with("prod-cluster", "legacy-provider")),
                         doctest::Contains("use an exec plugin"), UsageError);
  }
  SUBCASE("several problems are listed together") {
    CHECK_THROWS_WITH_AS(f.resolve(with("no-server", "cert-no-key")), doctest::Contains("invalid configuration: ["),
                         UsageError);
  }
}
