// SPDX-License-Identifier: Apache-2.0
// fakekube's HTTPS server: TLS with a CA generated at start, authentication (bearer token,
// client certificate, basic), transport faults, a request log, and kubeconfig files for its
// users. Everything API-shaped is delegated to Api.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <fakekube/api.hpp>

namespace fakekube {

// A user the server accepts, and how.
struct User {
  std::string name;
  std::vector<std::string> groups;
  std::string token;    // bearer token; empty = none
  std::string password; // basic auth; empty = none
  bool client_certificate = false; // the server issues a client cert (CN=name, O=groups)
};

// Transport faults, switchable per scenario and at run time.
struct TransportFaults {
  int latency_ms = 0;            // added before every response
  int too_many_every_nth = 0;    // every Nth request answers 429 with Retry-After
  int retry_after_seconds = 1;
  int server_error_every_nth = 0; // every Nth request answers 500 (or 503 when below is set)
  bool server_error_is_503 = false;
  int drop_mid_body_every_nth = 0; // every Nth response is cut off mid-body
  int token_ttl_requests = 0;      // a token is refused (401) after N requests until re-issued
};

// One served request, for tests to assert on (e.g. a dry run sent no mutation).
struct LoggedRequest {
  std::string method;
  std::string path;
  std::string query; // raw query string
  std::string content_type;
  std::string user;
  int status = 0;
};

// What is wrong with the server certificate, for clients' TLS failure tests.
enum class CertificateFault {
  none,
  expired,    // notAfter is yesterday
  wrong_host, // the only name is DNS:wrong-host.invalid (not 127.0.0.1 or localhost)
};

// A scenario file: objects (kubectl List or multi-document YAML) plus fakekube settings.
// The file format is described in tests/fixtures/scenarios/README.md and scenario.cpp.
struct Scenario {
  nlohmann::json objects = nlohmann::json::array();
  std::vector<User> users; // empty: the server adds default_admin_user()
  TransportFaults transport_faults;
  ApiFaults api_faults;
  std::string server_version = "v1.30.4";
  CertificateFault certificate_fault = CertificateFault::none;
  SimulationSettings simulation; // `simulation:`; inert until the simulation is ticked
  // As a real server with API Priority and Fairness (on by default since 1.20): every
  // authenticated response names its FlowSchema and priority level in X-Kubernetes-PF-*
  // headers. false: a server without APF, which sends neither.
  bool priority_and_fairness = true;
};

// Reads a scenario from a .json or .yaml file; throws std::runtime_error naming the file.
Scenario load_scenario(const std::filesystem::path& path);

// Parses scenario text (JSON, or YAML with one or more documents); `origin` names the source
// in errors. Throws std::runtime_error("<origin>: <what>") on bad input.
Scenario parse_scenario(const std::string& text, const std::string& origin);

// The user a scenario without users gets: "admin" in group system:masters, with a random
// token and password and a client certificate.
User default_admin_user();

// How a written kubeconfig carries the user's credentials.
enum class KubeconfigAuth { token, token_file, client_cert_files, client_cert_data, basic, exec };

class Server {
public:
  explicit Server(Scenario scenario);
  ~Server(); // stops the server
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Starts serving on 127.0.0.1:port (0 = ephemeral) in background threads.
  void start(int port = 0);
  void stop();

  std::string url() const;    // https://127.0.0.1:<port>
  std::string ca_pem() const; // the CA that signed the server certificate

  // Writes a kubeconfig for `user` (mode 0600) and returns its path. Files the auth mode needs
  // (token file, cert/key files, exec script) are written beside it.
  std::filesystem::path write_kubeconfig(const std::filesystem::path& path,
                                         const std::string& user, KubeconfigAuth auth) const;

  Api& api();
  // Change at run time; applies to the next request. The reference form is for setup before
  // requests are in flight; set_transport_faults is safe while requests are being served.
  TransportFaults& transport_faults();
  void set_transport_faults(const TransportFaults& faults);
  // The users the server accepts, with their current tokens (a token expired by
  // token_ttl_requests is replaced by a new one, and token files/exec scripts are rewritten).
  std::vector<User> users() const;
  int port() const; // 0 before start()
  std::vector<LoggedRequest> request_log() const;
  void clear_request_log();
  // Calls `listener` for every request once it is logged and before its response is sent, so
  // a client holding its answer finds the request in whatever the listener wrote. Set before
  // start(); called from handler threads concurrently.
  void set_request_listener(std::function<void(const LoggedRequest&)> listener);

private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

} // namespace fakekube
