// SPDX-License-Identifier: Apache-2.0
#include "rbac.hpp"

#include <algorithm>

namespace fakekube {
namespace {

using nlohmann::json;

bool contains(const json& list, const std::string& value) {
  if (!list.is_array()) {
    return false;
  }
  return std::any_of(list.begin(), list.end(), [&](const json& item) {
    return item.is_string() && (item == "*" || item == value);
  });
}

bool resource_matches(const json& resources, const std::string& resource,
                      const std::string& subresource) {
  const std::string combined = subresource.empty() ? resource : resource + "/" + subresource;
  if (!resources.is_array()) {
    return false;
  }
  return std::any_of(resources.begin(), resources.end(), [&](const json& item) {
    return item.is_string() &&
           (item == "*" || item == combined ||
            (!subresource.empty() && item == "*/" + subresource));
  });
}

bool url_matches(const json& urls, const std::string& path) {
  if (!urls.is_array()) {
    return false;
  }
  return std::any_of(urls.begin(), urls.end(), [&](const json& item) {
    if (!item.is_string()) {
      return false;
    }
    const std::string rule = item.get<std::string>();
    if (rule == "*" || rule == path) {
      return true;
    }
    return !rule.empty() && rule.back() == '*' &&
           path.compare(0, rule.size() - 1, rule, 0, rule.size() - 1) == 0;
  });
}

bool rule_allows(const json& rule, const Attributes& attributes) {
  if (!contains(rule.value("verbs", json::array()), attributes.verb)) {
    return false;
  }
  if (!attributes.resource_request) {
    return url_matches(rule.value("nonResourceURLs", json::array()), attributes.path);
  }
  if (!contains(rule.value("apiGroups", json::array()), attributes.group) ||
      !resource_matches(rule.value("resources", json::array()), attributes.resource,
                        attributes.subresource)) {
    return false;
  }
  const json names = rule.value("resourceNames", json::array());
  return names.empty() || (!attributes.name.empty() && contains(names, attributes.name));
}

// What system:discovery, system:basic-user and system:public-info-viewer grant everyone.
json builtin_rules() {
  return json::array(
      {{{"verbs", {"create"}},
        {"apiGroups", {"authorization.k8s.io"}},
        {"resources", {"selfsubjectaccessreviews", "selfsubjectrulesreviews"}}},
       {{"verbs", {"create"}},
        {"apiGroups", {"authentication.k8s.io"}},
        {"resources", {"selfsubjectreviews"}}},
       {{"verbs", {"get"}},
        {"nonResourceURLs",
         {"/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez", "/openapi", "/openapi/*",
          "/readyz", "/version", "/version/"}}}});
}

std::string subject_text(const json& subject) {
  const std::string kind = subject.value("kind", std::string());
  if (kind == "ServiceAccount") {
    return "ServiceAccount \"" + subject.value("name", std::string()) + "/" +
           subject.value("namespace", std::string()) + "\"";
  }
  return kind + " \"" + subject.value("name", std::string()) + "\"";
}

bool subject_matches(const json& subject, const Identity& identity) {
  const std::string kind = subject.value("kind", std::string());
  const std::string name = subject.value("name", std::string());
  if (kind == "User") {
    return name == identity.user;
  }
  if (kind == "Group") {
    return name == "system:authenticated" ||
           std::find(identity.groups.begin(), identity.groups.end(), name) !=
               identity.groups.end();
  }
  if (kind == "ServiceAccount") {
    return identity.user ==
           "system:serviceaccount:" + subject.value("namespace", std::string()) + ":" + name;
  }
  return false;
}

// Calls `visit(binding_text, rules)` for every binding that applies to `identity` in `ns`
// ("" = cluster-wide bindings only); stops when visit returns true.
template <typename Visit>
bool each_binding(const ApiState& state, const Identity& identity, const std::string& ns,
                  Visit visit) {
  const std::string group = "rbac.authorization.k8s.io";
  const auto role_rules = [&](const json& ref, const std::string& binding_ns) {
    const std::string kind = ref.value("kind", std::string());
    const StoredObject* role =
        kind == "ClusterRole"
            ? state.store.get(group + "/clusterroles", "", ref.value("name", std::string()))
            : state.store.get(group + "/roles", binding_ns, ref.value("name", std::string()));
    return role == nullptr ? json::array() : role->parse().value("rules", json::array());
  };
  const auto visit_bindings = [&](const std::string& plural, const std::string& binding_ns,
                                  bool namespaced) {
    for (const auto& [key, stored] : state.store.objects(group + "/" + plural)) {
      if (namespaced && stored.ns != binding_ns) {
        continue;
      }
      const json binding = stored.parse();
      const json ref = binding.value("roleRef", json::object());
      for (const json& subject : binding.value("subjects", json::array())) {
        if (!subject_matches(subject, identity)) {
          continue;
        }
        const std::string text =
            (namespaced ? "RoleBinding \"" + stored.name + "/" + stored.ns
                        : "ClusterRoleBinding \"" + stored.name) +
            "\" of " + ref.value("kind", std::string()) + " \"" +
            ref.value("name", std::string()) + "\" to " + subject_text(subject);
        if (visit(text, role_rules(ref, stored.ns))) {
          return true;
        }
      }
    }
    return false;
  };
  if (visit_bindings("clusterrolebindings", "", false)) {
    return true;
  }
  return !ns.empty() && visit_bindings("rolebindings", ns, true);
}

bool is_master(const Identity& identity) {
  return std::find(identity.groups.begin(), identity.groups.end(), "system:masters") !=
         identity.groups.end();
}

} // namespace

std::string request_verb(const ApiRequest& request, bool has_name) {
  if (request.method == "GET") {
    const std::string watch = query_value(request, "watch").value_or("");
    if (watch == "1" || watch == "true") {
      return "watch";
    }
    return has_name ? "get" : "list";
  }
  if (request.method == "POST") {
    return "create";
  }
  if (request.method == "PUT") {
    return "update";
  }
  if (request.method == "PATCH") {
    return "patch";
  }
  if (request.method == "DELETE") {
    return has_name ? "delete" : "deletecollection";
  }
  return "";
}

Decision authorize(const ApiState& state, const Identity& identity, const Attributes& attributes) {
  for (const json& rule : builtin_rules()) {
    if (rule_allows(rule, attributes)) {
      return {true, ""};
    }
  }
  Decision decision;
  each_binding(state, identity, attributes.ns, [&](const std::string& text, const json& rules) {
    for (const json& rule : rules) {
      if (rule_allows(rule, attributes)) {
        decision = {true, "RBAC: allowed by " + text};
        return true;
      }
    }
    return false;
  });
  if (!decision.allowed && is_master(identity)) {
    decision.allowed = true; // the privileged-group authorizer, ahead of RBAC in real servers
  }
  return decision;
}

StatusError forbidden(const Identity& identity, const Attributes& attributes) {
  if (!attributes.resource_request) {
    return StatusError(403, "Forbidden",
                       "forbidden: User \"" + identity.user + "\" cannot " + attributes.verb +
                           " path \"" + attributes.path + "\"",
                       json::object());
  }
  const std::string gr = group_resource(attributes.group, attributes.resource);
  const std::string resource = attributes.subresource.empty()
                                   ? attributes.resource
                                   : attributes.resource + "/" + attributes.subresource;
  std::string message = attributes.name.empty() ? gr + " is forbidden"
                                                 : gr + " \"" + attributes.name + "\" is forbidden";
  message += ": User \"" + identity.user + "\" cannot " + attributes.verb + " resource \"" +
             resource + "\" in API group \"" + attributes.group + "\"";
  message += attributes.ns.empty() ? " at the cluster scope"
                                   : " in the namespace \"" + attributes.ns + "\"";
  json details = {{"kind", attributes.resource}};
  if (!attributes.name.empty()) {
    details["name"] = attributes.name;
  }
  if (!attributes.group.empty()) {
    details["group"] = attributes.group;
  }
  return StatusError(403, "Forbidden", message, details);
}

json rules_review_status(const ApiState& state, const Identity& identity, const std::string& ns) {
  json resource_rules = json::array();
  json non_resource_rules = json::array();
  const auto add = [&](const json& rule) {
    if (rule.contains("nonResourceURLs")) {
      non_resource_rules.push_back(
          {{"verbs", rule.value("verbs", json::array())},
           {"nonResourceURLs", rule["nonResourceURLs"]}});
    } else {
      json entry = {{"verbs", rule.value("verbs", json::array())},
                    {"apiGroups", rule.value("apiGroups", json::array())},
                    {"resources", rule.value("resources", json::array())}};
      if (rule.contains("resourceNames")) {
        entry["resourceNames"] = rule["resourceNames"];
      }
      resource_rules.push_back(entry);
    }
  };
  each_binding(state, identity, ns, [&](const std::string&, const json& rules) {
    for (const json& rule : rules) {
      add(rule);
    }
    return false;
  });
  for (const json& rule : builtin_rules()) {
    add(rule);
  }
  return {{"resourceRules", resource_rules},
          {"nonResourceRules", non_resource_rules},
          {"incomplete", false}};
}

} // namespace fakekube
