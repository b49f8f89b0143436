// SPDX-License-Identifier: Apache-2.0
// The only file that includes <curl/curl.h>.
#include "kube/http.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <mutex>

#include <curl/curl.h>
#include <fmt/format.h>

namespace gpuslice::kube {

namespace {

constexpr long k_connect_timeout_ms = 30'000; // client-go's dialer timeout

void global_init() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct UrlParts {
  std::string scheme;
  std::string host; // without brackets
  std::string port;
  std::string rest; // path and query, starting with '/'
  std::string authority; // as written
};

UrlParts split_url(const std::string& url) {
  UrlParts parts;
  const std::size_t scheme_end = url.find("://");
  parts.scheme = scheme_end == std::string::npos ? "https" : url.substr(0, scheme_end);
  const std::size_t start = scheme_end == std::string::npos ? 0 : scheme_end + 3;
  const std::size_t path = url.find('/', start);
  parts.authority = url.substr(start, path == std::string::npos ? std::string::npos : path - start);
  parts.rest = path == std::string::npos ? "/" : url.substr(path);
  std::string hostport = parts.authority;
  if (!hostport.empty() && hostport.front() == '[') {
    const std::size_t close = hostport.find(']');
    parts.host = hostport.substr(1, close - 1);
    if (close + 1 < hostport.size() && hostport[close + 1] == ':') {
      parts.port = hostport.substr(close + 2);
    }
  } else {
    const std::size_t colon = hostport.rfind(':');
    parts.host = hostport.substr(0, colon);
    if (colon != std::string::npos) {
      parts.port = hostport.substr(colon + 1);
    }
  }
  if (parts.port.empty()) {
    parts.port = parts.scheme == "http" ? "80" : "443";
  }
  return parts;
}

bool is_loopback(const std::string& host) {
  return host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

constexpr std::size_t k_most_body_room_kept = std::size_t{32} << 20;

// The room recycle_body() kept on this thread (empty, with capacity).
thread_local std::string t_spare_body; // NOLINT(cppcoreguidelines-avoid-non-const-global-variables)

std::string take_spare_body() {
  std::string body = std::move(t_spare_body);
  t_spare_body = std::string();
  body.clear();
  return body;
}

struct Transfer {
  const HttpRequest* request;
  HttpResponse* response;
  CURL* handle;
};

size_t on_header(char* data, size_t size, size_t count, void* user) {
  Transfer& t = *static_cast<Transfer*>(user);
  std::string line(data, size * count);
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) {
    line.pop_back();
  }
  if (line.rfind("HTTP/", 0) == 0) {
    t.response->headers.clear(); // a new response (after 100 Continue or a proxy CONNECT)
    return size * count;
  }
  const std::size_t colon = line.find(':');
  if (colon != std::string::npos) {
    std::string name = line.substr(0, colon);
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
    std::string value = line.substr(colon + 1);
    value.erase(0, value.find_first_not_of(' '));
    t.response->headers.emplace_back(std::move(name), std::move(value));
  }
  return size * count;
}

size_t on_body(char* data, size_t size, size_t count, void* user) {
  Transfer& t = *static_cast<Transfer*>(user);
  const std::size_t bytes = size * count;
  long code = 0;
  curl_easy_getinfo(t.handle, CURLINFO_RESPONSE_CODE, &code);
  if (t.request->on_data && code >= 200 && code < 300) {
    if (!t.request->on_data(std::string_view(data, bytes))) {
      t.response->stopped = true;
      return 0; // aborts the transfer with CURLE_WRITE_ERROR
    }
    return bytes;
  }
  t.response->body.append(data, bytes);
  return bytes;
}

TransportFailure failure_for(CURLcode code, const char* error_text, const std::string& url) {
  const std::string detail = error_text[0] != '\0' ? error_text : curl_easy_strerror(code);
  using Kind = TransportFailure::Kind;
  switch (code) {
  case CURLE_SSL_CACERT_BADFILE:
    return {Kind::tls, fmt::format("Unable to connect to the server {}: TLS: {} (the certificate authority of the "
                                   "kubeconfig or --certificate-authority is not a PEM certificate)",
                                   url, detail)};
  case CURLE_PEER_FAILED_VERIFICATION:
  case CURLE_SSL_CONNECT_ERROR:
  case CURLE_SSL_CERTPROBLEM:
  case CURLE_SSL_CIPHER:
  case CURLE_SSL_ISSUER_ERROR:
  case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    return {Kind::tls, fmt::format("Unable to connect to the server {}: TLS: {}", url, detail)};
  case CURLE_COULDNT_RESOLVE_HOST:
  case CURLE_COULDNT_RESOLVE_PROXY:
  case CURLE_COULDNT_CONNECT:
    return {Kind::connect, fmt::format("The connection to the server {} was refused or unreachable - did you "
                                       "specify the right host or port? ({})",
                                       url, detail)};
  case CURLE_OPERATION_TIMEDOUT:
    return {Kind::timeout, fmt::format("Unable to connect to the server {}: timeout ({})", url, detail)};
  case CURLE_GOT_NOTHING:
  case CURLE_RECV_ERROR:
  case CURLE_SEND_ERROR:
  case CURLE_PARTIAL_FILE:
  case CURLE_HTTP2:
  case CURLE_HTTP2_STREAM:
    return {Kind::reset, fmt::format("connection to {} was reset or closed early: {}", url, detail)};
  case CURLE_OUT_OF_MEMORY: // what curl before 8.6 reports for a response header over its limit
    return {Kind::other, fmt::format("request to {} failed: the answer has a response header larger than "
                                     "curl's 100 KB limit, or memory ran out ({})",
                                     url, detail)};
  default:
    return {Kind::other, fmt::format("request to {} failed: {}", url, detail)};
  }
}

void set_blob(CURL* handle, CURLoption option, const std::string& bytes) {
  curl_blob blob{const_cast<char*>(bytes.data()), bytes.size(), CURL_BLOB_COPY};
  curl_easy_setopt(handle, option, &blob);
}

} // namespace

std::string HttpResponse::header(const std::string& lower_name) const {
  for (const auto& [name, value] : headers) {
    if (name == lower_name) {
      return value;
    }
  }
  return {};
}

struct HttpTransport::Impl {
  TlsSettings tls;
  CURLSH* share = nullptr;
  std::array<std::mutex, CURL_LOCK_DATA_LAST> share_locks;
  std::mutex pool_mutex;
  std::vector<CURL*> idle; // handles keep their connections and TLS sessions between requests

