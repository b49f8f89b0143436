// SPDX-License-Identifier: Apache-2.0
#include "api_state.hpp"

#include "object_meta.hpp"
#include "protobuf_object.hpp"
#include "protobuf_wire.hpp"
#include "status_errors.hpp"
#include "yaml_json.hpp"

namespace fakekube {

std::optional<std::string> query_value(const ApiRequest& request, const std::string& key) {
  auto it = request.query.find(key);
  if (it == request.query.end()) {
    return std::nullopt;
  }
  return it->second;
}

bool is_dry_run(const ApiRequest& request) {
  auto [first, last] = request.query.equal_range("dryRun");
  bool dry = false;
  for (auto it = first; it != last; ++it) {
    if (it->second != "All") {
      throw StatusError(400, "BadRequest",
                        "Invalid dry run value: " + it->second +
                            ": dryRun: Unsupported value: \"" + it->second +
                            "\": supported values: \"All\"");
    }
    dry = true;
  }
  return dry;
}

namespace {

// kubectl >= 1.32's typed clients (`kubectl create configmap`, …) POST protobuf.
nlohmann::json decode_protobuf_body(const std::string& body) {
  try {
    return protobuf::decode_object(body);
  } catch (const protobuf::UnknownKind& error) {
    throw StatusError(415, "UnsupportedMediaType", error.what());
  } catch (const protobuf::WireError& error) {
    throw bad_request(std::string("the request body could not be decoded: ") + error.what());
  }
}

} // namespace

nlohmann::json parse_body(const ApiRequest& request) {
  const std::string type = request.content_type.substr(0, request.content_type.find(';'));
  if (request.body.empty()) {
    throw bad_request("the request body is empty");
  }
  if (type == "application/vnd.kubernetes.protobuf") {
    return decode_protobuf_body(request.body);
  }
  try {
    if (type == "application/yaml" || type == "application/apply-patch+yaml" ||
        type == "application/x-yaml" || type == "text/yaml") {
      return yaml_to_json(request.body);
    }
    return nlohmann::json::parse(request.body);
  } catch (const StatusError&) {
    throw;
  } catch (const std::exception& error) {
    throw bad_request(std::string("the request body could not be decoded: ") + error.what());
  }
}

ApiResponse json_response(int status, std::string body) {
  ApiResponse response;
  response.status = status;
  response.body = std::move(body);
  return response;
}

nlohmann::json commit(ApiState& state, const ResourceInfo& info, nlohmann::json object) {
  object["metadata"]["resourceVersion"] = std::to_string(state.store.next_resource_version());
  state.store.put(resource_key(info.group, info.plural),
                  index_object(resource_key(info.group, info.plural), object));
  return object;
}

const StoredObject& find_or_404(const ApiState& state, const Target& target) {
  const StoredObject* stored = state.store.get(
      resource_key(target.info->group, target.info->plural), target.ns, target.name);
  if (stored == nullptr) {
    throw not_found(target.info->group, target.info->plural, target.name);
  }
  return *stored;
}

void require_namespace(const ApiState& state, const Target& target) {
  if (target.info->namespaced && state.store.get("/namespaces", "", target.ns) == nullptr) {
    throw not_found("", "namespaces", target.ns);
  }
}

} // namespace fakekube
