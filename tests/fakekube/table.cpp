// SPDX-License-Identifier: Apache-2.0
#include "table.hpp"

#include <chrono>
#include <ctime>

#include <fmt/format.h>

#include "api_state.hpp"
#include "status_errors.hpp"
#include "table_printers.hpp"

namespace fakekube {
namespace {

using nlohmann::json;

json column(const std::string& name, const std::string& type, int priority,
            const std::string& format = "") {
  return {{"name", name}, {"type", type}, {"format", format}, {"description", name},
          {"priority", priority}};
}

long long seconds_since(const std::string& timestamp) {
  std::tm tm{};
  if (timestamp.empty() || strptime(timestamp.c_str(), "%Y-%m-%dT%H:%M:%SZ", &tm) == nullptr) {
    return 0;
  }
  const std::time_t then = timegm(&tm);
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  return static_cast<long long>(now - then);
}

std::string age(const json& object) {
  const std::string created =
      object.value("metadata", json::object()).value("creationTimestamp", std::string());
  return created.empty() ? "<unknown>" : human_duration(seconds_since(created));
}

std::string or_none(const std::string& value) { return value.empty() ? "<none>" : value; }

json pod_row(const json& pod) {
  const json none = json::object();
  const json status = pod.value("status", none);
  const json spec = pod.value("spec", none);
  const json statuses = status.value("containerStatuses", json::array());
  int ready = 0;
  long long restarts = 0;
  std::string reason = status.value("phase", std::string());
  if (!status.value("reason", std::string()).empty()) {
    reason = status["reason"];
  }
  for (const json& container : statuses) {
    ready += container.value("ready", false) ? 1 : 0;
    restarts += container.value("restartCount", 0);
    const json state = container.value("state", none);
    if (state.contains("waiting") && !state["waiting"].value("reason", std::string()).empty()) {
      reason = state["waiting"]["reason"];
    } else if (state.contains("terminated")) {
      reason = state["terminated"].value("reason", std::string("Completed"));
    }
  }
  if (pod["metadata"].contains("deletionTimestamp")) {
    reason = "Terminating";
  }
  const std::size_t total = spec.value("containers", json::array()).size();
  return json::array({pod["metadata"].value("name", std::string()),
                      fmt::format("{}/{}", ready, total), reason, restarts, age(pod),
                      or_none(status.value("podIP", std::string())),
                      or_none(spec.value("nodeName", std::string())),
                      or_none(status.value("nominatedNodeName", std::string())), "<none>"});
}

json node_row(const json& node) {
  const json none = json::object();
  const json status = node.value("status", none);
  std::string state = "Unknown";
  for (const json& condition : status.value("conditions", json::array())) {
    if (condition.value("type", std::string()) == "Ready") {
      state = condition.value("status", std::string()) == "True" ? "Ready" : "NotReady";
    }
  }
  if (node.value("spec", none).value("unschedulable", false)) {
    state += ",SchedulingDisabled";
  }
  std::string roles;
  const json labels = node["metadata"].value("labels", json::object());
  for (const auto& [key, value] : labels.items()) {
    std::string role;
    if (key.rfind("node-role.kubernetes.io/", 0) == 0) {
      role = key.substr(std::string("node-role.kubernetes.io/").size());
    } else if (key == "kubernetes.io/role" && value.is_string()) {
      role = value.get<std::string>();
    }
    if (!role.empty()) {
      roles += (roles.empty() ? "" : ",") + role;
    }
  }
  std::string internal_ip;
  std::string external_ip;
  for (const json& address : status.value("addresses", json::array())) {
    const std::string type = address.value("type", std::string());
    if (type == "InternalIP" && internal_ip.empty()) {
      internal_ip = address.value("address", std::string());
    } else if (type == "ExternalIP" && external_ip.empty()) {
      external_ip = address.value("address", std::string());
    }
  }
  const json info = status.value("nodeInfo", none);
  return json::array({node["metadata"].value("name", std::string()), state, or_none(roles),
                      age(node), info.value("kubeletVersion", std::string()),
                      or_none(internal_ip), or_none(external_ip),
                      info.value("osImage", std::string()),
                      info.value("kernelVersion", std::string()),
                      info.value("containerRuntimeVersion", std::string())});
}

// Kinds without a printer: the server's default NAME and AGE columns; like the CRD table
// convertor it renders the "date" cell as an age, since kubectl prints cells verbatim.
json generic_row(const json& object) {
  return json::array({object["metadata"].value("name", std::string()), age(object)});
}

// Real objects carry nulls (eventTime, lastProbeTime); the printers read absent and null
// fields alike, so nulls are dropped before printing.
json without_nulls(const json& value) {
  if (value.is_array()) {
    json out = json::array();
    for (const json& item : value) {
      out.push_back(without_nulls(item));
    }
    return out;
  }
  if (!value.is_object()) {
    return value;
  }
  json out = json::object();
  for (auto it = value.begin(); it != value.end(); ++it) {
    if (!it->is_null()) {
      out[it.key()] = without_nulls(*it);
    }
  }
  return out;
}

} // namespace

std::string human_duration(long long seconds) {
  if (seconds < -1) {
    return "<invalid>";
  }
  if (seconds < 0) {
    return "0s";
  }
  if (seconds < 120) {
    return fmt::format("{}s", seconds);
  }
  const long long minutes = seconds / 60;
  if (minutes < 10) {
    return seconds % 60 == 0 ? fmt::format("{}m", minutes)
                             : fmt::format("{}m{}s", minutes, seconds % 60);
  }
  if (minutes < 180) {
    return fmt::format("{}m", minutes);
  }
  const long long hours = minutes / 60;
  if (hours < 8) {
    return minutes % 60 == 0 ? fmt::format("{}h", hours)
                             : fmt::format("{}h{}m", hours, minutes % 60);
  }
  if (hours < 48) {
    return fmt::format("{}h", hours);
  }
  if (hours < 24 * 8) {
    return hours % 24 == 0 ? fmt::format("{}d", hours / 24)
                           : fmt::format("{}d{}h", hours / 24, hours % 24);
  }
  if (hours < 24 * 365 * 2) {
    return fmt::format("{}d", hours / 24);
  }
  if (hours < 24 * 365 * 8) {
    const long long days = (hours / 24) % 365;
    return days == 0 ? fmt::format("{}y", hours / 24 / 365)
                     : fmt::format("{}y{}d", hours / 24 / 365, days);
  }
  return fmt::format("{}y", hours / 24 / 365);
}

bool wants_table(const std::string& accept) {
  return accept.find("as=Table") != std::string::npos;
}

json render_table(const ResourceInfo& info, const std::vector<json>& objects,
                  const json& list_meta, const ApiRequest& request) {
  const std::string include = query_value(request, "includeObject").value_or("Metadata");
  if (include != "Metadata" && include != "Object" && include != "None") {
    throw bad_request("includeObject: Unsupported value: \"" + include +
                      "\": supported values: \"Metadata\", \"None\", \"Object\"");
  }
  json columns;
  const bool pods = info.group.empty() && info.plural == "pods";
  const bool nodes = info.group.empty() && info.plural == "nodes";
  const Printer* printer = find_printer(info);
  if (pods) {
    columns = {column("Name", "string", 0, "name"), column("Ready", "string", 0),
               column("Status", "string", 0),        column("Restarts", "string", 0),
               column("Age", "string", 0),           column("IP", "string", 1),
               column("Node", "string", 1),          column("Nominated Node", "string", 1),
               column("Readiness Gates", "string", 1)};
  } else if (nodes) {
    columns = {column("Name", "string", 0, "name"),  column("Status", "string", 0),
               column("Roles", "string", 0),         column("Age", "string", 0),
               column("Version", "string", 0),       column("Internal-IP", "string", 1),
               column("External-IP", "string", 1),   column("OS-Image", "string", 1),
               column("Kernel-Version", "string", 1), column("Container-Runtime", "string", 1)};
  } else if (printer != nullptr) {
    columns = printer->columns;
  } else {
    columns = {column("Name", "string", 0, "name"), column("Age", "date", 0)};
  }
  json rows = json::array();
  for (const json& original : objects) {
    const json object = without_nulls(original);
    json row = {{"cells", pods    ? pod_row(object)
                          : nodes ? node_row(object)
                          : printer != nullptr ? printer->row(object)
                                               : generic_row(object)}};
    if (include == "Object") {
      row["object"] = original;
    } else if (include == "Metadata") {
      json metadata = object["metadata"];
      metadata.erase("managedFields");
      row["object"] = {{"kind", "PartialObjectMetadata"},
                       {"apiVersion", "meta.k8s.io/v1"},
                       {"metadata", metadata}};
    }
    rows.push_back(row);
  }
  return {{"kind", "Table"},
          {"apiVersion", "meta.k8s.io/v1"},
          {"metadata", list_meta},
          {"columnDefinitions", columns},
          {"rows", rows}};
}

} // namespace fakekube