  CURL* borrow() {
    {
      std::lock_guard<std::mutex> lock(pool_mutex);
      if (!idle.empty()) {
        CURL* handle = idle.back();
        idle.pop_back();
        return handle;
      }
    }
    CURL* handle = curl_easy_init();
    if (handle == nullptr) {
      throw TransportFailure(TransportFailure::Kind::other, "cannot create a curl handle");
    }
    return handle;
  }

  void give_back(CURL* handle) {
    std::lock_guard<std::mutex> lock(pool_mutex);
    idle.push_back(handle);
  }

  void configure(CURL* h, const HttpRequest& request, curl_slist*& header_list, curl_slist*& connect_to,
                 char* error_text);
};

void HttpTransport::Impl::configure(CURL* h, const HttpRequest& request, curl_slist*& header_list,
                                    curl_slist*& connect_to, char* error_text) {
  curl_easy_reset(h);
  curl_easy_setopt(h, CURLOPT_SHARE, share);
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, error_text);
  curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
  // No TLS session resumption: fakekube's (cpp-httplib) server answers a resumed handshake
  // with an internal-error alert. Connections are reused, so full handshakes stay rare.
  curl_easy_setopt(h, CURLOPT_SSL_SESSIONID_CACHE, 0L);
  curl_easy_setopt(h, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_2TLS));
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, k_connect_timeout_ms);
  curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(request.timeout.count()));
  if (!tls.disable_compression) {
    curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "gzip");
  }

  const UrlParts url = split_url(request.url);
  std::string effective_url = request.url;
  if (!tls.tls_server_name.empty()) {
    // Ask for the certificate's name, so SNI and verification use it, and let CONNECT_TO send
    // the connection to the real address; the Host header keeps the address the user gave.
    effective_url = fmt::format("{}://{}:{}{}", url.scheme, tls.tls_server_name, url.port, url.rest);
    const std::string target = url.host.find(':') != std::string::npos ? "[" + url.host + "]" : url.host;
    connect_to = curl_slist_append(connect_to, fmt::format("{}:{}:{}:{}", tls.tls_server_name, url.port,
                                                           target, url.port).c_str());
    curl_easy_setopt(h, CURLOPT_CONNECT_TO, connect_to);
    header_list = curl_slist_append(header_list, ("Host: " + url.authority).c_str());
  }
  curl_easy_setopt(h, CURLOPT_URL, effective_url.c_str());

  if (!tls.proxy_url.empty()) {
    curl_easy_setopt(h, CURLOPT_PROXY, tls.proxy_url.c_str());
    curl_easy_setopt(h, CURLOPT_NOPROXY, "");
  } else if (is_loopback(url.host)) {
    curl_easy_setopt(h, CURLOPT_PROXY, ""); // Go's ProxyFromEnvironment never proxies loopback
  }

  if (tls.insecure_skip_tls_verify) {
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 0L);
  } else {
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 1L);
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 2L);
    if (!tls.ca_pem.empty()) {
      // Only the configured CA is trusted, as client-go builds its root pool from it alone.
      curl_easy_setopt(h, CURLOPT_CAINFO, nullptr);
      curl_easy_setopt(h, CURLOPT_CAPATH, nullptr);
      set_blob(h, CURLOPT_CAINFO_BLOB, tls.ca_pem);
    }
  }
  if (!request.client_certificate_pem.empty()) {
    set_blob(h, CURLOPT_SSLCERT_BLOB, request.client_certificate_pem);
    curl_easy_setopt(h, CURLOPT_SSLCERTTYPE, "PEM");
    set_blob(h, CURLOPT_SSLKEY_BLOB, request.client_key_pem);
    curl_easy_setopt(h, CURLOPT_SSLKEYTYPE, "PEM");
  }

  for (const auto& [name, value] : request.headers) {
    header_list = curl_slist_append(header_list, (name + ": " + value).c_str());
  }
  header_list = curl_slist_append(header_list, "Expect:"); // no 100-continue round trip
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, header_list);

  if (request.method == "GET") {
    curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
  } else {
    if (request.method != "POST") {
      curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, request.method.c_str());
    }
    curl_easy_setopt(h, CURLOPT_POST, 1L);
    curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, request.body.data());
  }
}

