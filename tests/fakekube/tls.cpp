// SPDX-License-Identifier: Apache-2.0
#include "tls.hpp"

#include <memory>
#include <stdexcept>

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

namespace fakekube {
namespace {

struct Free {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
  void operator()(X509* p) const { X509_free(p); }
  void operator()(BIO* p) const { BIO_free(p); }
  void operator()(BIGNUM* p) const { BN_free(p); }
  void operator()(X509_EXTENSION* p) const { X509_EXTENSION_free(p); }
};
using KeyPtr = std::unique_ptr<EVP_PKEY, Free>;
using CertPtr = std::unique_ptr<X509, Free>;
using BioPtr = std::unique_ptr<BIO, Free>;

constexpr long k_day_seconds = 24L * 3600;

[[noreturn]] void fail(const std::string& what) {
  unsigned long code = ERR_get_error();
  char text[256] = "";
  if (code != 0) ERR_error_string_n(code, text, sizeof text);
  throw std::runtime_error("fakekube: tls: " + what + (code ? std::string(": ") + text : ""));
}

void check(int ok, const char* what) {
  if (ok != 1) fail(what);
}

std::string bio_text(BIO* bio) {
  char* data = nullptr;
  long size = BIO_get_mem_data(bio, &data);
  return std::string(data, static_cast<std::size_t>(size));
}

std::string cert_pem(X509* cert) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  check(PEM_write_bio_X509(bio.get(), cert), "PEM_write_bio_X509");
  return bio_text(bio.get());
}

std::string key_pem(EVP_PKEY* key) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  check(PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr),
        "PEM_write_bio_PrivateKey");
  return bio_text(bio.get());
}

CertPtr read_cert(const std::string& pem) {
  BioPtr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  CertPtr cert(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
  if (!cert) fail("cannot read certificate PEM");
  return cert;
}

KeyPtr read_key(const std::string& pem) {
  BioPtr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  KeyPtr key(PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr));
  if (!key) fail("cannot read private key PEM");
  return key;
}

// P-256 keys: Go, curl and OpenSSL all accept them and they generate in microseconds.
KeyPtr new_key() {
  KeyPtr key(EVP_EC_gen("P-256"));
  if (!key) fail("EVP_EC_gen");
  return key;
}

void add_extension(X509* cert, X509* issuer, int nid, const std::string& value) {
  X509V3_CTX ctx;
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  std::unique_ptr<X509_EXTENSION, Free> ext(
      X509V3_EXT_nconf_nid(nullptr, &ctx, nid, value.c_str()));
  if (!ext) fail("extension " + value);
  check(X509_add_ext(cert, ext.get(), -1), "X509_add_ext");
}

// A certificate skeleton: random serial, validity window, subject, public key.
CertPtr new_certificate(EVP_PKEY* key, long not_before_s, long not_after_s,
                        const std::string& common_name,
                        const std::vector<std::string>& organizations) {
  CertPtr cert(X509_new());
  check(X509_set_version(cert.get(), 2), "X509_set_version");
  unsigned char serial[16];
  check(RAND_bytes(serial, sizeof serial), "RAND_bytes");
  serial[0] &= 0x7f; // positive, as RFC 5280 requires
  std::unique_ptr<BIGNUM, Free> bn(BN_bin2bn(serial, sizeof serial, nullptr));
  if (!bn || !BN_to_ASN1_INTEGER(bn.get(), X509_get_serialNumber(cert.get()))) fail("serial");
  if (!X509_gmtime_adj(X509_getm_notBefore(cert.get()), not_before_s) ||
      !X509_gmtime_adj(X509_getm_notAfter(cert.get()), not_after_s))
    fail("validity");
  X509_NAME* name = X509_get_subject_name(cert.get());
  for (const std::string& org : organizations)
    check(X509_NAME_add_entry_by_txt(name, "O", MBSTRING_UTF8,
                                     reinterpret_cast<const unsigned char*>(org.c_str()), -1, -1, 0),
          "subject O");
  check(X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
                                   reinterpret_cast<const unsigned char*>(common_name.c_str()), -1,
                                   -1, 0),
        "subject CN");
  check(X509_set_pubkey(cert.get(), key), "X509_set_pubkey");
  return cert;
}

CertificateAndKey sign_leaf(const CertificateAndKey& ca, long not_before_s, long not_after_s,
                            const std::string& common_name,
                            const std::vector<std::string>& organizations,
                            const std::string& extended_usage, const std::string& subject_alt) {
  CertPtr ca_cert = read_cert(ca.cert_pem);
  KeyPtr ca_key = read_key(ca.key_pem);
  KeyPtr key = new_key();
  CertPtr cert = new_certificate(key.get(), not_before_s, not_after_s, common_name, organizations);
  check(X509_set_issuer_name(cert.get(), X509_get_subject_name(ca_cert.get())), "issuer");
  add_extension(cert.get(), ca_cert.get(), NID_basic_constraints, "critical,CA:FALSE");
  add_extension(cert.get(), ca_cert.get(), NID_key_usage, "critical,digitalSignature,keyEncipherment");
  add_extension(cert.get(), ca_cert.get(), NID_ext_key_usage, extended_usage);
  add_extension(cert.get(), ca_cert.get(), NID_authority_key_identifier, "keyid:always");
  if (!subject_alt.empty())
    add_extension(cert.get(), ca_cert.get(), NID_subject_alt_name, subject_alt);
  if (X509_sign(cert.get(), ca_key.get(), EVP_sha256()) <= 0) fail("X509_sign");
  return {cert_pem(cert.get()), key_pem(key.get())};
}

} // namespace

CertificateAndKey make_certificate_authority() {
  KeyPtr key = new_key();
  CertPtr cert = new_certificate(key.get(), -k_day_seconds, 365 * k_day_seconds, "fakekube-ca", {});
  check(X509_set_issuer_name(cert.get(), X509_get_subject_name(cert.get())), "issuer");
  add_extension(cert.get(), cert.get(), NID_basic_constraints, "critical,CA:TRUE");
  add_extension(cert.get(), cert.get(), NID_key_usage, "critical,keyCertSign,cRLSign,digitalSignature");
  add_extension(cert.get(), cert.get(), NID_subject_key_identifier, "hash");
  if (X509_sign(cert.get(), key.get(), EVP_sha256()) <= 0) fail("X509_sign");
  return {cert_pem(cert.get()), key_pem(key.get())};
}

CertificateAndKey issue_server_certificate(const CertificateAndKey& ca, CertificateFault fault) {
  long not_before = -k_day_seconds;
  long not_after = 365 * k_day_seconds;
  std::string names = "IP:127.0.0.1,DNS:localhost";
  if (fault == CertificateFault::expired) {
    not_before = -3 * k_day_seconds;
    not_after = -k_day_seconds;
  } else if (fault == CertificateFault::wrong_host) {
    names = "DNS:wrong-host.invalid";
  }
  return sign_leaf(ca, not_before, not_after, "fakekube", {}, "serverAuth", names);
}

CertificateAndKey issue_client_certificate(const CertificateAndKey& ca, const std::string& user,
                                           const std::vector<std::string>& groups) {
  return sign_leaf(ca, -k_day_seconds, 365 * k_day_seconds, user, groups, "clientAuth", "");
}

} // namespace fakekube
