// SPDX-License-Identifier: Apache-2.0
#include "discovery.hpp"

#include <regex>

#include "status_errors.hpp"

namespace fakekube {
namespace {

nlohmann::json version_info(const std::string& git_version) {
  static const std::regex k_version("v([0-9]+)\\.([0-9]+)\\.[0-9]+(.*)");
  std::smatch match;
  std::string major = "1";
  std::string minor = "30";
  if (std::regex_match(git_version, match, k_version)) {
    major = match[1];
    minor = match[2].str() + (match[3].length() > 0 ? "+" : ""); // EKS reports "30+"
  }
  return {{"major", major},
          {"minor", minor},
          {"gitVersion", git_version},
          {"gitCommit", "0000000000000000000000000000000000000000"},
          {"gitTreeState", "clean"},
          {"buildDate", "2026-01-01T00:00:00Z"},
          {"goVersion", "go1.22.5"},
          {"compiler", "gc"},
          {"platform", "linux/amd64"}};
}

nlohmann::json group_entry(const std::string& group, const std::vector<std::string>& versions) {
  nlohmann::json list = nlohmann::json::array();
  for (const std::string& version : versions) {
    list.push_back({{"groupVersion", group + "/" + version}, {"version", version}});
  }
  return {{"name", group}, {"versions", list}, {"preferredVersion", list.at(0)}};
}

nlohmann::json resource_list(const ApiState& state, const std::string& group,
                             const std::string& version) {
  nlohmann::json resources = nlohmann::json::array();
  for (const ResourceInfo& info : state.resources.all()) {
    if (info.group != group || info.version != version) {
      continue;
    }
    nlohmann::json entry = {{"name", info.plural},         {"singularName", info.singular},
                            {"namespaced", info.namespaced}, {"kind", info.kind},
                            {"verbs", info.verbs}};
    if (!info.short_names.empty()) {
      entry["shortNames"] = info.short_names;
    }
    if (!info.categories.empty()) {
      entry["categories"] = info.categories;
    }
    resources.push_back(entry);
    for (const std::string& sub : info.subresources) {
      nlohmann::json sub_entry = {{"name", info.plural + "/" + sub},
                                  {"singularName", ""},
                                  {"namespaced", info.namespaced},
                                  {"kind", info.kind},
                                  {"verbs", {"get", "patch", "update"}}};
      if (sub == "scale") {
        sub_entry["group"] = "autoscaling";
        sub_entry["version"] = "v1";
        sub_entry["kind"] = "Scale";
      }
      resources.push_back(sub_entry);
    }
  }
  return {{"kind", "APIResourceList"},
          {"apiVersion", "v1"},
          {"groupVersion", group.empty() ? version : group + "/" + version},
          {"resources", resources}};
}

ApiResponse ok(const nlohmann::json& body) { return json_response(200, body.dump()); }

} // namespace

std::optional<ApiResponse> serve_discovery(const ApiState& state, const std::string& path) {
  if (path == "/version") {
    return ok(version_info(state.git_version));
  }
  if (path == "/healthz" || path == "/livez" || path == "/readyz") {
    ApiResponse response = json_response(200, "ok");
    response.content_type = "text/plain; charset=utf-8";
    return response;
  }
  if (path == "/api") {
    return ok({{"kind", "APIVersions"},
               {"versions", {"v1"}},
               {"serverAddressByClientCIDRs",
                {{{"clientCIDR", "0.0.0.0/0"}, {"serverAddress", "127.0.0.1:6443"}}}}});
  }
  if (path == "/api/v1") {
    return ok(resource_list(state, "", "v1"));
  }
  if (path == "/apis") {
    nlohmann::json groups = nlohmann::json::array();
    for (const auto& [group, versions] : state.resources.groups()) {
      if (!group.empty()) {
        groups.push_back(group_entry(group, versions));
      }
    }
    return ok({{"kind", "APIGroupList"}, {"apiVersion", "v1"}, {"groups", groups}});
  }
  static const std::regex k_group("/apis/([^/]+)/?");
  static const std::regex k_group_version("/apis/([^/]+)/([^/]+)/?");
  std::smatch match;
  if (std::regex_match(path, match, k_group) || std::regex_match(path, match, k_group_version)) {
    for (const auto& [group, versions] : state.resources.groups()) {
      if (group != match[1]) {
        continue;
      }
      if (match.size() == 2 || match[2].length() == 0) {
        nlohmann::json entry = group_entry(group, versions);
        entry["kind"] = "APIGroup";
        entry["apiVersion"] = "v1";
        return ok(entry);
      }
      for (const std::string& version : versions) {
        if (version == match[2]) {
          return ok(resource_list(state, group, version));
        }
      }
    }
    return to_response(path_not_found());
  }
  if (path.rfind("/api/", 0) == 0 || path.rfind("/apis/", 0) == 0) {
    return std::nullopt;
  }
  if (path == "/openapi/v2") {
    // An empty protobuf Document: kubectl's client-side validation finds no schema and skips,
    // and its fieldValidation probe finds no support, so create/apply/replace proceed. A 404
    // here makes `kubectl create -f` fail with "failed to download openapi".
    ApiResponse response = json_response(200, "");
    response.content_type = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";
    return response;
  }
  // /openapi/v3 and anything else: kubectl falls back to /openapi/v2 on a 404.
  return to_response(path_not_found());
}

} // namespace fakekube