HttpTransport::HttpTransport(TlsSettings tls) : m_impl(std::make_unique<Impl>()) {
  global_init();
  m_impl->tls = std::move(tls);
  m_impl->share = curl_share_init();
  curl_share_setopt(m_impl->share, CURLSHOPT_LOCKFUNC,
                    +[](CURL*, curl_lock_data data, curl_lock_access, void* user) {
                      static_cast<Impl*>(user)->share_locks[static_cast<std::size_t>(data)].lock();
                    });
  curl_share_setopt(m_impl->share, CURLSHOPT_UNLOCKFUNC, +[](CURL*, curl_lock_data data, void* user) {
    static_cast<Impl*>(user)->share_locks[static_cast<std::size_t>(data)].unlock();
  });
  curl_share_setopt(m_impl->share, CURLSHOPT_USERDATA, m_impl.get());
  // Only the DNS cache is shared. libcurl does not support sharing the connection cache
  // (CURL_LOCK_DATA_CONNECT) between concurrent threads (CURLSHOPT_SHARE(3)), and the 8 list
  // threads did; each pooled handle keeps its own connection instead.
  curl_share_setopt(m_impl->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
}

HttpTransport::~HttpTransport() {
  for (CURL* handle : m_impl->idle) {
    curl_easy_cleanup(handle);
  }
  curl_share_cleanup(m_impl->share);
}

HttpResponse HttpTransport::perform(const HttpRequest& request) {
  CURL* handle = m_impl->borrow();
  HttpResponse response;
  response.body = take_spare_body();
  Transfer transfer{&request, &response, handle};
  curl_slist* header_list = nullptr;
  curl_slist* connect_to = nullptr;
  char error_text[CURL_ERROR_SIZE] = {0};
  m_impl->configure(handle, request, header_list, connect_to, error_text);
  curl_easy_setopt(handle, CURLOPT_HEADERFUNCTION, &on_header);
  curl_easy_setopt(handle, CURLOPT_HEADERDATA, &transfer);
  curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, &on_body);
  curl_easy_setopt(handle, CURLOPT_WRITEDATA, &transfer);
  const CURLcode code = curl_easy_perform(handle);
  long status = 0;
  long version = 0;
  curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &status);
  curl_easy_getinfo(handle, CURLINFO_HTTP_VERSION, &version);
  curl_easy_setopt(handle, CURLOPT_ERRORBUFFER, nullptr);
  curl_slist_free_all(header_list);
  curl_slist_free_all(connect_to);
  m_impl->give_back(handle);
  response.status = static_cast<int>(status);
  response.http_version = version == CURL_HTTP_VERSION_2_0 ? 2 : 1;
  if (code != CURLE_OK && !(code == CURLE_WRITE_ERROR && response.stopped)) {
    // A stream that ends early after a 2xx is still a failure of that stream.
    throw failure_for(code, error_text, request.url);
  }
  return response;
}

void recycle_body(std::string&& body) {
  if (body.capacity() > t_spare_body.capacity() && body.capacity() <= k_most_body_room_kept) {
    t_spare_body = std::move(body);
  }
}

std::string go_duration(std::chrono::milliseconds duration) {
  long long ms = duration.count();
  if (ms < 1000) {
    return fmt::format("{}ms", ms);
  }
  const long long hours = ms / 3'600'000;
  ms %= 3'600'000;
  const long long minutes = ms / 60'000;
  ms %= 60'000;
  std::string seconds = ms % 1000 == 0 ? fmt::format("{}s", ms / 1000)
                                       : fmt::format("{}.{:03}s", ms / 1000, ms % 1000);
  while (seconds.find('.') != std::string::npos && seconds[seconds.size() - 2] == '0') {
    seconds.erase(seconds.size() - 2, 1); // Go prints 1.5s, not 1.500s
  }
  if (hours > 0) {
    return fmt::format("{}h{}m{}", hours, minutes, seconds);
  }
  if (minutes > 0) {
    return fmt::format("{}m{}", minutes, seconds);
  }
  return seconds;
}

} // namespace gpuslice::kube
