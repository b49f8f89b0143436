// SPDX-License-Identifier: Apache-2.0
// get / create / update / patch / delete, URL paths, and parallel().
#include <algorithm>

#include <fmt/format.h>

#include <gpuslice/error.hpp>
#include <gpuslice/kube/api_error.hpp>
#include <gpuslice/kube/task_queue.hpp>

#include "kube/client_impl.hpp"

namespace gpuslice::kube {

namespace {

constexpr const char* k_field_manager = "kubectl-gpuslice";

nlohmann::json parse_body(const HttpResponse& response, const std::string& verb, const std::string& path) {
  nlohmann::json parsed = nlohmann::json::parse(response.body, nullptr, false);
  if (parsed.is_discarded()) {
    throw ApiError(fmt::format("{} {}: the server's answer is not JSON", verb, path), response.status,
                   "InvalidResponse", "the server's answer is not JSON", verb, path);
  }
  return parsed;
}

Query write_query(const WriteOptions& options, bool apply) {
  Query query;
  if (options.dry_run) {
    query.emplace_back("dryRun", "All");
  }
  query.emplace_back("fieldManager", options.field_manager.empty() ? k_field_manager : options.field_manager);
  if (apply && options.force) {
    query.emplace_back("force", "true");
  }
  return query;
}

const char* content_type_of(PatchType type) {
  switch (type) {
  case PatchType::json: return "application/json-patch+json";
  case PatchType::merge: return "application/merge-patch+json";
  case PatchType::strategic: return "application/strategic-merge-patch+json";
  case PatchType::apply: return "application/apply-patch+yaml";
  }
  return "application/merge-patch+json";
}

void require_name(const ObjectRef& ref, const char* verb) {
  if (ref.name.empty()) {
    throw UsageError(fmt::format("{} {}: an object name is required", verb, ref.type.resource));
  }
}

} // namespace

std::string collection_path(const ResourceRef& type, const std::string& namespace_name) {
  std::string path = type.group.empty() ? fmt::format("/api/{}", type.version)
                                        : fmt::format("/apis/{}/{}", type.group, type.version);
  if (type.namespaced && !namespace_name.empty()) {
    path += "/namespaces/" + url_encode(namespace_name);
  }
  return path + "/" + type.resource;
}

std::string object_path(const ObjectRef& ref) {
  std::string path = collection_path(ref.type, ref.namespace_name) + "/" + url_encode(ref.name);
  if (!ref.subresource.empty()) {
    path += "/" + ref.subresource;
  }
  return path;
}

nlohmann::json Client::get(const ObjectRef& ref) {
  require_name(ref, "get");
  RestRequest request{"get", "GET", object_path(ref), {}, {}, {}, {}, false};
  return parse_body(m_impl->execute(request), request.verb, request.path);
}

std::string Client::get_raw(const std::string& path) {
  return m_impl->execute(RestRequest{"get", "GET", path, {}, {}, {}, {}, false}).body;
}

std::string Client::server_version() {
  const HttpResponse response = m_impl->execute(RestRequest{"get", "GET", "/version", {}, {}, {}, {}, false});
  const nlohmann::json info = parse_body(response, "get", "/version");
  if (!info.is_object() || !info.contains("gitVersion") || !info["gitVersion"].is_string()) {
    throw ApiError("get /version: the answer has no gitVersion", response.status, "InvalidResponse",
                   "no gitVersion", "get", "/version");
  }
  return info["gitVersion"].get<std::string>();
}

nlohmann::json Client::create(const ResourceRef& type, const std::string& namespace_name, const nlohmann::json& object,
                              const WriteOptions& options) {
  RestRequest request{"create", "POST", collection_path(type, namespace_name), write_query(options, false),
                      object.dump(), "application/json", {}, false};
  return parse_body(m_impl->execute(request), request.verb, request.path);
}

nlohmann::json Client::update(const ObjectRef& ref, const nlohmann::json& object, const WriteOptions& options) {
  require_name(ref, "update");
  RestRequest request{"update", "PUT", object_path(ref), write_query(options, false), object.dump(),
                      "application/json", {}, false};
  return parse_body(m_impl->execute(request), request.verb, request.path);
}

nlohmann::json Client::patch(const ObjectRef& ref, PatchType type, const std::string& body,
                             const WriteOptions& options) {
  require_name(ref, "patch");
  RestRequest request{"patch", "PATCH", object_path(ref), write_query(options, type == PatchType::apply), body,
                      content_type_of(type), {}, false};
  return parse_body(m_impl->execute(request), request.verb, request.path);
}

nlohmann::json Client::remove(const ObjectRef& ref, const DeleteOptions& options) {
  require_name(ref, "delete");
  nlohmann::json body = {{"kind", "DeleteOptions"}, {"apiVersion", "v1"}};
  if (!options.propagation_policy.empty()) {
    body["propagationPolicy"] = options.propagation_policy;
  }
  if (options.grace_period_seconds) {
    body["gracePeriodSeconds"] = *options.grace_period_seconds;
  }
  Query query;
  if (options.dry_run) {
    body["dryRun"] = nlohmann::json::array({"All"});
    query.emplace_back("dryRun", "All");
  }
  RestRequest request{"delete", "DELETE", object_path(ref), query, body.dump(), "application/json", {}, false};
  return parse_body(m_impl->execute(request), request.verb, request.path);
}

void Client::parallel(const std::vector<std::function<void()>>& tasks) {
  // These tasks submit no more: a thread beyond one for each would only start and stop.
  const std::size_t most = static_cast<std::size_t>(std::max(m_impl->options.max_parallel, 1));
  run_task_queue(
      static_cast<int>(std::min(tasks.size(), most)),
      [&tasks](TaskQueue& queue) {
        for (const std::function<void()>& task : tasks) queue.submit(task);
      },
      OnFailure::finish_all);
}

void Client::run_queue(const std::function<void(TaskQueue&)>& seed) {
  run_task_queue(m_impl->options.max_parallel, seed, OnFailure::stop);
}

} // namespace gpuslice::kube
