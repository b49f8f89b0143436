// SPDX-License-Identifier: Apache-2.0
// Certificates fakekube generates at start: a CA, the server's certificate and one client
// certificate per user, as PEM text (OpenSSL 3 EVP APIs).
#pragma once

#include <string>
#include <vector>

#include <fakekube/server.hpp>

namespace fakekube {

// A certificate and its private key, PEM-encoded (the key as PKCS#8).
struct CertificateAndKey {
  std::string cert_pem;
  std::string key_pem;
};

// A self-signed CA valid for one year ("fakekube-ca"). Throws std::runtime_error on failure.
CertificateAndKey make_certificate_authority();

// A server certificate signed by `ca` for IP 127.0.0.1 and DNS localhost; `fault` makes it
// expired or names only "wrong-host.invalid". Throws std::runtime_error on failure.
CertificateAndKey issue_server_certificate(const CertificateAndKey& ca, CertificateFault fault);

// A client certificate signed by `ca` with CN=user and one O=group per group, which is how
// Kubernetes maps a certificate to an identity. Throws std::runtime_error on failure.
CertificateAndKey issue_client_certificate(const CertificateAndKey& ca, const std::string& user,
                                           const std::vector<std::string>& groups);

} // namespace fakekube
