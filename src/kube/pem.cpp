// SPDX-License-Identifier: Apache-2.0
#include "kube/pem.hpp"

#include <climits>
#include <memory>

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

namespace gpuslice::kube {

namespace {

struct BioFree {
  void operator()(BIO* bio) const { BIO_free(bio); }
};

std::unique_ptr<BIO, BioFree> memory_bio(std::string_view text) {
  if (text.size() > INT_MAX) return nullptr;
  return std::unique_ptr<BIO, BioFree>(BIO_new_mem_buf(text.data(), static_cast<int>(text.size())));
}

// An encrypted key is refused, never prompted for: OpenSSL's default would read the terminal.
int no_passphrase(char*, int, int, void*) {
  return 0;
}

} // namespace

bool holds_pem_certificate(std::string_view text) {
  std::unique_ptr<BIO, BioFree> bio = memory_bio(text);
  if (!bio) return false;
  X509* certificate = PEM_read_bio_X509(bio.get(), nullptr, no_passphrase, nullptr);
  ERR_clear_error(); // a failed parse leaves errors queued that libcurl would report later
  const bool found = certificate != nullptr;
  X509_free(certificate);
  return found;
}

bool holds_pem_private_key(std::string_view text) {
  std::unique_ptr<BIO, BioFree> bio = memory_bio(text);
  if (!bio) return false;
  EVP_PKEY* key = PEM_read_bio_PrivateKey(bio.get(), nullptr, no_passphrase, nullptr);
  ERR_clear_error();
  const bool found = key != nullptr;
  EVP_PKEY_free(key);
  return found;
}

} // namespace gpuslice::kube
