// SPDX-License-Identifier: Apache-2.0
// The HTTPS front of fakekube: TLS, authentication, transport faults and the request log
// around Api::handle.
#include <fakekube/server.hpp>

#include <chrono>
#include <stdexcept>
#include <thread>

#include <openssl/pem.h>
#include <openssl/ssl.h>

#include "auth.hpp"
#include "server_faults.hpp"
#include "server_impl.hpp"
#include "server_response.hpp"

namespace fakekube {
namespace {

// Handler threads: watches hold one each for their lifetime, so more than httplib's default.
constexpr std::size_t k_handler_threads = 32;

bool starts_with(const std::string& text, const std::string& prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

std::string raw_query(const std::string& target) {
  std::size_t mark = target.find('?');
  return mark == std::string::npos ? std::string() : target.substr(mark + 1);
}

Identity identity_of(const User& user) {
  Identity identity{user.name, user.groups};
  identity.groups.push_back("system:authenticated");
  return identity;
}

template <typename T, auto Reader>
T* read_pem(const std::string& pem) {
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  T* object = Reader(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  return object;
}

// Accept any client certificate during the handshake: token and basic users must connect
// without one, and a certificate we did not sign should get a 401 Status, not a TLS alert.
// Whether the chain verified is checked per request (certificate_identity).
int accept_any_certificate(int, X509_STORE_CTX*) { return 1; }

bool setup_tls(SSL_CTX& context, const CertificateAndKey& server, const std::string& ca_pem) {
  X509* cert = read_pem<X509, PEM_read_bio_X509>(server.cert_pem);
  EVP_PKEY* key = read_pem<EVP_PKEY, PEM_read_bio_PrivateKey>(server.key_pem);
  X509* ca = read_pem<X509, PEM_read_bio_X509>(ca_pem);
  bool ok = cert && key && ca && SSL_CTX_use_certificate(&context, cert) == 1 &&
            SSL_CTX_use_PrivateKey(&context, key) == 1 &&
            X509_STORE_add_cert(SSL_CTX_get_cert_store(&context), ca) == 1 &&
            SSL_CTX_add_client_CA(&context, ca) == 1;
  SSL_CTX_set_verify(&context, SSL_VERIFY_PEER, accept_any_certificate);
  X509_free(cert);
  EVP_PKEY_free(key);
  X509_free(ca);
  return ok;
}

} // namespace

std::optional<Identity> Server::Impl::authenticate(const httplib::Request& request) {
  if (std::optional<Identity> identity = certificate_identity(request.ssl)) return identity;
  std::string header = request.get_header_value("Authorization");
  std::lock_guard<std::mutex> lock(mutex);
  if (starts_with(header, "Basic ")) {
    const User* user = find_basic_user(users, header.substr(6));
    if (user == nullptr) return std::nullopt;
    return identity_of(*user);
  }
  if (!starts_with(header, "Bearer ")) return std::nullopt;
  std::string token = header.substr(7);
  if (expired_tokens.count(token)) return std::nullopt;
  User* user = const_cast<User*>(find_token_user(users, token));
  if (user == nullptr) return std::nullopt;
  if (faults.token_ttl_requests > 0 && ++token_uses[token] > faults.token_ttl_requests) {
    // The token has expired: refuse it from now on and issue the user a new one where a
    // client can find it (token files and exec scripts re-read on 401).
    expired_tokens.insert(token);
    if (user->token != k_eks_token_pattern) {
      user->token = user->name + "-rotated-" + std::to_string(++rotations);
      for (const std::filesystem::path& file : token_files[user->name])
        write_private_file(file, user->token + "\n");
    }
    return std::nullopt;
  }
  return identity_of(*user);
}

void Server::Impl::serve(const httplib::Request& request, httplib::Response& response) {
  // httplib compresses every JSON body (and buffers watch streams through the compressor)
  // when the client accepts gzip; the real server compresses only large bodies and never
  // plain watches, so take the decision here and hide the header from httplib. The request
  // object is a non-const local in httplib, so writing through the reference is defined.
  bool accepts_gzip = request.get_header_value("Accept-Encoding").find("gzip") != std::string::npos;
  const_cast<httplib::Request&>(request).headers.erase("Accept-Encoding");

  TransportFaults current;
  {
    std::lock_guard<std::mutex> lock(mutex);
    current = faults;
  }
  long n = ++request_count;
  LoggedRequest entry{request.method, request.path, raw_query(request.target),
                      request.get_header_value("Content-Type"), "", 0};
  if (current.latency_ms > 0)
    std::this_thread::sleep_for(std::chrono::milliseconds(current.latency_ms));

  ApiResponse answer;
  std::shared_ptr<WatchStream> watch;
  FaultAction action = FaultAction::none;
  std::optional<Identity> identity = authenticate(request);
  if (!identity) {
    answer.status = 401;
    answer.body = status_body(401, "Unauthorized", "Unauthorized");
  } else {
    entry.user = identity->user;
    action = fault_for(current, n);
    if (action == FaultAction::too_many_requests) {
      answer = too_many_requests_response(current);
    } else if (action == FaultAction::server_error) {
      answer = server_error_response(current);
    } else {
      ApiRequest api_request{request.method,
                             request.path,
                             {request.params.begin(), request.params.end()},
                             request.get_header_value("Content-Type"),
                             request.get_header_value("Accept"),
                             request.get_header_value("User-Agent"),
                             request.body,
                             *identity};
      try {
        ApiResult result = api.handle(api_request);
        answer = std::move(result.response);
        watch = std::move(result.watch);
      } catch (const std::exception& error) {
        answer = ApiResponse{};
        answer.status = 500;
        answer.body = status_body(500, "InternalError",
                                  std::string("Internal error occurred: ") + error.what());
      }
    }
  }
  // The apiserver's APF filter runs after authentication, so a 401 carries no PF headers.
  if (identity && priority_and_fairness) add_priority_and_fairness_headers(answer);
  entry.status = answer.status;
  if (listener) listener(entry);
  log.record(std::move(entry));
  if (watch)
    write_watch(answer, std::move(watch), response);
  else if (action == FaultAction::cut_off_body)
    write_cut_off(answer, response);
  else
    write_whole(answer, accepts_gzip, response);
}

Server::Server(Scenario scenario) : m_impl(std::make_unique<Impl>()) {
  Impl& impl = *m_impl;
  impl.ca = make_certificate_authority();
  impl.server_certificate = issue_server_certificate(impl.ca, scenario.certificate_fault);
  impl.users = scenario.users.empty() ? std::vector<User>{default_admin_user()} : scenario.users;
  for (const User& user : impl.users)
    if (user.client_certificate)
      impl.client_certificates[user.name] = issue_client_certificate(impl.ca, user.name, user.groups);
  impl.faults = scenario.transport_faults;
  impl.priority_and_fairness = scenario.priority_and_fairness;
  impl.api.set_server_version(scenario.server_version);
  impl.api.faults() = scenario.api_faults;
  impl.api.load(scenario.objects);
  impl.api.simulation().configure(scenario.simulation);
}

Server::~Server() { stop(); }

void Server::start(int port) {
  Impl& impl = *m_impl;
  if (impl.http) throw std::logic_error("fakekube: server already started");
  const CertificateAndKey& cert = impl.server_certificate;
  const std::string& ca = impl.ca.cert_pem;
  impl.http = std::make_unique<httplib::SSLServer>(
      [&cert, &ca](SSL_CTX& context) { return setup_tls(context, cert, ca); });
  if (!impl.http->is_valid()) throw std::runtime_error("fakekube: cannot set up TLS");
  impl.http->new_task_queue = [] { return new httplib::ThreadPool(k_handler_threads); };
  impl.http->set_keep_alive_timeout(2);
  // As Go's net/http (the API server's): without TCP_NODELAY, a response whose headers and body
  // go out in two writes waits ~40 ms for the client's delayed ACK (Nagle), on nearly every
  // small request — which is what per-object reads and writes at scale are made of.
  impl.http->set_tcp_nodelay(true);
  httplib::Server::Handler handler = [&impl](const httplib::Request& request,
                                             httplib::Response& response) {
    impl.serve(request, response);
  };
  impl.http->Get(".*", handler).Post(".*", handler).Put(".*", handler);
  impl.http->Patch(".*", handler).Delete(".*", handler);
  if (port == 0) {
    impl.port = impl.http->bind_to_any_port("127.0.0.1");
  } else {
    impl.port = impl.http->bind_to_port("127.0.0.1", port) ? port : -1;
  }
  if (impl.port <= 0) {
    impl.http.reset();
    impl.port = 0;
    throw std::runtime_error("fakekube: cannot listen on 127.0.0.1:" + std::to_string(port));
  }
  impl.thread = std::thread([&impl] { impl.http->listen_after_bind(); });
  // httplib's stop() does nothing until the listen loop runs, so a stop() right after start()
  // would leave the loop running and the join hanging: return only once it runs.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!impl.http->is_running() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  if (!impl.http->is_running()) throw std::runtime_error("fakekube: listen loop did not start");
}

void Server::stop() {
  Impl& impl = *m_impl;
  if (impl.http) impl.http->stop();
  if (impl.thread.joinable()) impl.thread.join();
  impl.http.reset();
}

std::string Server::url() const { return "https://127.0.0.1:" + std::to_string(m_impl->port); }

std::string Server::ca_pem() const { return m_impl->ca.cert_pem; }

Api& Server::api() { return m_impl->api; }

TransportFaults& Server::transport_faults() { return m_impl->faults; }

void Server::set_transport_faults(const TransportFaults& faults) {
  std::lock_guard<std::mutex> lock(m_impl->mutex);
  m_impl->faults = faults;
}

std::vector<User> Server::users() const {
  std::lock_guard<std::mutex> lock(m_impl->mutex);
  return m_impl->users;
}

int Server::port() const { return m_impl->port; }

std::vector<LoggedRequest> Server::request_log() const { return m_impl->log.entries(); }

void Server::clear_request_log() { m_impl->log.clear(); }

void Server::set_request_listener(std::function<void(const LoggedRequest&)> listener) {
  m_impl->listener = std::move(listener);
}

} // namespace fakekube
