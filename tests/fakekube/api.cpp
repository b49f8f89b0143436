// SPDX-License-Identifier: Apache-2.0
// Api: one lock around the state, routing of each request to discovery or a verb handler,
// RBAC before every handler, and Status bodies for every failure.
#include <fakekube/api.hpp>

#include <cstdio>
#include <mutex>
#include <stdexcept>

#include "api_state.hpp"
#include "discovery.hpp"
#include "patch.hpp"
#include "rbac.hpp"
#include "read.hpp"
#include "status_errors.hpp"
#include "target.hpp"
#include "watch.hpp"
#include "writes.hpp"

namespace fakekube {

struct Api::Impl {
  std::mutex mutex;
  ApiState state;
  Simulation simulation{mutex, state};
};

namespace {

using nlohmann::json;

// What every real cluster starts with: its system namespaces, and cluster-admin bound to
// system:masters (so access reviews name the binding, as real ones do).
void bootstrap(ApiState& state) {
  WriteOptions options;
  options.manager = "kube-apiserver";
  for (const char* ns : {"default", "kube-system", "kube-public", "kube-node-lease"}) {
    create_core(state, *state.resources.find("", "v1", "namespaces"), "",
                {{"metadata", {{"name", ns}}}}, options);
  }
  const ResourceInfo& roles = *state.resources.find("rbac.authorization.k8s.io", "v1",
                                                    "clusterroles");
  const ResourceInfo& bindings = *state.resources.find("rbac.authorization.k8s.io", "v1",
                                                       "clusterrolebindings");
  const json labels = {{"kubernetes.io/bootstrapping", "rbac-defaults"}};
  create_core(state, roles, "",
              {{"metadata", {{"name", "cluster-admin"}, {"labels", labels}}},
               {"rules", {{{"apiGroups", {"*"}}, {"resources", {"*"}}, {"verbs", {"*"}}},
                          {{"nonResourceURLs", {"*"}}, {"verbs", {"*"}}}}}},
              options);
  create_core(state, bindings, "",
              {{"metadata", {{"name", "cluster-admin"}, {"labels", labels}}},
               {"roleRef",
                {{"apiGroup", "rbac.authorization.k8s.io"},
                 {"kind", "ClusterRole"},
                 {"name", "cluster-admin"}}},
               {"subjects",
                {{{"apiGroup", "rbac.authorization.k8s.io"},
                  {"kind", "Group"},
                  {"name", "system:masters"}}}}},
              options);
}

void authorize_or_throw(const ApiState& state, const ApiRequest& request, Attributes attributes) {
  if (!authorize(state, request.identity, attributes).allowed) {
    throw forbidden(request.identity, attributes);
  }
}

ApiResult serve(ApiState& state, const ApiRequest& request) {
  if (std::optional<ApiResponse> discovery = serve_discovery(state, request.path)) {
    Attributes attributes;
    attributes.resource_request = false;
    attributes.verb = request_verb(request, true);
    if (attributes.verb != "get") {
      throw method_not_allowed();
    }
    attributes.path = request.path;
    authorize_or_throw(state, request, attributes);
    return {*discovery, nullptr};
  }
  const Target target = parse_target(state.resources, request.path);
  const std::string verb = request_verb(request, !target.name.empty());
  if (verb.empty()) {
    throw method_not_allowed();
  }
  // Creates carry no name in their attributes: RBAC resourceNames cannot restrict them.
  authorize_or_throw(state, request,
                     {verb, true, target.info->group, target.info->plural, target.subresource,
                      target.ns, verb == "create" ? "" : target.name, ""});
  if (target.info->create_only && verb != "create") {
    throw method_not_allowed();
  }
  if (verb == "get") {
    return {get_object(state, request, target), nullptr};
  }
  if (verb == "list") {
    return {list_objects(state, request, target), nullptr};
  }
  if (verb == "watch") {
    return open_watch(state, request, target);
  }
  if (verb == "create") {
    return {create_object(state, request, target), nullptr};
  }
  if (verb == "update") {
    return {update_object(state, request, target), nullptr};
  }
  if (verb == "patch") {
    return {patch_object(state, request, target), nullptr};
  }
  if (verb == "delete") {
    return {delete_object(state, request, target), nullptr};
  }
  return {delete_collection(state, request, target), nullptr};
}

std::vector<json> flatten(const json& objects) {
  if (objects.is_array()) {
    return objects.get<std::vector<json>>();
  }
  if (objects.is_object() && objects.contains("items") && objects["items"].is_array()) {
    return objects["items"].get<std::vector<json>>();
  }
  if (objects.is_object()) {
    return {objects};
  }
  if (objects.is_null()) {
    return {};
  }
  throw std::invalid_argument("fakekube: objects to load must be a List, an array or an object");
}

} // namespace

Api::Api() : m_impl(std::make_unique<Impl>()) {
  ApiState& state = m_impl->state;
  state.hub = std::make_shared<WatchHub>();
  std::weak_ptr<WatchHub> hub = state.hub;
  state.store.add_listener([hub](const ChangeEvent& event) {
    if (std::shared_ptr<WatchHub> live = hub.lock()) {
      live->publish(event);
    }
  });
  bootstrap(state);
}

Api::~Api() { m_impl->state.hub->close(); }

void Api::load(const nlohmann::json& objects) {
  std::lock_guard<std::mutex> lock(m_impl->mutex);
  ApiState& state = m_impl->state;
  std::vector<json> items = flatten(objects);
  // CRDs and namespaces first, so that the objects they make room for can follow in any order.
  std::stable_partition(items.begin(), items.end(), [](const json& item) {
    const std::string kind = item.is_object() ? item.value("kind", std::string()) : "";
    return kind == "CustomResourceDefinition" || kind == "Namespace";
  });
  WriteOptions options;
  options.from_load = true;
  options.manager = "fakekube";
  for (std::size_t i = 0; i < items.size(); ++i) {
    const json& item = items[i];
    const std::string what = "object " + std::to_string(i) + " (" +
                             (item.is_object() ? item.value("kind", std::string("?")) + " \"" +
                                                     item.value("metadata", json::object())
                                                         .value("name", std::string()) +
                                                     "\""
                                               : std::string("not an object")) +
                             ")";
    if (!item.is_object()) {
      throw std::invalid_argument("fakekube: " + what + ": not an object");
    }
    const ResourceInfo* info = state.resources.find_kind(item.value("apiVersion", std::string()),
                                                         item.value("kind", std::string()));
    if (info == nullptr) {
      throw std::invalid_argument("fakekube: " + what + ": no resource serves apiVersion \"" +
                                  item.value("apiVersion", std::string()) + "\" kind \"" +
                                  item.value("kind", std::string()) + "\"");
    }
    const std::string ns =
        info->namespaced ? item.value("metadata", json::object()).value("namespace", "default")
                         : "";
    try {
      if (info->namespaced && state.store.get("/namespaces", "", ns) == nullptr) {
        // Scenarios need not list every namespace they use.
        create_core(state, *state.resources.find("", "v1", "namespaces"), "",
                    {{"metadata", {{"name", ns}}}}, options);
      }
      create_core(state, *info, ns, item, options);
    } catch (const StatusError& error) {
      throw std::invalid_argument("fakekube: " + what + ": " + error.what());
    }
  }
}

void Api::set_server_version(const std::string& git_version) {
  std::lock_guard<std::mutex> lock(m_impl->mutex);
  m_impl->state.git_version = git_version;
  // resource.k8s.io/v1 exists from 1.34, the first release with DRA on by default.
  int major = 0;
  int minor = 0;
  const bool parsed = std::sscanf(git_version.c_str(), "v%d.%d", &major, &minor) == 2;
  m_impl->state.resources.set_group_served("resource.k8s.io", !parsed || major > 1 || minor >= 34);
}

ApiResult Api::handle(const ApiRequest& request) {
  std::lock_guard<std::mutex> lock(m_impl->mutex);
  try {
    return serve(m_impl->state, request);
  } catch (const StatusError& error) {
    return {to_response(error), nullptr};
  } catch (const std::exception& error) {
    return {to_response(internal_error(std::string("fakekube: ") + error.what())), nullptr};
  }
}

ApiFaults& Api::faults() { return m_impl->state.faults; }

Simulation& Api::simulation() { return m_impl->simulation; }

} // namespace fakekube
