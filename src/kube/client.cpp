// SPDX-License-Identifier: Apache-2.0
// Sending one REST request: credentials, rate limit, retries, -v logging (client-go rest/request.go).
#include <cctype>

#include <fmt/format.h>

#include <gpuslice/error.hpp>
#include <gpuslice/kube/api_error.hpp>
#include <gpuslice/version.hpp>

#include "kube/client_impl.hpp"
#include "kube/redact.hpp"

namespace gpuslice::kube {

namespace {

// Refreshes of the credential one request may make after 401s (each must yield a different
// credential; a real rejection stops at the first refresh that yields the same one).
constexpr int k_refreshes_per_request = 3;
// Retries after 401s in all: past the refreshes above, each follows another request's refresh
// or answer, so only a server that answers some requests and refuses the rest gets this far.
constexpr int k_unauthorized_retries = 100;

const char* reason_phrase(int code) {
  switch (code) {
  case 200: return "OK";
  case 201: return "Created";
  case 202: return "Accepted";
  case 400: return "Bad Request";
  case 401: return "Unauthorized";
  case 403: return "Forbidden";
  case 404: return "Not Found";
  case 405: return "Method Not Allowed";
  case 409: return "Conflict";
  case 410: return "Gone";
  case 415: return "Unsupported Media Type";
  case 422: return "Unprocessable Entity";
  case 429: return "Too Many Requests";
  case 500: return "Internal Server Error";
  case 502: return "Bad Gateway";
  case 503: return "Service Unavailable";
  case 504: return "Gateway Timeout";
  default: return "";
  }
}

// Retry-After in whole seconds; HTTP-date forms are ignored, as client-go ignores them.
std::optional<int> retry_after_seconds(const HttpResponse& response) {
  const std::string value = response.header("retry-after");
  if (value.empty() || value.size() > 6 ||
      !std::all_of(value.begin(), value.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
    return std::nullopt;
  }
  return std::stoi(value);
}

// A server enforcing API Priority and Fairness names the FlowSchema and priority level that
// classified the request on every response (Kubernetes docs, "Flow control": Diagnostics).
bool server_enforces_apf(const HttpResponse& response) {
  return !response.header("x-kubernetes-pf-flowschema-uid").empty() ||
         !response.header("x-kubernetes-pf-prioritylevel-uid").empty();
}

std::size_t body_limit(int verbosity) {
  if (verbosity >= 10) {
    return 0;
  }
  return verbosity >= 9 ? 10240 : 1024;
}

// A body as -v 8 may log it: Secrets (and Helm releases, which are Secrets) only by size, at
// every level, so no Secret value reaches a log; anything else cut to the level's limit.
std::string loggable_body(const std::string& path, const std::string& body, int verbosity) {
  if (path.find("/secrets") != std::string::npos) return fmt::format("<{} bytes of Secret data, not shown>", body.size());
  return truncate_body(body, body_limit(verbosity));
}

std::string normalize_server(std::string server) {
  if (server.find("://") == std::string::npos) {
    server = "https://" + server; // kubectl accepts host:port and assumes https
  }
  while (server.size() > 8 && server.back() == '/') {
    server.pop_back();
  }
  return server;
}

ClusterEndpoint checked(ClusterEndpoint endpoint) {
  endpoint.server = normalize_server(endpoint.server);
  if (endpoint.server.rfind("https://", 0) != 0 && endpoint.server.rfind("http://", 0) != 0) {
    throw UsageError(fmt::format("server \"{}\": only http:// and https:// are supported", endpoint.server));
  }
  if (const std::optional<ExecConfig>& exec = endpoint.credentials.exec; exec) {
    if (exec->api_version != "client.authentication.k8s.io/v1" &&
        exec->api_version != "client.authentication.k8s.io/v1beta1") {
      throw UsageError(fmt::format("user \"{}\": exec plugin: invalid apiVersion \"{}\"", endpoint.user_name,
                                   exec->api_version));
    }
  }
  return endpoint;
}

} // namespace

std::string default_user_agent() {
#if defined(__aarch64__)
  const char* arch = "arm64";
#elif defined(__x86_64__)
  const char* arch = "amd64";
#else
  const char* arch = "unknown";
#endif
  return fmt::format("kubectl-gpuslice/{} (linux/{})", k_version, arch);
}

std::string url_encode(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out += fmt::format("%{:02X}", c);
    }
  }
  return out;
}

