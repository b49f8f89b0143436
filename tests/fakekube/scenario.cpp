// SPDX-License-Identifier: Apache-2.0
// Scenario files. Two shapes are accepted, in JSON or YAML:
//
// 1. Objects only: a kubectl `List` (`kind: List`, `items: [...]`), a JSON array of objects,
//    one object, or multi-document YAML whose documents are objects or Lists.
// 2. Objects plus fakekube settings, one mapping with these keys (all optional):
//      objects:        [...]      objects as in shape 1 (Lists inside are flattened)
//      serverVersion:  v1.30.4    what /version reports
//      certificateFault: none | expired | wrongHost
//      users:  [{name, groups: [...], token, password, clientCertificate: true}]
//              token "k8s-aws-v1.*" makes an EKS stand-in that accepts any token with that prefix
//      faults: {latencyMs, tooManyRequestsEveryNth, retryAfterSeconds, serverErrorEveryNth,
//               serverErrorCode: 500|503, dropMidBodyEveryNth, tokenTtlRequests,
//               conflictOnFirstUpdate, expireContinueTokens}
//      simulation: {kubernetesVersion, controllers, events, daemonSets, autoscaler}
//              cluster simulation settings (sim/settings.cpp)
// RBAC is expressed with ordinary ClusterRole/ClusterRoleBinding/Role/RoleBinding objects.
// With no users, the server adds default_admin_user(). tests/fixtures/scenarios/README.md
// documents the same format for scenario authors.
#include <fakekube/server.hpp>

#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include <openssl/rand.h>

#include "scenario_yaml.hpp"

