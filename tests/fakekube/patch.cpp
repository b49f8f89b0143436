// SPDX-License-Identifier: Apache-2.0
#include "patch.hpp"

#include "patch_strategic.hpp"
#include "read.hpp"
#include "status_errors.hpp"
#include "writes.hpp"

namespace fakekube {
namespace {

using nlohmann::json;

const char* const k_json_patch = "application/json-patch+json";
const char* const k_merge_patch = "application/merge-patch+json";
const char* const k_strategic = "application/strategic-merge-patch+json";
const char* const k_apply = "application/apply-patch+yaml";

StatusError invalid_patch_options(const std::string& field, const std::string& detail) {
  return StatusError(422, "Invalid",
                     "PatchOptions.meta.k8s.io \"\" is invalid: " + field + ": " + detail,
                     {{"group", "meta.k8s.io"},
                      {"kind", "PatchOptions"},
                      {"causes", {{{"reason", "FieldValueRequired"},
                                   {"message", detail},
                                   {"field", field}}}}});
}

json parse_patch(const ApiRequest& request) {
  try {
    return json::parse(request.body);
  } catch (const json::exception& error) {
    throw bad_request(std::string("error decoding patch: ") + error.what());
  }
}

// The patched object, before the update rules run.
json patched(const std::string& type, const json& original, const ApiRequest& request) {
  const json patch = parse_patch(request);
  if (type == k_json_patch) {
    if (!patch.is_array()) {
      throw bad_request("json: cannot unmarshal " + std::string(patch.type_name()) +
                        " into Go value of type jsonpatch.Patch");
    }
    try {
      return original.patch(patch);
    } catch (const json::exception& error) {
      // A failed `test` or a missing path: the generic 422 the real server sends.
      throw StatusError(422, "Invalid", std::string("the server rejected our request due to an "
                                                    "error in our request: ") + error.what());
    }
  }
  if (type == k_merge_patch) {
    json result = original;
    result.merge_patch(patch);
    return result;
  }
  try {
    return strategic_merge(original, patch);
  } catch (const std::invalid_argument& error) {
    throw bad_request(error.what());
  }
}

} // namespace

ApiResponse patch_object(ApiState& state, const ApiRequest& request, const Target& target) {
  if (target.name.empty()) {
    throw method_not_allowed();
  }
  const std::string type = request.content_type.substr(0, request.content_type.find(';'));
  const bool dry_run = is_dry_run(request);
  const std::string force = query_value(request, "force").value_or("");
  if (type == k_apply) {
    if (query_value(request, "fieldManager").value_or("").empty()) {
      throw invalid_patch_options("fieldManager", "Required value: is required for apply patch");
    }
    return apply_object(state, request, target, request_manager(request),
                        force == "true" || force == "1", dry_run);
  }
  if (!force.empty()) {
    throw invalid_patch_options("force", "Forbidden: may not be specified for non-apply patch");
  }
  const bool strategic_allowed = !target.info->custom;
  if (type != k_json_patch && type != k_merge_patch && (type != k_strategic || !strategic_allowed)) {
    throw unsupported_media_type(strategic_allowed
                                     ? "application/json-patch+json, application/merge-patch+json, "
                                       "application/apply-patch+yaml, "
                                       "application/strategic-merge-patch+json"
                                     : "application/json-patch+json, application/merge-patch+json, "
                                       "application/apply-patch+yaml");
  }
  WriteOptions options;
  options.manager = request_manager(request);
  options.dry_run = dry_run;
  const StoredObject& old = find_or_404(state, target);
  if (target.subresource == "scale") {
    json workload = old.parse();
    const json scale = patched(type, scale_of(workload), request);
    workload["spec"]["replicas"] = scale.value("spec", json::object()).value("replicas", 0);
    Target main = target;
    main.subresource.clear();
    return json_response(200, scale_of(finish_update(state, main, old, workload, options)).dump());
  }
  json result = finish_update(state, target, old, patched(type, old.parse(), request), options);
  return json_response(200, result.dump());
}

} // namespace fakekube
