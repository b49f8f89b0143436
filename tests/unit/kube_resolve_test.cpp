// SPDX-License-Identifier: Apache-2.0
// Context selection, flag overrides and validation (client-go client_config.go / validation.go).
#include <doctest/doctest.h>

#include <gpuslice/error.hpp>
#include <gpuslice/kube/config.hpp>

#include "kube/base64.hpp"
#include "unit/kube_test_pems.hpp"
#include "unit/kube_test_support.hpp"

using gpuslice::UsageError;
using gpuslice::kube::ClusterEndpoint;
using gpuslice::kube::GlobalOptions;
using gpuslice::kube::parse_kubeconfig;
using gpuslice::kube::resolve_endpoint;

namespace {

// CA data "PROD_CA" is replaced by the base64 of a real PEM certificate.
const char* const k_config = R"(
current-context: prod
clusters:
- name: prod-cluster
  cluster:
    server: https://prod.example:6443
    tls-server-name: api.prod.internal
    certificate-authority-data: PROD_CA
- name: file-ca
  cluster: {server: https://file.example, certificate-authority: /certs/ca.crt}
- name: both-ca
  cluster: {server: https://both.example, certificate-authority: /certs/ca.crt, certificate-authority-data: PROD_CA}
- name: insecure-ca
  cluster: {server: https://x, insecure-skip-tls-verify: true, certificate-authority-data: PROD_CA}
- name: no-server
  cluster: {}
- name: garbage-ca
  cluster: {server: https://g.example, certificate-authority-data: bm90IGEgY2VydGlmaWNhdGU=}
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
  gpuslice::kube::Kubeconfig config = parse_kubeconfig(with_prod_ca(k_config), "/home/me/.kube/config");
  Fixture() {
    files.files["/certs/ca.crt"] = kube_test::k_file_certificate_pem;
    files.files["/certs/u.crt"] = kube_test::k_user_certificate_pem;
    files.files["/certs/u.key"] = kube_test::k_user_key_pem;
  }
  static std::string with_prod_ca(std::string text) {
    const std::string data = gpuslice::kube::base64_encode(kube_test::k_prod_certificate_pem);
    for (std::size_t at = text.find("PROD_CA"); at != std::string::npos; at = text.find("PROD_CA", at))
      text.replace(at, 7, data);
    return text;
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
    CHECK(e.ca_pem == kube_test::k_prod_certificate_pem);
    CHECK(e.credentials.token == "t0k3n");
    CHECK(e.credentials.token_file == "/tokens/t"); // both kept: the file wins when sending
    CHECK(e.namespace_name == "gpu-team");
  }
  SUBCASE("--context picks another context; files are loaded into memory") {
    const ClusterEndpoint e = f.resolve(with_context("files"));
    CHECK(e.ca_pem == kube_test::k_file_certificate_pem);
    CHECK(e.ca_file == "/certs/ca.crt");
    CHECK(e.credentials.client_certificate_pem == kube_test::k_user_certificate_pem);
    CHECK(e.credentials.client_key_pem == kube_test::k_user_key_pem);
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
    CHECK(e.credentials.client_key_pem == kube_test::k_user_key_pem);
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
    CHECK(f.resolve(o).ca_pem == kube_test::k_file_certificate_pem);
  }
  SUBCASE("--token clears tokenFile") {
    GlobalOptions o;
    o.token = "flag-token";
    const ClusterEndpoint e = f.resolve(o);
    CHECK(e.credentials.token == "flag-token");
    CHECK(e.credentials.token_file.empty());
  }
  SUBCASE("--client-certificate/--client-key replace the kubeconfig's") {
    f.files.files["/flag/c.crt"] = kube_test::k_file_certificate_pem;
    f.files.files["/flag/c.key"] = kube_test::k_file_key_pem;
    GlobalOptions o = with_context("files");
    o.client_certificate = "/flag/c.crt";
    o.client_key = "/flag/c.key";
    const ClusterEndpoint e = f.resolve(o);
    CHECK(e.credentials.client_certificate_pem == kube_test::k_file_certificate_pem);
    CHECK(e.credentials.client_key_pem == kube_test::k_file_key_pem);
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
  SUBCASE("CA, client certificate or key that is not PEM: refused at load, naming file, entry and field") {
    const std::string in_config = "invalid configuration: kubeconfig \"/home/me/.kube/config\": ";
    CHECK_THROWS_WITH_AS(f.resolve(with("garbage-ca", "token-user")),
                         (in_config + "cluster \"garbage-ca\": certificate-authority-data is not a PEM certificate").c_str(),
                         UsageError);
    f.files.files["/certs/ca.crt"] = "not a certificate\n";
    CHECK_THROWS_WITH_AS(f.resolve(with("file-ca", "token-user")),
                         (in_config + "cluster \"file-ca\": certificate-authority /certs/ca.crt is not a PEM certificate")
                             .c_str(),
                         UsageError);
    GlobalOptions flag = with("prod-cluster", "token-user");
    flag.certificate_authority = "/certs/ca.crt";
    CHECK_THROWS_WITH_AS(f.resolve(flag), "invalid configuration: --certificate-authority /certs/ca.crt is not a PEM certificate",
                         UsageError);
    f.files.files["/certs/ca.crt"] = kube_test::k_file_certificate_pem;
    f.files.files["/certs/u.key"] = kube_test::k_user_certificate_pem; // a certificate is not a key
    CHECK_THROWS_WITH_AS(f.resolve(with("file-ca", "cert-files")),
                         (in_config + "user \"cert-files\": client-key /certs/u.key is not a PEM private key").c_str(),
                         UsageError);
    f.files.files["/certs/u.key"] = kube_test::k_user_key_pem;
    f.files.files["/certs/u.crt"] = kube_test::k_user_key_pem; // nor a key a certificate
    CHECK_THROWS_WITH_AS(f.resolve(with("file-ca", "cert-files")),
                         (in_config + "user \"cert-files\": client-certificate /certs/u.crt is not a PEM certificate")
                             .c_str(),
                         UsageError);
    CHECK_THROWS_WITH_AS(f.resolve(with("prod-cluster", "cert-no-key")),
                         doctest::Contains("user \"cert-no-key\": client-certificate-data is not a PEM certificate"),
                         UsageError);
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
