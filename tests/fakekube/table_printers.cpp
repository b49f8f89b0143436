// SPDX-License-Identifier: Apache-2.0
#include "table_printers.hpp"

#include <map>

#include <fmt/format.h>

#include "table.hpp"

namespace fakekube {
namespace {

using nlohmann::json;

const json k_none = json::object();

std::string name_of(const json& object) {
  return object.value("metadata", k_none).value("name", std::string());
}

std::string created_age(const json& object) {
  return age_of(object.value("metadata", k_none).value("creationTimestamp", std::string()));
}

std::string selector_text(const json& spec) {
  std::string text;
  const json labels = spec.value("selector", k_none).value("matchLabels", k_none);
  for (const auto& [key, value] : labels.items()) {
    text += (text.empty() ? "" : ",") + key + "=" + value.get<std::string>();
  }
  return text.empty() ? "<none>" : text;
}

std::pair<std::string, std::string> containers_and_images(const json& spec) {
  std::string names;
  std::string images;
  const json pod_spec = spec.value("template", k_none).value("spec", k_none);
  for (const json& container : pod_spec.value("containers", json::array())) {
    names += (names.empty() ? "" : ",") + container.value("name", std::string());
    images += (images.empty() ? "" : ",") + container.value("image", std::string());
  }
  return {names, images};
}

json deployment_row(const json& object) {
  const json spec = object.value("spec", k_none);
  const json status = object.value("status", k_none);
  const auto [names, images] = containers_and_images(spec);
  return json::array({name_of(object),
                      fmt::format("{}/{}", status.value("readyReplicas", 0), spec.value("replicas", 0)),
                      status.value("updatedReplicas", 0), status.value("availableReplicas", 0),
                      created_age(object), names, images, selector_text(spec)});
}

json daemonset_row(const json& object) {
  const json spec = object.value("spec", k_none);
  const json status = object.value("status", k_none);
  std::string node_selector;
  const json selector = spec.value("template", k_none).value("spec", k_none).value("nodeSelector", k_none);
  for (const auto& [key, value] : selector.items()) {
    node_selector += (node_selector.empty() ? "" : ",") + key + "=" + value.get<std::string>();
  }
  const auto [names, images] = containers_and_images(spec);
  return json::array({name_of(object), status.value("desiredNumberScheduled", 0),
                      status.value("currentNumberScheduled", 0), status.value("numberReady", 0),
                      status.value("updatedNumberScheduled", 0), status.value("numberAvailable", 0),
                      node_selector.empty() ? "<none>" : node_selector, created_age(object), names, images,
                      selector_text(spec)});
}

json event_row(const json& event) {
  const json involved = event.value("involvedObject", k_none);
  std::string kind = involved.value("kind", std::string());
  for (char& c : kind) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  std::string last = event.value("lastTimestamp", std::string());
  if (last.empty() || last == "null") {
    last = event.value("eventTime", std::string());
  }
  const json source = event.value("source", k_none);
  std::string source_text = source.value("component", std::string());
  if (!source.value("host", std::string()).empty()) {
    source_text += ", " + source["host"].get<std::string>();
  }
  return json::array({last.empty() ? created_age(event) : age_of(last), event.value("type", std::string()),
                      event.value("reason", std::string()),
                      kind + "/" + involved.value("name", std::string()),
                      involved.value("fieldPath", std::string()), source_text,
                      event.value("message", std::string()),
                      age_of(event.value("firstTimestamp", std::string())),
                      event.value("count", 1), name_of(event)});
}

const std::map<std::string, Printer>& printers() {
  static const std::map<std::string, Printer> k_printers = {
      {"apps/deployments",
       {{table_column("Name", "string", 0, "name"), table_column("Ready", "string", 0),
         table_column("Up-to-date", "integer", 0), table_column("Available", "integer", 0),
         table_column("Age", "string", 0), table_column("Containers", "string", 1),
         table_column("Images", "string", 1), table_column("Selector", "string", 1)},
        deployment_row}},
      {"apps/daemonsets",
       {{table_column("Name", "string", 0, "name"), table_column("Desired", "integer", 0),
         table_column("Current", "integer", 0), table_column("Ready", "integer", 0),
         table_column("Up-to-date", "integer", 0), table_column("Available", "integer", 0),
         table_column("Node Selector", "string", 0), table_column("Age", "string", 0),
         table_column("Containers", "string", 1), table_column("Images", "string", 1),
         table_column("Selector", "string", 1)},
        daemonset_row}},
      {"/namespaces",
       {{table_column("Name", "string", 0, "name"), table_column("Status", "string", 0),
         table_column("Age", "string", 0)},
        [](const json& ns) {
          return json::array({name_of(ns), ns.value("status", k_none).value("phase", std::string()),
                              created_age(ns)});
        }}},
      {"/configmaps",
       {{table_column("Name", "string", 0, "name"), table_column("Data", "integer", 0),
         table_column("Age", "string", 0)},
        [](const json& cm) {
          return json::array({name_of(cm),
                              cm.value("data", k_none).size() + cm.value("binaryData", k_none).size(),
                              created_age(cm)});
        }}},
      {"/events",
       {{table_column("Last Seen", "string", 0), table_column("Type", "string", 0),
         table_column("Reason", "string", 0), table_column("Object", "string", 0),
         table_column("Subobject", "string", 1), table_column("Source", "string", 1),
         table_column("Message", "string", 0), table_column("First Seen", "string", 1),
         table_column("Count", "string", 1), table_column("Name", "string", 1)},
        event_row}},
  };
  return k_printers;
}

} // namespace

json table_column(const std::string& name, const std::string& type, int priority,
                  const std::string& format) {
  return {{"name", name}, {"type", type}, {"format", format}, {"description", name},
          {"priority", priority}};
}

std::string age_of(const std::string& timestamp) {
  std::tm tm{};
  if (timestamp.empty() || strptime(timestamp.c_str(), "%Y-%m-%dT%H:%M:%S", &tm) == nullptr) {
    return "<unknown>";
  }
  const std::time_t then = timegm(&tm);
  return human_duration(static_cast<long long>(std::time(nullptr) - then));
}

const Printer* find_printer(const ResourceInfo& info) {
  if (info.custom) {
    return nullptr;
  }
  auto it = printers().find(info.group + "/" + info.plural);
  return it == printers().end() ? nullptr : &it->second;
}

} // namespace fakekube
