// SPDX-License-Identifier: Apache-2.0
#include "auth.hpp"

#include <memory>

#include <openssl/evp.h>
#include <openssl/x509.h>

namespace fakekube {
namespace {

bool starts_with(const std::string& text, const std::string& prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

std::string name_entry(X509_NAME* name, int index) {
  ASN1_STRING* data = X509_NAME_ENTRY_get_data(X509_NAME_get_entry(name, index));
  unsigned char* utf8 = nullptr;
  int length = ASN1_STRING_to_UTF8(&utf8, data);
  if (length < 0) return {};
  std::string text(reinterpret_cast<char*>(utf8), static_cast<std::size_t>(length));
  OPENSSL_free(utf8);
  return text;
}

} // namespace

const User* find_token_user(const std::vector<User>& users, const std::string& token) {
  if (token.empty()) return nullptr;
  for (const User& user : users)
    if (user.token == token) return &user;
  for (const User& user : users)
    if (user.token == k_eks_token_pattern && starts_with(token, k_eks_token_prefix) &&
        token.size() > std::string(k_eks_token_prefix).size())
      return &user;
  return nullptr;
}

const User* find_basic_user(const std::vector<User>& users, const std::string& encoded) {
  std::optional<std::string> decoded = decode_base64(encoded);
  if (!decoded) return nullptr;
  std::size_t colon = decoded->find(':');
  if (colon == std::string::npos) return nullptr;
  std::string name = decoded->substr(0, colon);
  std::string password = decoded->substr(colon + 1);
  for (const User& user : users)
    if (user.name == name && !user.password.empty() && user.password == password) return &user;
  return nullptr;
}

std::optional<Identity> certificate_identity(const SSL* ssl) {
  if (ssl == nullptr) return std::nullopt;
  std::unique_ptr<X509, decltype(&X509_free)> cert(SSL_get1_peer_certificate(ssl), &X509_free);
  // The handshake accepts any certificate so that token users on the same port still
  // connect; only a chain that verified against our CA names an identity.
  if (!cert || SSL_get_verify_result(ssl) != X509_V_OK) return std::nullopt;
  Identity identity;
  X509_NAME* subject = X509_get_subject_name(cert.get());
  for (int i = 0; i < X509_NAME_entry_count(subject); ++i) {
    int nid = OBJ_obj2nid(X509_NAME_ENTRY_get_object(X509_NAME_get_entry(subject, i)));
    if (nid == NID_commonName) identity.user = name_entry(subject, i);
    if (nid == NID_organizationName) identity.groups.push_back(name_entry(subject, i));
  }
  if (identity.user.empty()) return std::nullopt;
  identity.groups.push_back("system:authenticated");
  return identity;
}

std::optional<std::string> decode_base64(const std::string& text) {
  std::string padded = text;
  while (padded.size() % 4 != 0) padded.push_back('=');
  std::string out(padded.size() / 4 * 3, '\0');
  int length = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                               reinterpret_cast<const unsigned char*>(padded.data()),
                               static_cast<int>(padded.size()));
  if (length < 0) return std::nullopt;
  // EVP_DecodeBlock counts padding as zero bytes; drop them.
  std::size_t pad = 0;
  for (std::size_t i = padded.size(); i > 0 && padded[i - 1] == '='; --i) ++pad;
  out.resize(static_cast<std::size_t>(length) - std::min<std::size_t>(pad, 2));
  return out;
}

std::string encode_base64(const std::string& bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
  int length = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                               reinterpret_cast<const unsigned char*>(bytes.data()),
                               static_cast<int>(bytes.size()));
  out.resize(static_cast<std::size_t>(length));
  return out;
}

} // namespace fakekube
