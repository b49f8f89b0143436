// SPDX-License-Identifier: Apache-2.0
// Client internals shared by the verb, list/watch and request files.
#pragma once

#include <mutex>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include <gpuslice/kube/client.hpp>

#include "kube/credentials.hpp"
#include "kube/http.hpp"
#include "kube/rate_limiter.hpp"

namespace gpuslice::kube {

using Query = std::vector<std::pair<std::string, std::string>>;

// One REST call before credentials, retries and logging are added.
struct RestRequest {
  std::string verb;   // for messages: get list watch create update patch delete
  std::string method; // GET POST PUT PATCH DELETE
  std::string path;
  Query query;
  std::string body;
  std::string content_type;
  std::function<bool(std::string_view)> on_data; // watch streams
  bool is_watch = false;
};

// -v logging to a stream, one writer at a time.
class RequestLog {
public:
  RequestLog(int verbosity, std::ostream* out) : m_verbosity(verbosity), m_out(out) {}
  bool enabled(int level) const { return m_out != nullptr && m_verbosity >= level; }
  int verbosity() const { return m_verbosity; }
  void write(const std::string& text);

private:
  int m_verbosity;
  std::ostream* m_out;
  std::mutex m_mutex;
};

struct Client::Impl {
  Impl(ClusterEndpoint cluster, ClientOptions client_options);

  // Sends with credentials, rate limiting, retries (429/5xx with Retry-After; resets on GET),
  // one retry after a 401 that refreshed the credential; logs per -v. Returns a 2xx response
  // or throws ApiError.
  HttpResponse execute(const RestRequest& request);

  std::string url_for(const RestRequest& request) const;

  ClusterEndpoint endpoint;
  ClientOptions options;
  Clock& clock;
  RequestLog log;
  RateLimiter limiter;      // writes
  RateLimiter read_limiter; // GETs
  CredentialProvider credentials;
  HttpTransport transport;
  std::string user_agent;
};

// Percent-encodes a query component (RFC 3986 unreserved characters stay).
std::string url_encode(const std::string& text);

} // namespace gpuslice::kube
