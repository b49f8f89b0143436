// SPDX-License-Identifier: Apache-2.0
// Server's private state, shared by server.cpp (serving) and kubeconfig.cpp (files).
#pragma once

#include <atomic>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <httplib.h>

#include <fakekube/server.hpp>

#include "request_log.hpp"
#include "tls.hpp"

namespace fakekube {

struct Server::Impl {
  Api api;
  CertificateAndKey ca;
  CertificateAndKey server_certificate;
  std::map<std::string, CertificateAndKey> client_certificates; // by user name

  // Guards users, faults and the token bookkeeping: handler threads read them while tests
  // change faults and token expiry rotates tokens.
  mutable std::mutex mutex;
  std::vector<User> users;
  TransportFaults faults;
  bool priority_and_fairness = true; // X-Kubernetes-PF-* headers (Scenario)
  std::map<std::string, int> token_uses;
  std::set<std::string> expired_tokens;
  std::map<std::string, std::vector<std::filesystem::path>> token_files; // rewritten on rotation
  int rotations = 0;

  std::atomic<long> request_count{0};
  RequestLog log;
  std::function<void(const LoggedRequest&)> listener;
  std::unique_ptr<httplib::SSLServer> http;
  std::thread thread;
  int port = 0;

  // Identity for a request, or nullopt (401). Counts token uses and rotates expired tokens.
  std::optional<Identity> authenticate(const httplib::Request& request);
  void serve(const httplib::Request& request, httplib::Response& response);
};

// Writes `text` to `path` with `mode` (default 0600), created or truncated. Throws naming the path.
void write_private_file(const std::filesystem::path& path, const std::string& text,
                        unsigned mode = 0600);

} // namespace fakekube