void RequestLog::write(const std::string& text) {
  std::lock_guard<std::mutex> lock(m_mutex);
  *m_out << text << '\n';
  m_out->flush();
}

Client::Impl::Impl(ClusterEndpoint cluster, ClientOptions client_options)
    : endpoint(checked(std::move(cluster))), options(std::move(client_options)),
      clock(options.clock != nullptr ? *options.clock : system_clock()), log(options.verbosity, options.log),
      limiter(options.qps, options.burst, clock), read_limiter(options.read_qps, options.read_burst, clock),
      credentials(endpoint, options.processes != nullptr ? *options.processes : system_process_runner(),
                  options.files != nullptr ? *options.files : system_file_reader(), clock, options.stdin_is_tty),
      transport(TlsSettings{endpoint.ca_pem, endpoint.insecure_skip_tls_verify, endpoint.tls_server_name,
                            endpoint.proxy_url, endpoint.disable_compression}),
      user_agent(options.user_agent.empty() ? default_user_agent() : options.user_agent) {}

std::string Client::Impl::url_for(const RestRequest& request) const {
  std::string url = endpoint.server + request.path;
  Query query = request.query;
  if (endpoint.request_timeout.count() > 0 && !request.is_watch) {
    query.emplace_back("timeout", go_duration(endpoint.request_timeout));
  }
  char separator = '?';
  for (const auto& [name, value] : query) {
    url += separator + url_encode(name) + "=" + url_encode(value);
    separator = '&';
  }
  return url;
}

