// SPDX-License-Identifier: Apache-2.0
// Non-2xx answers → ApiError: metav1.Status when the body is one, else client-go's synthesised
// message for the code (apimachinery errors.go NewGenericServerResponse).
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <gpuslice/kube/api_error.hpp>

namespace gpuslice::kube {

namespace {

struct Generic {
  const char* reason;
  const char* message;
};

Generic generic_for(int code) {
  switch (code) {
  case 400: return {"BadRequest", "the server rejected our request for an unknown reason"};
  case 401: return {"Unauthorized", "the server has asked for the client to provide credentials"};
  case 403: return {"Forbidden", "the server does not allow access to the requested resource"};
  case 404: return {"NotFound", "the server could not find the requested resource"};
  case 405: return {"MethodNotAllowed", "the server does not allow this method on the requested resource"};
  case 409: return {"Conflict", "the server reported a conflict"};
  case 410: return {"Gone", "the server no longer has the requested resource"};
  case 415: return {"UnsupportedMediaType", "the server does not support the media type of the request body"};
  case 422: return {"Invalid", "the server rejected our request due to an error in our request"};
  case 429: return {"TooManyRequests", "the server has received too many requests and has asked us to try again later"};
  case 503: return {"ServiceUnavailable", "the server is currently unable to handle the request"};
  case 504: return {"Timeout", "the server was unable to return a response in the time allotted, but may still be processing the request"};
  default:
    if (code >= 500) {
      return {"InternalError", "an error on the server has prevented the request from succeeding"};
    }
    return {"Unknown", "the server responded with an unexpected status"};
  }
}

// The first line of a plain-text body, short enough for a one-line message.
std::string first_line(const std::string& body) {
  std::string line = body.substr(0, body.find('\n'));
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) {
    line.pop_back();
  }
  if (line.size() > 200) {
    line = line.substr(0, 200) + "…";
  }
  return line;
}

std::string text_of(const nlohmann::json& object, const char* key) {
  const auto found = object.find(key);
  return found != object.end() && found->is_string() ? found->get<std::string>() : std::string{};
}

StatusDetails details_of(const nlohmann::json& status) {
  StatusDetails details;
  const auto found = status.find("details");
  if (found == status.end() || !found->is_object()) {
    return details;
  }
  details.name = text_of(*found, "name");
  details.group = text_of(*found, "group");
  details.kind = text_of(*found, "kind");
  if (const auto retry = found->find("retryAfterSeconds"); retry != found->end() && retry->is_number_integer()) {
    details.retry_after_seconds = retry->get<int>();
  }
  if (const auto causes = found->find("causes"); causes != found->end() && causes->is_array()) {
    for (const nlohmann::json& cause : *causes) {
      if (cause.is_object()) {
        details.causes.push_back({text_of(cause, "reason"), text_of(cause, "message"), text_of(cause, "field")});
      }
    }
  }
  return details;
}

std::string describe(int code, const std::string& reason, const std::string& message, const std::string& verb,
                     const std::string& path) {
  if (code == 401) {
    return fmt::format("You must be logged in to the server ({}) ({} {})", message, verb, path);
  }
  return fmt::format("Error from server ({}): {} ({} {})", reason, message, verb, path);
}

} // namespace

ApiError::ApiError(std::string what, int code, std::string reason_text, std::string message_text,
                   std::string verb_text, std::string path_text, StatusDetails status_details)
    : RuntimeError(what), http_code(code), reason(std::move(reason_text)), message(std::move(message_text)),
      verb(std::move(verb_text)), path(std::move(path_text)), details(std::move(status_details)) {}

ApiError api_error_from_response(int http_code, const std::string& body, const std::string& verb,
                                 const std::string& path) {
  const nlohmann::json status = nlohmann::json::parse(body, nullptr, false);
  if (status.is_object() && text_of(status, "kind") == "Status") {
    const Generic generic = generic_for(http_code);
    std::string reason = text_of(status, "reason");
    std::string message = text_of(status, "message");
    if (reason.empty()) {
      reason = generic.reason;
    }
    if (message.empty()) {
      message = generic.message;
    }
    ApiError error(describe(http_code, reason, message, verb, path), http_code, reason, message, verb, path,
                   details_of(status));
    if (const auto meta = status.find("metadata"); meta != status.end() && meta->is_object()) {
      error.continue_token = text_of(*meta, "continue");
    }
    return error;
  }
  const Generic generic = generic_for(http_code);
  std::string message = generic.message;
  const std::string line = first_line(body);
  if (!line.empty()) {
    message += ": " + line; // e.g. APF's "Too many requests, please try again later."
  }
  return ApiError(describe(http_code, generic.reason, message, verb, path), http_code, generic.reason, message,
                  verb, path);
}

} // namespace gpuslice::kube
