// SPDX-License-Identifier: Apache-2.0
// Kubeconfig files for fakekube's users, one per credential style kubectl supports.
#include <fakekube/server.hpp>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/rand.h>
#include <yaml-cpp/yaml.h>

#include "auth.hpp"
#include "server_impl.hpp"

namespace fakekube {
namespace {

std::filesystem::path beside(const std::filesystem::path& kubeconfig, const std::string& suffix) {
  return std::filesystem::absolute(kubeconfig).string() + suffix;
}

// The EKS stand-in accepts any "k8s-aws-v1." token; give the client a plausible one.
std::string eks_token() {
  unsigned char bytes[24];
  if (RAND_bytes(bytes, sizeof bytes) != 1) throw std::runtime_error("fakekube: RAND_bytes failed");
  std::string token = encode_base64(std::string(reinterpret_cast<char*>(bytes), sizeof bytes));
  for (char& c : token) c = c == '+' ? '-' : c == '/' ? '_' : c; // base64url, as aws prints
  return k_eks_token_prefix + token;
}

std::string token_of(const User& user) {
  if (user.token == k_eks_token_pattern) return eks_token();
  if (user.token.empty())
    throw std::runtime_error("fakekube: user \"" + user.name + "\" has no token");
  return user.token;
}

std::string shell_quote(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

} // namespace

void write_private_file(const std::filesystem::path& path, const std::string& text,
                        unsigned mode) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0 || ::fchmod(fd, mode) != 0)
    throw std::runtime_error(path.string() + ": cannot write: " + std::strerror(errno));
  std::size_t written = 0;
  while (written < text.size()) {
    ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0) {
      ::close(fd);
      throw std::runtime_error(path.string() + ": cannot write: " + std::strerror(errno));
    }
    written += static_cast<std::size_t>(n);
  }
  ::close(fd);
}

std::filesystem::path Server::write_kubeconfig(const std::filesystem::path& path,
                                               const std::string& user_name,
                                               KubeconfigAuth auth) const {
  Impl& impl = *m_impl;
  std::lock_guard<std::mutex> lock(impl.mutex);
  const User* user = nullptr;
  for (const User& candidate : impl.users)
    if (candidate.name == user_name) user = &candidate;
  if (user == nullptr) throw std::runtime_error("fakekube: no user \"" + user_name + "\"");

  const CertificateAndKey* client = nullptr;
  if (auth == KubeconfigAuth::client_cert_files || auth == KubeconfigAuth::client_cert_data) {
    auto found = impl.client_certificates.find(user_name);
    if (found == impl.client_certificates.end())
      throw std::runtime_error("fakekube: user \"" + user_name +
                               "\" has no client certificate (set clientCertificate: true)");
    client = &found->second;
  }

  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "apiVersion" << YAML::Value << "v1";
  out << YAML::Key << "kind" << YAML::Value << "Config";
  out << YAML::Key << "clusters" << YAML::Value << YAML::BeginSeq << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << "fakekube";
  out << YAML::Key << "cluster" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "server" << YAML::Value << url();
  out << YAML::Key << "certificate-authority-data" << YAML::Value << encode_base64(impl.ca.cert_pem);
  out << YAML::EndMap << YAML::EndMap << YAML::EndSeq;
  out << YAML::Key << "users" << YAML::Value << YAML::BeginSeq << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << user_name;
  out << YAML::Key << "user" << YAML::Value << YAML::BeginMap;
  switch (auth) {
  case KubeconfigAuth::token:
    out << YAML::Key << "token" << YAML::Value << token_of(*user);
    break;
  case KubeconfigAuth::token_file: {
    std::filesystem::path file = beside(path, ".token");
    write_private_file(file, token_of(*user) + "\n");
    impl.token_files[user_name].push_back(file);
    out << YAML::Key << "tokenFile" << YAML::Value << file.string();
    break;
  }
  case KubeconfigAuth::client_cert_files: {
    std::filesystem::path cert = beside(path, ".crt");
    std::filesystem::path key = beside(path, ".key");
    write_private_file(cert, client->cert_pem);
    write_private_file(key, client->key_pem);
    out << YAML::Key << "client-certificate" << YAML::Value << cert.string();
    out << YAML::Key << "client-key" << YAML::Value << key.string();
    break;
  }
  case KubeconfigAuth::client_cert_data:
    out << YAML::Key << "client-certificate-data" << YAML::Value << encode_base64(client->cert_pem);
    out << YAML::Key << "client-key-data" << YAML::Value << encode_base64(client->key_pem);
    break;
  case KubeconfigAuth::basic:
    if (user->password.empty())
      throw std::runtime_error("fakekube: user \"" + user_name + "\" has no password");
    out << YAML::Key << "username" << YAML::Value << user_name;
    out << YAML::Key << "password" << YAML::Value << user->password;
    break;
  case KubeconfigAuth::exec: {
    // The plugin prints the token kept in a file beside it, so a rotated token (see
    // token_ttl_requests) reaches kubectl when it re-runs the plugin after a 401.
    std::filesystem::path file = beside(path, ".token");
    std::filesystem::path script = beside(path, ".exec.sh");
    write_private_file(file, token_of(*user) + "\n");
    impl.token_files[user_name].push_back(file);
    write_private_file(script,
                       "#!/bin/sh\n"
                       "# fakekube exec credential plugin for user " + user_name + "\n"
                       "token=$(cat " + shell_quote(file.string()) + ")\n"
                       "printf '{\"kind\":\"ExecCredential\",\"apiVersion\":"
                       "\"client.authentication.k8s.io/v1beta1\",\"spec\":{},"
                       "\"status\":{\"token\":\"%s\"}}\\n' \"$token\"\n",
                       0700);
    out << YAML::Key << "exec" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "apiVersion" << YAML::Value << "client.authentication.k8s.io/v1beta1";
    out << YAML::Key << "command" << YAML::Value << script.string();
    out << YAML::Key << "interactiveMode" << YAML::Value << "Never";
    out << YAML::EndMap;
    break;
  }
  }
  out << YAML::EndMap << YAML::EndMap << YAML::EndSeq;
  out << YAML::Key << "contexts" << YAML::Value << YAML::BeginSeq << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << "fakekube";
  out << YAML::Key << "context" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "cluster" << YAML::Value << "fakekube";
  out << YAML::Key << "user" << YAML::Value << user_name;
  out << YAML::EndMap << YAML::EndMap << YAML::EndSeq;
  out << YAML::Key << "current-context" << YAML::Value << "fakekube";
  out << YAML::EndMap;
  write_private_file(path, std::string(out.c_str()) + "\n");
  return path;
}

} // namespace fakekube
