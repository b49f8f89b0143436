// SPDX-License-Identifier: Apache-2.0
// metav1.Status errors with the reasons, codes and wording of the real API server
// (apimachinery pkg/api/errors): thrown inside the API layer, turned into responses once.
#pragma once

#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include <fakekube/api.hpp>

namespace fakekube {

struct ResourceInfo;

// A failed request: its HTTP code and the full Status body.
class StatusError : public std::runtime_error {
public:
  StatusError(int code, std::string reason, const std::string& message,
              nlohmann::json details = nullptr);
  int code() const { return m_code; }
  const std::string& reason() const { return m_reason; }
  // The Status object as the server sends it.
  nlohmann::json status() const;
  // Extra ListMeta (e.g. a fresh continue token on 410).
  nlohmann::json list_meta = nlohmann::json::object();

private:
  int m_code;
  std::string m_reason;
  nlohmann::json m_details;
};

// `<gr> "<name>" not found`.
StatusError not_found(const std::string& group, const std::string& plural, const std::string& name);
// `<gr> "<name>" already exists`.
StatusError already_exists(const ResourceInfo& info, const std::string& name);
// The update path's stale-resourceVersion conflict.
StatusError conflict(const ResourceInfo& info, const std::string& name);
// 422 Invalid with one cause; `field` like "metadata.name".
StatusError invalid(const ResourceInfo& info, const std::string& name, const std::string& field,
                    const std::string& cause_reason, const std::string& detail);
StatusError bad_request(const std::string& message);
StatusError method_not_allowed();
// 415 listing the media types the handler accepts, e.g. "application/json, application/yaml".
StatusError unsupported_media_type(const std::string& accepted);
StatusError not_acceptable(const std::string& message);
StatusError internal_error(const std::string& message);
// 404 for a path that names no resource at all (the real body is plain "404 page not found").
StatusError path_not_found();

// A response carrying `error` as its Status body.
ApiResponse to_response(const StatusError& error);
// The `<gr>` of Status messages for a group and plural.
std::string group_resource(const std::string& group, const std::string& plural);

} // namespace fakekube
