// SPDX-License-Identifier: Apache-2.0
// A fluent request builder for driving fakekube::Api::handle directly in unit tests:
//   Call(api, "GET", "/api/v1/nodes").query("limit", "2").send()
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <fakekube/api.hpp>

namespace fakekube_test {

struct Reply {
  int status = 0;
  std::string content_type;
  std::string raw;
  nlohmann::json body; // parsed when the body is JSON, else null
  std::unique_ptr<fakekube::WatchStream> watch;
};

class Call {
public:
  Call(fakekube::Api& api, std::string method, std::string path) : m_api(api) {
    m_request.method = std::move(method);
    m_request.path = std::move(path);
    m_request.user_agent = "kubectl/v1.30.4 (linux/amd64) kubernetes/abcdef0";
    m_request.accept = "application/json";
    m_request.identity = {"admin", {"system:masters", "system:authenticated"}};
    // Api::handle takes the path without its query, as the HTTP server splits it: a
    // "?labelSelector=…" left in the path is a 404 Status whose missing "items" reads as an
    // empty list. So "path?k=v&k2=v2" (values not percent-encoded) becomes query parameters.
    const std::size_t question = m_request.path.find('?');
    if (question != std::string::npos) {
      const std::string query = m_request.path.substr(question + 1);
      m_request.path.resize(question);
      std::size_t start = 0;
      while (start < query.size()) {
        std::size_t end = query.find('&', start);
        if (end == std::string::npos) end = query.size();
        const std::string pair = query.substr(start, end - start);
        const std::size_t equals = pair.find('=');
        m_request.query.emplace(pair.substr(0, equals),
                                equals == std::string::npos ? std::string() : pair.substr(equals + 1));
        start = end + 1;
      }
    }
  }
  Call& query(const std::string& key, const std::string& value) {
    m_request.query.emplace(key, value);
    return *this;
  }
  Call& json(const nlohmann::json& body, std::string content_type = "application/json") {
    m_request.body = body.dump();
    m_request.content_type = std::move(content_type);
    return *this;
  }
  Call& text(std::string body, std::string content_type) {
    m_request.body = std::move(body);
    m_request.content_type = std::move(content_type);
    return *this;
  }
  Call& as(std::string user, std::vector<std::string> groups = {}) {
    m_request.identity = {std::move(user), std::move(groups)};
    return *this;
  }
  Call& accept(std::string accept) {
    m_request.accept = std::move(accept);
    return *this;
  }
  Call& user_agent(std::string agent) {
    m_request.user_agent = std::move(agent);
    return *this;
  }
  Reply send() {
    fakekube::ApiResult result = m_api.handle(m_request);
    Reply reply;
    reply.status = result.response.status;
    reply.content_type = result.response.content_type;
    reply.raw = result.response.body;
    reply.body = nlohmann::json::parse(reply.raw, nullptr, false);
    if (reply.body.is_discarded()) {
      reply.body = nullptr;
    }
    reply.watch = std::move(result.watch);
    return reply;
  }

private:
  fakekube::Api& m_api;
  fakekube::ApiRequest m_request;
};

inline nlohmann::json pod(const std::string& ns, const std::string& name,
                          nlohmann::json labels = nlohmann::json::object()) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}, {"namespace", ns}, {"labels", labels}}},
          {"spec", {{"containers", {{{"name", "main"}, {"image", "busybox"}}}}}}};
}

inline nlohmann::json node(const std::string& name,
                           nlohmann::json labels = nlohmann::json::object()) {
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata", {{"name", name}, {"labels", labels}}},
          {"spec", nlohmann::json::object()},
          {"status",
           {{"conditions", {{{"type", "Ready"}, {"status", "True"}}}},
            {"nodeInfo", {{"kubeletVersion", "v1.30.4"}}}}}};
}

} // namespace fakekube_test
