// SPDX-License-Identifier: Apache-2.0
// Issue 8's "concurrent writer": a thread that, while a command runs, keeps patching the GPU
// nodes and GPU Deployments of a fakekube cluster with a label and an annotation that change
// no diagnosis, as fast as it can, so every list the command makes sees resourceVersions move.
#pragma once

#include <atomic>
#include <cstddef>
#include <string>
#include <stop_token>
#include <thread>
#include <utility>
#include <vector>

#include <fakekube/server.hpp>

namespace cli_test {

class ConcurrentWriter {
public:
  // `paths`: API paths of the objects to patch, e.g. /api/v1/nodes/<name>.
  ConcurrentWriter(fakekube::Api& api, std::vector<std::string> paths)
      : m_api(api), m_paths(std::move(paths)), m_thread([this](std::stop_token stop) { write_until(stop); }) {}
  ~ConcurrentWriter() { stop(); }
  ConcurrentWriter(const ConcurrentWriter&) = delete;
  ConcurrentWriter& operator=(const ConcurrentWriter&) = delete;

  // Patches the server accepted so far (200s only: a refused patch changed nothing).
  std::size_t writes() const { return m_writes.load(); }
  std::size_t refused() const { return m_refused.load(); }
  void stop() {
    m_thread.request_stop();
    if (m_thread.joinable()) m_thread.join();
  }

private:
  // Odd rounds add example.com/touched=<n> (label and annotation), even rounds remove them, so
  // the objects keep changing without drifting far from the scenario.
  void write_until(const std::stop_token& stop) {
    for (std::size_t round = 1; !stop.stop_requested(); ++round) {
      const std::string value = round % 2 == 1 ? "\"" + std::to_string(round) + "\"" : "null";
      const std::string body = R"({"metadata":{"labels":{"example.com/touched":)" + value +
                               R"(},"annotations":{"example.com/touched-by":)" + value + "}}}";
      for (const std::string& path : m_paths) {
        if (stop.stop_requested()) return;
        fakekube::ApiRequest request;
        request.method = "PATCH";
        request.path = path;
        request.content_type = "application/merge-patch+json";
        request.accept = "application/json";
        request.body = body;
        request.identity = {"concurrent-writer", {"system:masters"}};
        const int status = m_api.handle(request).response.status;
        (status == 200 ? m_writes : m_refused).fetch_add(1);
      }
    }
  }

  fakekube::Api& m_api;
  std::vector<std::string> m_paths;
  std::atomic<std::size_t> m_writes{0};
  std::atomic<std::size_t> m_refused{0};
  std::jthread m_thread; // last: started once the members it uses exist
};

} // namespace cli_test
