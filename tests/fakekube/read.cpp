// SPDX-License-Identifier: Apache-2.0
#include "read.hpp"

#include "list_query.hpp"
#include "paging.hpp"
#include "status_errors.hpp"
#include "table.hpp"

namespace fakekube {

nlohmann::json scale_of(const nlohmann::json& object) {
  const nlohmann::json& metadata = object.at("metadata");
  nlohmann::json scale_meta = nlohmann::json::object();
  for (const char* key : {"name", "namespace", "uid", "resourceVersion", "creationTimestamp"}) {
    if (metadata.contains(key)) {
      scale_meta[key] = metadata[key];
    }
  }
  const nlohmann::json none = nlohmann::json::object();
  const nlohmann::json spec = object.value("spec", none);
  nlohmann::json status = {{"replicas", object.value("status", none).value("replicas", 0)}};
  const nlohmann::json labels = spec.value("selector", none).value("matchLabels", none);
  std::string selector;
  for (const auto& [key, value] : labels.items()) {
    selector += (selector.empty() ? "" : ",") + key + "=" + value.get<std::string>();
  }
  if (!selector.empty()) {
    status["selector"] = selector;
  }
  return {{"kind", "Scale"},
          {"apiVersion", "autoscaling/v1"},
          {"metadata", scale_meta},
          {"spec", {{"replicas", spec.value("replicas", 1)}}},
          {"status", status}};
}

ApiResponse get_object(const ApiState& state, const ApiRequest& request, const Target& target) {
  const StoredObject& stored = find_or_404(state, target);
  if (target.subresource == "scale") {
    return json_response(200, scale_of(stored.parse()).dump());
  }
  if (wants_table(request.accept)) {
    return json_response(200, render_table(*target.info, {stored.parse()},
                                           nlohmann::json::object(), request)
                                  .dump());
  }
  return json_response(200, *stored.bytes);
}

ApiResponse list_objects(const ApiState& state, const ApiRequest& request, const Target& target) {
  const ListQuery query = parse_list_query(state, request, target);
  const ListPage page = collect_page(state, target, query);
  // ListMeta's field order, as the API server writes it (resourceVersion, continue, remainingItemCount).
  nlohmann::ordered_json metadata = {{"resourceVersion", std::to_string(page.resource_version)}};
  if (!page.next_start.empty()) {
    metadata["continue"] =
        encode_continue({static_cast<std::int64_t>(page.resource_version), page.next_start});
    if (page.remaining >= 0) {
      metadata["remainingItemCount"] = page.remaining;
    }
  }
  if (wants_table(request.accept)) {
    std::vector<nlohmann::json> objects;
    for (const StoredObject* stored : page.items) {
      objects.push_back(stored->parse());
    }
    return json_response(200,
                         render_table(*target.info, objects, metadata, request).dump());
  }
  // Built by hand so that 150,000 stored objects are copied as bytes, never parsed. The keys in
  // the API server's order (a List's Go struct: TypeMeta, ListMeta, Items), so the metadata and
  // its continue token come before the items, as clients reading the token early rely on.
  std::string body = "{\"kind\":" + nlohmann::json(target.info->kind + "List").dump() +
                     ",\"apiVersion\":" + nlohmann::json(target.info->api_version()).dump() +
                     ",\"metadata\":" + metadata.dump() + ",\"items\":[";
  bool first = true;
  for (const StoredObject* stored : page.items) {
    if (!first) {
      body += ',';
    }
    body += *stored->bytes;
    first = false;
  }
  body += "]}";
  return json_response(200, std::move(body));
}

} // namespace fakekube