namespace fakekube {
namespace {

using nlohmann::json;

[[noreturn]] void fail(const std::string& origin, const std::string& what) {
  throw std::runtime_error(origin + ": " + what);
}

std::string random_hex(std::size_t bytes) {
  std::vector<unsigned char> buffer(bytes);
  if (RAND_bytes(buffer.data(), static_cast<int>(bytes)) != 1)
    throw std::runtime_error("fakekube: RAND_bytes failed");
  static const char* k_digits = "0123456789abcdef";
  std::string text;
  for (unsigned char byte : buffer) {
    text.push_back(k_digits[byte >> 4]);
    text.push_back(k_digits[byte & 15]);
  }
  return text;
}

void check_keys(const json& object, const std::set<std::string>& allowed,
                const std::string& origin, const std::string& where) {
  for (const auto& [key, value] : object.items())
    if (!allowed.count(key)) fail(origin, where + ": unknown key \"" + key + "\"");
}

// Appends the objects in `node` (an object, a List or an array of either) to `out`.
void collect_objects(const json& node, json& out, const std::string& origin,
                     const std::string& where) {
  if (node.is_null()) return;
  if (node.is_array()) {
    for (std::size_t i = 0; i < node.size(); ++i)
      collect_objects(node[i], out, origin, where + "[" + std::to_string(i) + "]");
    return;
  }
  if (!node.is_object()) fail(origin, where + ": expected a Kubernetes object, got " +
                                          std::string(node.type_name()));
  if (node.contains("items") && node.value("kind", "").ends_with("List")) {
    collect_objects(node["items"], out, origin, where + ".items");
    return;
  }
  const json& metadata = node.contains("metadata") ? node["metadata"] : json();
  if (!node.contains("apiVersion") || !node["apiVersion"].is_string())
    fail(origin, where + ": object has no apiVersion");
  if (!node.contains("kind") || !node["kind"].is_string())
    fail(origin, where + ": object has no kind");
  if (!metadata.is_object() || !(metadata.contains("name") || metadata.contains("generateName")))
    fail(origin, where + ": " + node["kind"].get<std::string>() + " has no metadata.name");
  out.push_back(node);
}

template <typename T>
T get_field(const json& object, const char* key, const std::string& origin,
            const std::string& where, T fallback) {
  if (!object.contains(key)) return fallback;
  try {
    return object.at(key).get<T>();
  } catch (const json::exception&) {
    fail(origin, where + "." + key + ": wrong type (" + std::string(object.at(key).type_name()) +
                     ")");
  }
}

std::vector<User> parse_users(const json& node, const std::string& origin) {
  if (!node.is_array()) fail(origin, "users: expected a list");
  std::vector<User> users;
  for (std::size_t i = 0; i < node.size(); ++i) {
    std::string where = "users[" + std::to_string(i) + "]";
    const json& entry = node[i];
    if (!entry.is_object()) fail(origin, where + ": expected a mapping");
    check_keys(entry, {"name", "groups", "token", "password", "clientCertificate"}, origin, where);
    User user;
    user.name = get_field<std::string>(entry, "name", origin, where, "");
    if (user.name.empty()) fail(origin, where + ": name is required");
    user.groups = get_field<std::vector<std::string>>(entry, "groups", origin, where, {});
    user.token = get_field<std::string>(entry, "token", origin, where, "");
    user.password = get_field<std::string>(entry, "password", origin, where, "");
    user.client_certificate = get_field<bool>(entry, "clientCertificate", origin, where, false);
    for (const User& other : users)
      if (other.name == user.name) fail(origin, where + ": duplicate user \"" + user.name + "\"");
    users.push_back(std::move(user));
  }
  return users;
}

void parse_faults(const json& node, Scenario& scenario, const std::string& origin) {
  if (!node.is_object()) fail(origin, "faults: expected a mapping");
  check_keys(node,
             {"latencyMs", "tooManyRequestsEveryNth", "retryAfterSeconds", "serverErrorEveryNth",
              "serverErrorCode", "dropMidBodyEveryNth", "tokenTtlRequests",
              "conflictOnFirstUpdate", "expireContinueTokens"},
             origin, "faults");
  TransportFaults& t = scenario.transport_faults;
  t.latency_ms = get_field<int>(node, "latencyMs", origin, "faults", 0);
  t.too_many_every_nth = get_field<int>(node, "tooManyRequestsEveryNth", origin, "faults", 0);
  t.retry_after_seconds = get_field<int>(node, "retryAfterSeconds", origin, "faults", 1);
  t.server_error_every_nth = get_field<int>(node, "serverErrorEveryNth", origin, "faults", 0);
  int code = get_field<int>(node, "serverErrorCode", origin, "faults", 500);
  if (code != 500 && code != 503) fail(origin, "faults.serverErrorCode: must be 500 or 503");
  t.server_error_is_503 = code == 503;
  t.drop_mid_body_every_nth = get_field<int>(node, "dropMidBodyEveryNth", origin, "faults", 0);
  t.token_ttl_requests = get_field<int>(node, "tokenTtlRequests", origin, "faults", 0);
  for (int value : {t.latency_ms, t.too_many_every_nth, t.retry_after_seconds,
                    t.server_error_every_nth, t.drop_mid_body_every_nth, t.token_ttl_requests})
    if (value < 0) fail(origin, "faults: values must not be negative");
  scenario.api_faults.conflict_on_first_update =
      get_field<bool>(node, "conflictOnFirstUpdate", origin, "faults", false);
  scenario.api_faults.expire_continue_tokens =
      get_field<bool>(node, "expireContinueTokens", origin, "faults", false);
}

CertificateFault parse_certificate_fault(const std::string& text, const std::string& origin) {
  if (text == "none") return CertificateFault::none;
  if (text == "expired") return CertificateFault::expired;
  if (text == "wrongHost") return CertificateFault::wrong_host;
  fail(origin, "certificateFault: \"" + text + "\" is not one of none, expired, wrongHost");
}

bool is_settings_form(const std::vector<json>& documents) {
  return documents.size() == 1 && documents[0].is_object() && documents[0].contains("objects") &&
         !documents[0].contains("kind");
}

} // namespace

User default_admin_user() {
  User admin;
  admin.name = "admin";
  admin.groups = {"system:masters"};
  admin.token = "admin-" + random_hex(16);
  admin.password = random_hex(12);
  admin.client_certificate = true;
  return admin;
}

Scenario parse_scenario(const std::string& text, const std::string& origin) {
  std::vector<json> documents;
  std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) fail(origin, "empty scenario");
  if (text[first] == '{' || text[first] == '[') {
    try {
      documents.push_back(json::parse(text));
    } catch (const json::parse_error& error) {
      fail(origin, std::string("invalid JSON: ") + error.what());
    }
  } else {
    try {
      documents = parse_yaml_documents(text);
    } catch (const std::exception& error) {
      fail(origin, std::string("invalid YAML: ") + error.what());
    }
  }
  if (documents.empty()) fail(origin, "no objects in scenario");

  Scenario scenario;
  if (is_settings_form(documents)) {
    const json& settings = documents[0];
    check_keys(settings,
               {"objects", "users", "faults", "serverVersion", "certificateFault", "simulation"},
               origin, "scenario");
    collect_objects(settings["objects"], scenario.objects, origin, "objects");
    if (settings.contains("users")) scenario.users = parse_users(settings["users"], origin);
    if (settings.contains("faults")) parse_faults(settings["faults"], scenario, origin);
    scenario.server_version =
        get_field<std::string>(settings, "serverVersion", origin, "scenario", "v1.30.4");
    if (!scenario.server_version.starts_with("v"))
      fail(origin, "serverVersion: \"" + scenario.server_version + "\" must look like v1.30.4");
    scenario.certificate_fault = parse_certificate_fault(
        get_field<std::string>(settings, "certificateFault", origin, "scenario", "none"), origin);
    if (settings.contains("simulation")) {
      try {
        scenario.simulation = parse_simulation_settings(settings["simulation"]);
      } catch (const std::runtime_error& error) {
        fail(origin, error.what());
      }
    }
  } else {
    for (std::size_t i = 0; i < documents.size(); ++i)
      collect_objects(documents[i], scenario.objects, origin,
                      "document " + std::to_string(i + 1));
  }
  return scenario;
}

Scenario load_scenario(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path.string() + ": cannot read scenario file");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_scenario(text.str(), path.string());
}

} // namespace fakekube
