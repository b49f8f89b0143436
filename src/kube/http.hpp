// SPDX-License-Identifier: Apache-2.0
// The HTTPS transport (libcurl + OpenSSL): TLS from memory, SNI override, proxy, gzip,
// HTTP/2, timeouts, and a pool of easy handles sharing one connection cache.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpuslice::kube {

struct TlsSettings {
  std::string ca_pem; // empty = system roots
  bool insecure_skip_tls_verify = false;
  std::string tls_server_name; // verify and SNI against this name, connect to the URL's host
  std::string proxy_url;       // empty = HTTPS_PROXY/NO_PROXY from the environment
  bool disable_compression = false;
};

struct HttpRequest {
  std::string method;
  std::string url;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  std::string client_certificate_pem; // from memory, never a temp file
  std::string client_key_pem;
  std::chrono::milliseconds timeout{0}; // whole request; 0 = none
  // Set for streams (watch): called with each chunk of a 2xx body; return false to stop.
  std::function<bool(std::string_view)> on_data;
};

struct HttpResponse {
  int status = 0;
  std::vector<std::pair<std::string, std::string>> headers; // names lower-cased
  std::string body; // empty for a streamed 2xx body
  long http_version = 0; // 1, 2
  bool stopped = false;  // on_data asked to stop

  std::string header(const std::string& lower_name) const;
};

// No HTTP answer. kind tells the retry logic what happened.
class TransportFailure : public std::runtime_error {
public:
  enum class Kind { connect, tls, timeout, reset, other };
  TransportFailure(Kind failure_kind, const std::string& what)
      : std::runtime_error(what), kind(failure_kind) {}
  Kind kind;
};

class HttpTransport {
public:
  explicit HttpTransport(TlsSettings tls);
  ~HttpTransport();
  HttpTransport(const HttpTransport&) = delete;
  HttpTransport& operator=(const HttpTransport&) = delete;

  // Performs one request on a pooled handle; thread-safe. Throws TransportFailure.
  HttpResponse perform(const HttpRequest& request);

  struct Impl;

private:
  std::unique_ptr<Impl> m_impl;
};

// Gives a response body's room back for the next perform() on this thread, which writes its body
// into it. List pages are up to a few MB each: a fresh string for each would fault in every
// 4 KiB page anew (~8 µs each on a VM, a fifth of a live read's CPU at scenario L) and copy the
// body once per doubling. Room over 32 MiB (an unpaged list) is not kept.
void recycle_body(std::string&& body);

// client-go appends ?timeout=<Go duration> to each request: 30s, 1m0s, 1m30s, 500ms.
std::string go_duration(std::chrono::milliseconds duration);

} // namespace gpuslice::kube
