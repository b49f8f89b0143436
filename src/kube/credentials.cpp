// SPDX-License-Identifier: Apache-2.0
#include "kube/credentials.hpp"

#include <fmt/format.h>

#include <gpuslice/error.hpp>

#include "kube/base64.hpp"

namespace gpuslice::kube {

namespace {

// client-go's cached file token source: re-read a minute after the last read, less 10 s
// leeway (service-account tokens rotate at 80% of a 10 minute life).
constexpr std::chrono::seconds k_token_file_refresh{50};

std::string trim(const std::string& text) {
  const std::size_t begin = text.find_first_not_of(" \t\r\n");
  const std::size_t end = text.find_last_not_of(" \t\r\n");
  return begin == std::string::npos ? std::string{} : text.substr(begin, end - begin + 1);
}

} // namespace

bool carries_credentials(const std::string& server) {
  return server.rfind("https://", 0) == 0;
}

CredentialProvider::CredentialProvider(const ClusterEndpoint& endpoint, ProcessRunner& runner, FileReader& files,
                                       Clock& clock, bool stdin_is_tty)
    : m_endpoint(endpoint), m_runner(runner), m_files(files), m_clock(clock), m_stdin_is_tty(stdin_is_tty) {
  const Credentials& c = endpoint.credentials;
  // A configured token, basic auth or certificate bypasses the plugin, as in client-go.
  m_use_exec = c.exec.has_value() && c.token.empty() && c.token_file.empty() && c.username.empty() &&
               c.client_certificate_pem.empty();
}

std::string CredentialProvider::bearer_from_file_locked(bool force) {
  const std::chrono::steady_clock::time_point now = m_clock.steady_now();
  if (!force && m_file_read_at && now - *m_file_read_at < k_token_file_refresh) {
    return m_file_token;
  }
  std::optional<std::string> text;
  try {
    text = m_files.read(m_endpoint.credentials.token_file);
  } catch (const std::exception& e) {
    if (m_file_read_at) {
      return m_file_token; // keep the last good token, as client-go does
    }
    throw RuntimeError(fmt::format("reading tokenFile: {}", e.what()));
  }
  if (!text) {
    if (m_file_read_at) {
      return m_file_token;
    }
    throw RuntimeError(fmt::format("tokenFile {}: no such file", m_endpoint.credentials.token_file));
  }
  m_file_token = trim(*text);
  m_file_read_at = now;
  return m_file_token;
}

const ExecCredential& CredentialProvider::exec_credential_locked(bool force) {
  const bool expired = m_exec && m_exec->expiry && m_clock.now() >= *m_exec->expiry;
  if (force || !m_exec || expired) {
    m_exec = run_exec_plugin(*m_endpoint.credentials.exec, m_endpoint, m_runner, m_stdin_is_tty,
                             process_environment());
    ++m_exec_runs;
  }
  return *m_exec;
}

AuthSnapshot CredentialProvider::current() {
  AuthSnapshot snapshot;
  if (!carries_credentials(m_endpoint.server)) {
    return snapshot;
  }
  const Credentials& c = m_endpoint.credentials;
  std::lock_guard<std::mutex> lock(m_mutex);
  snapshot.client_certificate_pem = c.client_certificate_pem;
  snapshot.client_key_pem = c.client_key_pem;
  if (!c.token_file.empty()) {
    snapshot.authorization = "Bearer " + bearer_from_file_locked(false);
  } else if (!c.token.empty()) {
    snapshot.authorization = "Bearer " + c.token;
  } else if (!c.username.empty() || !c.password.empty()) {
    snapshot.authorization = "Basic " + base64_encode(c.username + ":" + c.password);
  } else if (m_use_exec) {
    const ExecCredential& credential = exec_credential_locked(false);
    if (!credential.token.empty()) {
      snapshot.authorization = "Bearer " + credential.token;
    }
    snapshot.client_certificate_pem = credential.client_certificate_pem;
    snapshot.client_key_pem = credential.client_key_pem;
  }
  if (snapshot.authorization != m_last_authorization || snapshot.client_certificate_pem != m_last_certificate) {
    ++m_generation;
    m_last_authorization = snapshot.authorization;
    m_last_certificate = snapshot.client_certificate_pem;
  }
  snapshot.generation = m_generation;
  return snapshot;
}

CredentialProvider::AfterUnauthorized CredentialProvider::after_unauthorized(const AuthSnapshot& used,
                                                                             bool may_refresh) {
  const Credentials& c = m_endpoint.credentials;
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    if (used.generation != m_generation) return AfterUnauthorized::replaced; // retry with the newer one
    if (!may_refresh) return AfterUnauthorized::none;
    try {
      if (!c.token_file.empty()) {
        bearer_from_file_locked(true);
      } else if (m_use_exec) {
        exec_credential_locked(true);
      } else {
        return AfterUnauthorized::none; // static credentials: nothing new to try
      }
    } catch (const RuntimeError&) {
      return AfterUnauthorized::none; // client-go only logs a failed refresh; the 401 stands
    }
  }
  const AuthSnapshot fresh = current();
  const bool changed =
      fresh.authorization != used.authorization || fresh.client_certificate_pem != used.client_certificate_pem;
  return changed ? AfterUnauthorized::refreshed : AfterUnauthorized::none;
}

int CredentialProvider::exec_runs() const {
  std::lock_guard<std::mutex> lock(m_mutex);
  return m_exec_runs;
}

} // namespace gpuslice::kube
