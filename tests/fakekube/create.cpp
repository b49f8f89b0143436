// SPDX-License-Identifier: Apache-2.0
#include "writes.hpp"

#include <regex>

#include "defaults.hpp"
#include "object_meta.hpp"
#include "reviews.hpp"
#include "status_errors.hpp"

namespace fakekube {
namespace {

using nlohmann::json;

void check_type(const ResourceInfo& info, json& object) {
  if (!object.is_object()) {
    throw bad_request("the body of the request must be a JSON or YAML object");
  }
  const std::string api_version = object.value("apiVersion", std::string());
  if (!api_version.empty() && api_version != info.api_version()) {
    throw bad_request("the API version in the data (" + api_version +
                      ") does not match the expected API version (" + info.api_version() + ")");
  }
  const std::string kind = object.value("kind", std::string());
  if (!kind.empty() && kind != info.kind) {
    throw bad_request("the kind in the data (" + kind + ") does not match the expected kind (" +
                      info.kind + ")");
  }
  object["apiVersion"] = info.api_version();
  object["kind"] = info.kind;
  if (!object.contains("metadata") || !object["metadata"].is_object()) {
    object["metadata"] = json::object();
  }
}

void check_name(const ResourceInfo& info, const std::string& name) {
  static const std::regex k_subdomain("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
  static const std::regex k_label("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
  if (name.empty()) {
    throw invalid(info, "", "metadata.name", "FieldValueRequired",
                  "Required value: name or generateName is required");
  }
  if (info.plural == "namespaces" && !info.custom) {
    if (name.size() > 63 || !std::regex_match(name, k_label)) {
      throw invalid(info, name, "metadata.name", "FieldValueInvalid",
                    "Invalid value: \"" + name +
                        "\": a lowercase RFC 1123 label must consist of lower case alphanumeric "
                        "characters or '-', and must start and end with an alphanumeric "
                        "character (e.g. 'my-name',  or '123-abc', regex used for validation is "
                        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')");
    }
    return;
  }
  // RBAC objects allow path segment names (e.g. "system:masters"); the rest are subdomains.
  if (info.group == "rbac.authorization.k8s.io") {
    if (name == "." || name == ".." || name.find('/') != std::string::npos ||
        name.find('%') != std::string::npos) {
      throw invalid(info, name, "metadata.name", "FieldValueInvalid",
                    "Invalid value: \"" + name + "\": may not contain '/' or '%'");
    }
    return;
  }
  if (name.size() > 253 || !std::regex_match(name, k_subdomain)) {
    throw invalid(info, name, "metadata.name", "FieldValueInvalid",
                  "Invalid value: \"" + name +
                      "\": a lowercase RFC 1123 subdomain must consist of lower case "
                      "alphanumeric characters, '-' or '.', and must start and end with an "
                      "alphanumeric character (e.g. 'example.com', regex used for validation is "
                      "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");
  }
}

} // namespace

std::string request_manager(const ApiRequest& request) {
  const std::string manager = query_value(request, "fieldManager").value_or("");
  if (manager.size() > 128) {
    throw StatusError(422, "Invalid",
                      "fieldManager: Too long: may not be longer than 128");
  }
  return manager_name(manager, request.user_agent);
}

json create_core(ApiState& state, const ResourceInfo& info, const std::string& path_ns,
                 json object, const WriteOptions& options) {
  check_type(info, object);
  json& metadata = object["metadata"];
  std::string ns = metadata.value("namespace", std::string());
  if (!info.namespaced) {
    metadata.erase("namespace");
    ns.clear();
  } else {
    if (!path_ns.empty() && !ns.empty() && ns != path_ns) {
      throw bad_request("the namespace of the provided object does not match the namespace "
                        "sent on the request");
    }
    ns = path_ns.empty() ? (ns.empty() ? "default" : ns) : path_ns;
    metadata["namespace"] = ns;
  }
  std::string name = metadata.value("name", std::string());
  if (name.empty() && !metadata.value("generateName", std::string()).empty()) {
    name = generate_name(metadata["generateName"].get<std::string>());
    metadata["name"] = name;
  }
  check_name(info, name);
  if (info.plural == "customresourcedefinitions" && !info.custom) {
    const json spec = object.value("spec", json::object());
    const std::string expected = spec.value("names", json::object()).value("plural", std::string()) +
                                 "." + spec.value("group", std::string());
    if (name != expected) {
      throw invalid(info, name, "metadata.name", "FieldValueInvalid",
                    "Invalid value: \"" + name + "\": must be spec.names.plural+\".\"+spec.group");
    }
  }
  const Target target{&info, ns, name, ""};
  if (!options.from_load) {
    if (!metadata.value("resourceVersion", std::string()).empty()) {
      throw internal_error("resourceVersion should not be set on objects to be created");
    }
    require_namespace(state, target);
  }
  if (state.store.get(resource_key(info.group, info.plural), ns, name) != nullptr &&
      !options.from_load) {
    throw already_exists(info, name);
  }
  if (!options.from_load || !metadata.contains("uid")) {
    metadata["uid"] = new_uid();
  }
  if (!options.from_load || !metadata.contains("creationTimestamp")) {
    metadata["creationTimestamp"] = timestamp_now();
  }
  metadata.erase("resourceVersion");
  if (!options.from_load) {
    metadata.erase("deletionTimestamp");
    if (!options.managed_fields_done) {
      metadata.erase("managedFields");
    }
    apply_create_defaults(info, object);
  } else {
    apply_server_status(info, object);
  }
  if (keeps_generation(info)) {
    if (!options.from_load || !metadata.contains("generation")) {
      metadata["generation"] = 1;
    }
    if (!info.custom && info.plural == "daemonsets") {
      metadata["annotations"]["deprecated.daemonset.template.generation"] = "1";
    }
  }
  if (!options.managed_fields_done && !options.from_load) {
    record_managed_fields(object, options.manager, options.operation, info.api_version(), "",
                          fields_of(object, !info.has_subresource("status")), true);
  }
  if (options.dry_run) {
    return object;
  }
  if (info.plural == "customresourcedefinitions" && !info.custom) {
    try {
      state.resources.register_crd(object);
    } catch (const std::invalid_argument& error) {
      throw invalid(info, name, "spec", "FieldValueInvalid", error.what());
    }
  }
  return commit(state, info, std::move(object));
}

ApiResponse create_object(ApiState& state, const ApiRequest& request, const Target& target) {
  if (!target.name.empty()) {
    throw method_not_allowed();
  }
  const bool dry_run = is_dry_run(request);
  if (target.info->create_only) {
    return create_review(state, request, *target.info);
  }
  WriteOptions options;
  options.manager = request_manager(request);
  options.dry_run = dry_run;
  const json created = create_core(state, *target.info, target.ns, parse_body(request), options);
  return json_response(201, created.dump());
}

} // namespace fakekube
