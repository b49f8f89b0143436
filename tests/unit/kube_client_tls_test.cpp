// SPDX-License-Identifier: Apache-2.0
// TLS verification: each failure is a clear ApiError (exit 3) before anything is sent.
#include <doctest/doctest.h>

#include "unit/kube_fakekube_support.hpp"

using fakekube::KubeconfigAuth;
using gpuslice::kube::ApiError;
using gpuslice::kube::ClusterEndpoint;
using namespace kube_test;

namespace {

ApiError failure_of(gpuslice::kube::Client& client) {
  try {
    client.server_version();
  } catch (const ApiError& e) {
    return e;
  }
  FAIL("expected an ApiError");
  throw std::logic_error("unreachable");
}

fakekube::Scenario with_fault(fakekube::CertificateFault fault) {
  fakekube::Scenario scenario = default_scenario();
  scenario.certificate_fault = fault;
  return scenario;
}

} // namespace

TEST_CASE("kube::Client TLS") {
  SUBCASE("a CA that did not sign the server's certificate") {
    Cluster cluster;
    Cluster other;
    ClusterEndpoint endpoint = cluster.endpoint("admin", KubeconfigAuth::token);
    endpoint.ca_pem = other.server.ca_pem();
    auto client = cluster.client(endpoint);
    const ApiError e = failure_of(*client);
    CHECK(e.http_code == 0);
    CHECK(e.reason == "TLSError");
    CHECK(std::string(e.what()).find("certificate") != std::string::npos);
    CHECK(cluster.server.request_log().empty()); // nothing reached the API
  }
  SUBCASE("--insecure-skip-tls-verify accepts that certificate") {
    Cluster cluster;
    gpuslice::kube::GlobalOptions options;
    options.insecure_skip_tls_verify = true;
    auto client = cluster.client(cluster.endpoint("admin", KubeconfigAuth::token, options));
    CHECK(client->server_version() == "v1.30.4");
  }
  SUBCASE("tls-server-name: verify and SNI against that name while connecting to the address") {
    Cluster cluster;
    gpuslice::kube::GlobalOptions options;
    options.tls_server_name = "localhost"; // in the certificate; the URL says 127.0.0.1
    auto client = cluster.client(cluster.endpoint("admin", KubeconfigAuth::token, options));
    CHECK(client->server_version() == "v1.30.4");
    options.tls_server_name = "kubernetes.default.svc"; // not in the certificate
    auto wrong = cluster.client(cluster.endpoint("admin", KubeconfigAuth::token, options));
    const ApiError e = failure_of(*wrong);
    CHECK(e.reason == "TLSError");
    CHECK(std::string(e.what()).find("kubernetes.default.svc") != std::string::npos);
  }
  SUBCASE("a server certificate for another host name") {
    Cluster cluster(with_fault(fakekube::CertificateFault::wrong_host));
    auto client = cluster.client(cluster.endpoint("admin", KubeconfigAuth::token));
    const ApiError e = failure_of(*client);
    CHECK(e.reason == "TLSError");
    CHECK(std::string(e.what()).find("127.0.0.1") != std::string::npos);
  }
  SUBCASE("an expired server certificate") {
    Cluster cluster(with_fault(fakekube::CertificateFault::expired));
    auto client = cluster.client(cluster.endpoint("admin", KubeconfigAuth::token));
    const ApiError e = failure_of(*client);
    CHECK(e.reason == "TLSError");
    CHECK(std::string(e.what()).find("expired") != std::string::npos);
  }
  SUBCASE("nothing listening: connection failed") {
    ClusterEndpoint endpoint;
    endpoint.server = "https://127.0.0.1:1";
    Cluster cluster;
    auto client = cluster.client(endpoint);
    const ApiError e = failure_of(*client);
    CHECK(e.reason == "ConnectionFailed");
    CHECK(std::string(e.what()).find("127.0.0.1:1") != std::string::npos);
  }
}
