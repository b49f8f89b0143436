// SPDX-License-Identifier: Apache-2.0
// ApiError: a failed request, from the server's metav1.Status or from the transport.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <gpuslice/error.hpp>

namespace gpuslice::kube {

struct StatusCause {
  std::string reason;
  std::string message;
  std::string field;
};

// metav1.Status.details; kind is the plural resource for NotFound/AlreadyExists/Conflict/Forbidden.
struct StatusDetails {
  std::string name;
  std::string group;
  std::string kind;
  std::vector<StatusCause> causes;
  std::optional<int> retry_after_seconds;
};

// A request that failed: http_code 0 means no HTTP answer (connection, TLS, timeout), and
// then reason says which ("ConnectionFailed", "TLSError", "Timeout"). Exit code 3.
class ApiError : public RuntimeError {
public:
  ApiError(std::string what, int http_code, std::string reason, std::string message,
           std::string verb, std::string path, StatusDetails details = {});

  int http_code;
  std::string reason;      // Status.reason, e.g. "NotFound", "Forbidden", "Expired"
  std::string message;     // Status.message, or synthesised from the code for plain-text bodies
  std::string verb;        // get list watch create update patch delete
  std::string path;        // URL path without query
  StatusDetails details;
  std::string continue_token; // Status.metadata.continue (410 Expired carries a fresh one)

  bool is_not_found() const { return http_code == 404; }
  bool is_conflict() const { return http_code == 409 && reason == "Conflict"; }
  bool is_already_exists() const { return http_code == 409 && reason == "AlreadyExists"; }
  bool is_forbidden() const { return http_code == 403; }
  bool is_expired() const { return http_code == 410; }
};

// Builds the ApiError for a non-2xx answer: parses a metav1.Status body, and for other bodies
// (plain text from APF's 429, proxies, HTML) synthesises the message from the code as
// client-go does. what() is one line naming the verb, the object and the server's message.
ApiError api_error_from_response(int http_code, const std::string& body, const std::string& verb,
                                 const std::string& path);

} // namespace gpuslice::kube