HttpResponse Client::Impl::execute(const RestRequest& request) {
  const std::string url = url_for(request);
  int own_refreshes = 0;
  int unauthorized_retries = 0;
  std::uint64_t answered_at_last_401 = credentials.accepted_count();
  for (int attempt = 0;; ++attempt) {
    const std::chrono::milliseconds throttled = (request.method == "GET" ? read_limiter : limiter).acquire();
    if (throttled.count() > 50 && log.enabled(3)) {
      log.write(fmt::format("Waited for {}ms due to client-side throttling, not priority and fairness, request: {}:{}",
                            throttled.count(), request.method, url));
    }
    const AuthSnapshot auth = credentials.current();
    HttpRequest http;
    http.method = request.method;
    http.url = url;
    http.body = request.body;
    http.on_data = request.on_data;
    http.timeout = request.is_watch ? std::chrono::milliseconds{0} : endpoint.request_timeout;
    http.client_certificate_pem = auth.client_certificate_pem;
    http.client_key_pem = auth.client_key_pem;
    http.headers.emplace_back("Accept", "application/json");
    http.headers.emplace_back("User-Agent", user_agent);
    if (!request.content_type.empty()) {
      http.headers.emplace_back("Content-Type", request.content_type);
    }
    if (!auth.authorization.empty()) {
      http.headers.emplace_back("Authorization", auth.authorization);
    }
    if (!endpoint.credentials.as_user.empty()) {
      http.headers.emplace_back("Impersonate-User", endpoint.credentials.as_user);
      for (const std::string& group : endpoint.credentials.as_groups) {
        http.headers.emplace_back("Impersonate-Group", group);
      }
    }
    if (log.enabled(7)) {
      std::string lines = fmt::format("{} {}\nRequest Headers:", request.method, url);
      for (const auto& [name, value] : http.headers) {
        lines += "\n    " + redact_header(name, value);
      }
      log.write(lines);
    }
    if (log.enabled(8) && !request.body.empty()) {
      log.write("Request Body: " + loggable_body(request.path, request.body, log.verbosity()));
    }

    const std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
    HttpResponse response;
    try {
      response = transport.perform(http);
    } catch (const TransportFailure& failure) {
      // Only a GET is safe to resend after the connection broke: the server may have acted
      // on anything else. client-go retries these with a synthetic Retry-After of 1 s.
      if (failure.kind == TransportFailure::Kind::reset && request.method == "GET" && !request.is_watch &&
          attempt < options.max_retries) {
        if (log.enabled(6)) {
          log.write(fmt::format("{} {} failed ({}); retrying in 1s", request.method, url, failure.what()));
        }
        clock.sleep_for(std::chrono::seconds{1});
        continue;
      }
      const char* reason = failure.kind == TransportFailure::Kind::tls       ? "TLSError"
                           : failure.kind == TransportFailure::Kind::timeout ? "Timeout"
                                                                             : "ConnectionFailed";
      throw ApiError(failure.what(), 0, reason, failure.what(), request.verb, request.path);
    }
    const long long elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
                                  std::chrono::steady_clock::now() - started).count();
    if (log.enabled(6)) {
      log.write(fmt::format("{} {} {} {} in {} milliseconds", request.method, url, response.status,
                            reason_phrase(response.status), elapsed));
    }
    if (log.enabled(8)) {
      std::string lines = "Response Headers:";
      for (const auto& [name, value] : response.headers) {
        lines += "\n    " + redact_header(name, value);
      }
      log.write(lines);
      if (!response.body.empty()) {
        log.write("Response Body: " + loggable_body(request.path, response.body, log.verbosity()));
      }
    }
    if (options.read_limit_yields_to_apf && server_enforces_apf(response) && read_limiter.lift() &&
        log.enabled(4)) {
      log.write("The server enforces API Priority and Fairness: client-side rate limit for GETs lifted");
    }
    if (response.status != 401) credentials.accepted();
    if (response.status >= 200 && response.status < 300) {
      return response;
    }
    // A 401 earns a retry with a different credential: whenever another request has already
    // refreshed it, or some request was answered since this one's last 401 (the credentials
    // work and this one expired); else after refreshing it here, at most
    // k_refreshes_per_request times. With 8 requests in flight a short-lived token can be used
    // up by the others between this request's refresh and its retry, again and again for a
    // thread the machine starves; a fixed number of refreshes then failed now and again.
    if (response.status == 401 && unauthorized_retries < k_unauthorized_retries) {
      using Next = CredentialProvider::AfterUnauthorized;
      const std::uint64_t answered = credentials.accepted_count();
      const bool others_answered = answered != answered_at_last_401;
      answered_at_last_401 = answered;
      const Next next = credentials.after_unauthorized(auth, others_answered || own_refreshes < k_refreshes_per_request);
      if (next != Next::none) {
        if (next == Next::refreshed && !others_answered) ++own_refreshes;
        ++unauthorized_retries;
        continue;
      }
    }
    const std::optional<int> retry_after = retry_after_seconds(response);
    if ((response.status == 429 || response.status >= 500) && retry_after && attempt < options.max_retries) {
      const std::chrono::seconds wait = std::min(std::chrono::seconds{*retry_after}, options.max_retry_after);
      if (log.enabled(6)) {
        log.write(fmt::format("Got a Retry-After {}s response for attempt {} to {}", *retry_after, attempt + 1, url));
      }
      clock.sleep_for(wait);
      continue;
    }
    throw api_error_from_response(response.status, response.body, request.verb, request.path);
  }
}

Client::Client(ClusterEndpoint endpoint, ClientOptions options)
    : m_impl(std::make_unique<Impl>(std::move(endpoint), std::move(options))) {}

Client::~Client() = default;

const ClusterEndpoint& Client::endpoint() const {
  return m_impl->endpoint;
}

} // namespace gpuslice::kube
