// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include <memory>

#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include <tls.hpp>

namespace {

using CertPtr = std::unique_ptr<X509, decltype(&X509_free)>;

CertPtr parse(const std::string& pem) {
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  CertPtr cert(PEM_read_bio_X509(bio, nullptr, nullptr, nullptr), &X509_free);
  BIO_free(bio);
  return cert;
}

// The X509_V_* result of verifying `leaf` against `ca` alone.
int verify(const fakekube::CertificateAndKey& ca, const fakekube::CertificateAndKey& leaf) {
  CertPtr ca_cert = parse(ca.cert_pem);
  CertPtr leaf_cert = parse(leaf.cert_pem);
  X509_STORE* store = X509_STORE_new();
  X509_STORE_add_cert(store, ca_cert.get());
  X509_STORE_CTX* ctx = X509_STORE_CTX_new();
  X509_STORE_CTX_init(ctx, store, leaf_cert.get(), nullptr);
  int result = X509_verify_cert(ctx) == 1 ? X509_V_OK : X509_STORE_CTX_get_error(ctx);
  X509_STORE_CTX_free(ctx);
  X509_STORE_free(store);
  return result;
}

std::string subject(const fakekube::CertificateAndKey& leaf) {
  CertPtr cert = parse(leaf.cert_pem);
  char text[256];
  X509_NAME_oneline(X509_get_subject_name(cert.get()), text, sizeof text);
  return text;
}

} // namespace

TEST_CASE("fakekube::issue_server_certificate") {
  fakekube::CertificateAndKey ca = fakekube::make_certificate_authority();
  REQUIRE(ca.cert_pem.find("BEGIN CERTIFICATE") != std::string::npos);
  REQUIRE(ca.key_pem.find("BEGIN PRIVATE KEY") != std::string::npos);

  SUBCASE("valid for 127.0.0.1 and localhost, signed by the CA") {
    fakekube::CertificateAndKey server =
        fakekube::issue_server_certificate(ca, fakekube::CertificateFault::none);
    CHECK(verify(ca, server) == X509_V_OK);
    CertPtr cert = parse(server.cert_pem);
    CHECK(X509_check_ip_asc(cert.get(), "127.0.0.1", 0) == 1);
    CHECK(X509_check_host(cert.get(), "localhost", 0, 0, nullptr) == 1);
  }
  SUBCASE("expired") {
    fakekube::CertificateAndKey server =
        fakekube::issue_server_certificate(ca, fakekube::CertificateFault::expired);
    CHECK(verify(ca, server) == X509_V_ERR_CERT_HAS_EXPIRED);
  }
  SUBCASE("for another host") {
    fakekube::CertificateAndKey server =
        fakekube::issue_server_certificate(ca, fakekube::CertificateFault::wrong_host);
    CHECK(verify(ca, server) == X509_V_OK);
    CertPtr cert = parse(server.cert_pem);
    CHECK(X509_check_ip_asc(cert.get(), "127.0.0.1", 0) != 1);
    CHECK(X509_check_host(cert.get(), "localhost", 0, 0, nullptr) != 1);
  }
  SUBCASE("another CA's certificate does not verify") {
    fakekube::CertificateAndKey other = fakekube::make_certificate_authority();
    fakekube::CertificateAndKey server =
        fakekube::issue_server_certificate(other, fakekube::CertificateFault::none);
    CHECK(verify(ca, server) != X509_V_OK);
  }
}

TEST_CASE("fakekube::issue_client_certificate") {
  fakekube::CertificateAndKey ca = fakekube::make_certificate_authority();
  fakekube::CertificateAndKey client =
      fakekube::issue_client_certificate(ca, "alice", {"dev", "system:masters"});
  CHECK(verify(ca, client) == X509_V_OK);
  CHECK(subject(client) == "/O=dev/O=system:masters/CN=alice");
}
