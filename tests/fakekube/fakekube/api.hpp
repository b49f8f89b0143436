// SPDX-License-Identifier: Apache-2.0
// fakekube's API layer: an in-memory Kubernetes API (store, discovery, verbs, selectors,
// paging, watch, patch, RBAC) behind one transport-free entry point, Api::handle. The HTTPS
// server (server.hpp) authenticates the caller and hands each request here.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <fakekube/simulation.hpp>

namespace fakekube {

// Who is calling, as the authenticator established it.
struct Identity {
  std::string user;
  std::vector<std::string> groups; // "system:masters" is allowed everything, as in Kubernetes
};

struct ApiRequest {
  std::string method;                            // GET POST PUT PATCH DELETE
  std::string path;                              // decoded URL path, no query
  std::multimap<std::string, std::string> query; // decoded query parameters
  std::string content_type;                      // body media type (PATCH types, JSON, YAML, protobuf)
  std::string accept;                            // Accept header as sent
  std::string user_agent;
  std::string body;
  Identity identity;
};

struct ApiResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers; // extra headers, e.g. Retry-After
};

// An open watch: newline-terminated JSON event lines ({"type":…,"object":…}\n).
class WatchStream {
public:
  virtual ~WatchStream() = default;
  // The next event line, waiting up to `wait`; nullopt when none arrived in time.
  virtual std::optional<std::string> next(std::chrono::milliseconds wait) = 0;
  // True once the stream has ended (timeoutSeconds reached, ERROR event sent, Api destroyed).
  virtual bool finished() const = 0;
};

// The answer to a request: a response, plus a stream for a successful watch.
struct ApiResult {
  ApiResponse response;
  std::unique_ptr<WatchStream> watch;
};

// API-level faults a test can switch on at run time (transport faults live in the server).
struct ApiFaults {
  bool conflict_on_first_update = false; // first PUT/PATCH of each object answers 409 Conflict
  bool expire_continue_tokens = false;   // every continue token answers 410 Expired
};

class Api {
public:
  Api();
  ~Api();
  Api(const Api&) = delete;
  Api& operator=(const Api&) = delete;

  // Stores objects as an admin create would (a kubectl List, an array, or one object).
  // CustomResourceDefinitions register their resources in discovery. Throws on bad input.
  // Given uid, creationTimestamp and status are kept; missing namespaces are created; an
  // object that already exists (e.g. the bootstrap "default" namespace) is replaced.
  void load(const nlohmann::json& objects);

  // The version /version reports, e.g. "v1.30.4".
  void set_server_version(const std::string& git_version);

  // Serves one request. Authorization is RBAC evaluated over the stored Roles, ClusterRoles
  // and their bindings (system:masters bypasses it). Thread-safe.
  ApiResult handle(const ApiRequest& request);

  ApiFaults& faults();

  // The cluster simulation over this API's store (simulation.hpp); idle until ticked.
  Simulation& simulation();

private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

} // namespace fakekube
