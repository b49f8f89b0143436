// SPDX-License-Identifier: Apache-2.0
// Which credential each request carries: static token, token file (re-read), basic auth,
// client certificate, or an exec plugin's output (cached until expiry or a 401).
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>

#include <gpuslice/kube/config.hpp>
#include <gpuslice/kube/seams.hpp>

#include "kube/exec_plugin.hpp"

namespace gpuslice::kube {

// The credentials for one request. Secret: never log it.
struct AuthSnapshot {
  std::string authorization; // header value, "" = none
  std::string client_certificate_pem;
  std::string client_key_pem;
  std::uint64_t generation = 0; // bumps whenever the credential changes
};

class CredentialProvider {
public:
  CredentialProvider(const ClusterEndpoint& endpoint, ProcessRunner& runner, FileReader& files, Clock& clock,
                     bool stdin_is_tty);

  // The credentials to send now. Over plain http none are sent (client-go attaches them only
  // to TLS transports). Throws RuntimeError when an exec plugin or token file fails.
  AuthSnapshot current();

  // The server answered a request with something other than 401: its credential worked.
  void accepted() { m_accepted.fetch_add(1, std::memory_order_relaxed); }
  // How many answers so far were not 401s.
  std::uint64_t accepted_count() const { return m_accepted.load(std::memory_order_relaxed); }

  // What a 401 on `used` leads to, decided under one lock: `replaced` when another request
  // has refreshed the credential since `used` was taken; else, when `may_refresh`, the cached
  // credential is dropped (token file re-read, exec plugin re-run) and `refreshed` when that
  // gave a different one; else `none`, and the 401 stands.
  enum class AfterUnauthorized { none, replaced, refreshed };
  AfterUnauthorized after_unauthorized(const AuthSnapshot& used, bool may_refresh);

  // How many times the exec plugin ran (tests assert caching).
  int exec_runs() const;

private:
  std::string bearer_from_file_locked(bool force);
  const ExecCredential& exec_credential_locked(bool force);

  const ClusterEndpoint& m_endpoint;
  ProcessRunner& m_runner;
  FileReader& m_files;
  Clock& m_clock;
  bool m_stdin_is_tty;
  bool m_use_exec;
  mutable std::mutex m_mutex;
  std::string m_file_token;
  std::optional<std::chrono::steady_clock::time_point> m_file_read_at;
  std::optional<ExecCredential> m_exec;
  int m_exec_runs = 0;
  std::uint64_t m_generation = 1;
  std::atomic<std::uint64_t> m_accepted{0};
  std::string m_last_authorization;
  std::string m_last_certificate;
};

// True when requests to `server` may carry credentials (https only).
bool carries_credentials(const std::string& server);

} // namespace gpuslice::kube
