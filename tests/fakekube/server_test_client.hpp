// SPDX-License-Identifier: Apache-2.0
// Helpers for tests that talk to an in-process fakekube: a private temporary directory and an
// HTTPS client that verifies the server against the CA it generated.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>

#include <httplib.h>

#include <fakekube/server.hpp>

namespace fakekube {

// A directory under $TMPDIR (or /tmp) removed with everything in it when this goes away.
class TempDir {
public:
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base ? base : "/tmp") + "/fakekube-test-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    m_path = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(m_path, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return m_path; }

private:
  std::filesystem::path m_path;
};

// A client for `server` that trusts only the server's CA; with `cert`/`key` paths it presents
// that client certificate.
inline std::unique_ptr<httplib::SSLClient> make_test_client(const Server& server,
                                                            const TempDir& dir,
                                                            const std::string& cert = "",
                                                            const std::string& key = "") {
  std::filesystem::path ca = dir.path() / "test-client-ca.pem";
  std::ofstream(ca) << server.ca_pem();
  std::unique_ptr<httplib::SSLClient> client =
      cert.empty() ? std::make_unique<httplib::SSLClient>("127.0.0.1", server.port())
                   : std::make_unique<httplib::SSLClient>("127.0.0.1", server.port(), cert, key);
  client->set_ca_cert_path(ca.c_str());
  client->enable_server_certificate_verification(true);
  client->set_read_timeout(10, 0);
  return client;
}

} // namespace fakekube
