// SPDX-License-Identifier: Apache-2.0
#include "status_errors.hpp"

#include "resources.hpp"

namespace fakekube {

StatusError::StatusError(int code, std::string reason, const std::string& message,
                         nlohmann::json details)
    : std::runtime_error(message), m_code(code), m_reason(std::move(reason)),
      m_details(std::move(details)) {}

nlohmann::json StatusError::status() const {
  nlohmann::json status = {{"kind", "Status"},    {"apiVersion", "v1"},
                           {"metadata", list_meta}, {"status", "Failure"},
                           {"message", what()},   {"code", m_code}};
  if (!m_reason.empty()) {
    status["reason"] = m_reason;
  }
  if (!m_details.is_null()) {
    status["details"] = m_details;
  }
  return status;
}

std::string group_resource(const std::string& group, const std::string& plural) {
  return group.empty() ? plural : plural + "." + group;
}

namespace {

nlohmann::json details_of(const std::string& group, const std::string& kind,
                          const std::string& name) {
  nlohmann::json details = nlohmann::json::object();
  if (!name.empty()) {
    details["name"] = name;
  }
  if (!group.empty()) {
    details["group"] = group;
  }
  details["kind"] = kind;
  return details;
}

} // namespace

StatusError not_found(const std::string& group, const std::string& plural,
                      const std::string& name) {
  return StatusError(404, "NotFound",
                     group_resource(group, plural) + " \"" + name + "\" not found",
                     details_of(group, plural, name));
}

StatusError already_exists(const ResourceInfo& info, const std::string& name) {
  return StatusError(409, "AlreadyExists",
                     info.group_resource() + " \"" + name + "\" already exists",
                     details_of(info.group, info.plural, name));
}

StatusError conflict(const ResourceInfo& info, const std::string& name) {
  return StatusError(409, "Conflict",
                     "Operation cannot be fulfilled on " + info.group_resource() + " \"" + name +
                         "\": the object has been modified; please apply your changes to the "
                         "latest version and try again",
                     details_of(info.group, info.plural, name));
}

StatusError invalid(const ResourceInfo& info, const std::string& name, const std::string& field,
                    const std::string& cause_reason, const std::string& detail) {
  const std::string kind_group = info.group.empty() ? info.kind : info.kind + "." + info.group;
  const std::string cause_message = field + ": " + detail;
  nlohmann::json details = details_of(info.group, info.kind, name);
  details["causes"] = nlohmann::json::array(
      {{{"reason", cause_reason}, {"message", detail}, {"field", field}}});
  return StatusError(422, "Invalid", kind_group + " \"" + name + "\" is invalid: " + cause_message,
                     details);
}

StatusError bad_request(const std::string& message) {
  return StatusError(400, "BadRequest", message);
}

StatusError method_not_allowed() {
  return StatusError(405, "MethodNotAllowed", "the server does not allow this method on the "
                                              "requested resource");
}

StatusError unsupported_media_type(const std::string& accepted) {
  return StatusError(415, "UnsupportedMediaType",
                     "the body of the request was in an unknown format - accepted media types "
                     "include: " + accepted);
}

StatusError not_acceptable(const std::string& message) {
  return StatusError(406, "NotAcceptable", message);
}

StatusError internal_error(const std::string& message) {
  return StatusError(500, "", message);
}

StatusError path_not_found() {
  return StatusError(404, "NotFound", "the server could not find the requested resource",
                     nlohmann::json::object());
}

ApiResponse to_response(const StatusError& error) {
  ApiResponse response;
  response.status = error.code();
  response.body = error.status().dump();
  return response;
}

} // namespace fakekube
