// SPDX-License-Identifier: Apache-2.0
#include "defaults.hpp"

#include "object_meta.hpp"

namespace fakekube {
namespace {

using nlohmann::json;

void set_default(json& object, const char* key, const json& value) {
  if (!object.contains(key)) {
    object[key] = value;
  }
}

// SetDefaults_PodSpec (what a workload's pod template gets too); `pod` adds what only pods
// get: SetDefaults_Pod and the ServiceAccount, Priority and DefaultTolerationSeconds admission
// plugins, which do not touch templates (so a template re-created from its own dump is equal).
void default_pod_spec(json& spec, bool pod = true) {
  set_default(spec, "restartPolicy", "Always");
  set_default(spec, "dnsPolicy", "ClusterFirst");
  set_default(spec, "schedulerName", "default-scheduler");
  set_default(spec, "terminationGracePeriodSeconds", 30);
  set_default(spec, "securityContext", json::object());
  for (json& container : spec["containers"]) {
    set_default(container, "terminationMessagePath", "/dev/termination-log");
    set_default(container, "terminationMessagePolicy", "File");
    set_default(container, "imagePullPolicy", "IfNotPresent");
    set_default(container, "resources", json::object());
  }
  if (!pod) return;
  set_default(spec, "serviceAccountName", "default");
  spec["serviceAccount"] = spec["serviceAccountName"];
  set_default(spec, "enableServiceLinks", true);
  set_default(spec, "priority", 0);
  set_default(spec, "preemptionPolicy", "PreemptLowerPriority");
  // The DefaultTolerationSeconds admission plugin adds these unless already tolerated.
  json tolerations = spec.value("tolerations", json::array());
  for (const char* key : {"node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"}) {
    bool present = false;
    for (const json& toleration : tolerations) {
      present = present || toleration.value("key", std::string()) == key;
    }
    if (!present) {
      tolerations.push_back({{"key", key},
                             {"operator", "Exists"},
                             {"effect", "NoExecute"},
                             {"tolerationSeconds", 300}});
    }
  }
  spec["tolerations"] = tolerations;
}

} // namespace

std::string pod_qos_class(const json& pod) {
  const json none = json::object();
  bool any = false;
  bool guaranteed = true;
  for (const json& container : pod.value("spec", none).value("containers", json::array())) {
    const json resources = container.value("resources", none);
    const json requests = resources.value("requests", none);
    const json limits = resources.value("limits", none);
    any = any || !requests.empty() || !limits.empty();
    for (const char* name : {"cpu", "memory"}) {
      // Requests default to limits, so only limits decide Guaranteed.
      if (!limits.contains(name) || (requests.contains(name) && requests[name] != limits[name])) {
        guaranteed = false;
      }
    }
  }
  if (!any) {
    return "BestEffort";
  }
  return guaranteed ? "Guaranteed" : "Burstable";
}

void apply_create_defaults(const ResourceInfo& info, json& object) {
  const bool core = info.group.empty();
  if (core && info.plural == "pods") {
    if (object.contains("spec") && object["spec"].is_object()) {
      default_pod_spec(object["spec"]);
    }
    object["status"] = {{"phase", "Pending"}, {"qosClass", pod_qos_class(object)}};
  } else if (core && info.plural == "namespaces") {
    object["spec"] = {{"finalizers", {"kubernetes"}}};
    object.erase("status");
  } else if (core && info.plural == "nodes") {
    // Nodes may be created with their status, as kubelets do.
  } else if (info.has_subresource("status")) {
    object.erase("status");
  }
  if (!info.custom && (info.plural == "deployments" || info.plural == "daemonsets" ||
                       info.plural == "statefulsets" || info.plural == "replicasets")) {
    json& spec = object["spec"];
    if (info.plural != "daemonsets") {
      set_default(spec, "replicas", 1);
    }
    set_default(spec, "revisionHistoryLimit", 10);
    if (spec.contains("template") && spec["template"].contains("spec")) {
      default_pod_spec(spec["template"]["spec"], false);
    }
  }
  apply_server_status(info, object);
}

void apply_server_status(const ResourceInfo& info, json& object) {
  if (info.group.empty() && info.plural == "namespaces") {
    const bool terminating = object["metadata"].contains("deletionTimestamp");
    object["status"]["phase"] = terminating ? "Terminating" : "Active";
  } else if (info.plural == "customresourcedefinitions" && !info.custom) {
    const std::string now = timestamp_now();
    json& status = object["status"];
    if (!status.contains("conditions")) {
      status["conditions"] = {
          {{"type", "NamesAccepted"}, {"status", "True"}, {"reason", "NoConflicts"},
           {"message", "no conflicts found"}, {"lastTransitionTime", now}},
          {{"type", "Established"}, {"status", "True"}, {"reason", "InitialNamesAccepted"},
           {"message", "the initial names have been accepted"}, {"lastTransitionTime", now}}};
    }
    status["acceptedNames"] = object.value("spec", json::object()).value("names", json::object());
    json stored = json::array();
    for (const json& version : object["spec"].value("versions", json::array())) {
      if (version.value("storage", false)) {
        stored.push_back(version.value("name", std::string()));
      }
    }
    status["storedVersions"] = stored;
  }
}

} // namespace fakekube
