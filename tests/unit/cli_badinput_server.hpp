// SPDX-License-Identifier: Apache-2.0
// A hostile plain-HTTP "API server" for the bad-input table: every GET gets the same broken
// answer (not JSON, a proxy's HTML error page, a chunked body cut off, a huge header, a body
// that trickles in slower than --request-timeout). fakekube's fault knobs cannot produce these.
#pragma once

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include <httplib.h>

namespace badinput_test {

enum class BrokenAnswer { not_json, html_error_page, truncated_chunked, huge_header, slow_trickle };

class HostileServer {
public:
  explicit HostileServer(BrokenAnswer answer) : m_answer(answer) {
    m_server.Get(".*", [this](const httplib::Request&, httplib::Response& res) { answer_with(res); });
    m_port = m_server.bind_to_any_port("127.0.0.1");
    m_thread = std::thread([this] { m_server.listen_after_bind(); });
    while (!m_server.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ~HostileServer() {
    m_stopping = true;
    m_server.stop();
    m_thread.join();
  }
  HostileServer(const HostileServer&) = delete;
  HostileServer& operator=(const HostileServer&) = delete;

  std::string url() const { return "http://127.0.0.1:" + std::to_string(m_port); }

private:
  void answer_with(httplib::Response& res) {
    switch (m_answer) {
    case BrokenAnswer::not_json:
      res.set_content("hello, this is not JSON", "application/json");
      break;
    case BrokenAnswer::html_error_page:
      res.status = 502;
      res.set_content("<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1></body></html>",
                      "text/html");
      break;
    case BrokenAnswer::truncated_chunked:
      // The first chunk, then the connection closes without the terminating zero-size chunk.
      res.set_chunked_content_provider("application/json", [](std::size_t offset, httplib::DataSink& sink) {
        if (offset != 0) return false;
        const std::string start = R"({"kind":"NodeList","apiVersion":"v1","items":[{"metadata":)";
        sink.write(start.data(), start.size());
        return true;
      });
      break;
    case BrokenAnswer::huge_header:
      res.set_header("X-Padding", std::string(300 * 1024, 'a'));
      res.set_content(R"({"kind":"NodeList","apiVersion":"v1","items":[]})", "application/json");
      break;
    case BrokenAnswer::slow_trickle:
      // One byte every 100 ms for at most 5 s; stops as soon as the client has gone.
      res.set_chunked_content_provider("application/json", [this](std::size_t offset, httplib::DataSink& sink) {
        if (m_stopping || offset >= 50) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        return sink.write(" ", 1);
      });
      break;
    }
  }

  BrokenAnswer m_answer;
  httplib::Server m_server;
  std::thread m_thread;
  std::atomic<bool> m_stopping{false};
  int m_port = 0;
};

} // namespace badinput_test
