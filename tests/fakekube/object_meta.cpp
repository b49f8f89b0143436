// SPDX-License-Identifier: Apache-2.0
#include "object_meta.hpp"

#include <chrono>
#include <ctime>
#include <random>

#include <fmt/format.h>

#include "selectors.hpp"

namespace fakekube {
namespace {

std::mt19937_64& rng() {
  static thread_local std::mt19937_64 engine{std::random_device{}()};
  return engine;
}

} // namespace

std::string new_uid() {
  const std::uint64_t high = rng()();
  const std::uint64_t low = rng()();
  return fmt::format("{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}", high >> 32, (high >> 16) & 0xffff,
                     high & 0xfff, 0x8000 | (low >> 48 & 0x3fff), low & 0xffffffffffffULL);
}

std::string timestamp_now() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

std::string generate_name(const std::string& base) {
  // apiserver's names.SimpleNameGenerator: no vowels, no confusable digits.
  static const std::string k_alphabet = "bcdfghjklmnpqrstvwxz2456789";
  std::string name = base;
  for (int i = 0; i < 5; ++i) {
    name += k_alphabet[rng()() % k_alphabet.size()];
  }
  return name;
}

std::string manager_name(const std::string& field_manager, const std::string& user_agent) {
  if (!field_manager.empty()) {
    return field_manager;
  }
  const std::string prefix = user_agent.substr(0, user_agent.find('/'));
  return prefix.empty() ? "unknown" : prefix;
}

StoredObject index_object(const std::string& resource_key, const nlohmann::json& object) {
  StoredObject stored;
  stored.bytes = std::make_shared<const std::string>(object.dump());
  const nlohmann::json& metadata = object.at("metadata");
  stored.ns = metadata.value("namespace", std::string());
  stored.name = metadata.value("name", std::string());
  stored.uid = metadata.value("uid", std::string());
  stored.resource_version = std::stoull(metadata.value("resourceVersion", std::string("0")));
  const nlohmann::json labels = metadata.value("labels", nlohmann::json::object());
  for (const auto& [key, value] : labels.items()) {
    stored.labels[key] = value.is_string() ? value.get<std::string>() : value.dump();
  }
  for (const nlohmann::json& owner : metadata.value("ownerReferences", nlohmann::json::array())) {
    stored.owner_uids.push_back(owner.value("uid", std::string()));
  }
  stored.fields = selectable_fields(resource_key, object);
  return stored;
}

bool keeps_generation(const ResourceInfo& info) {
  return info.custom || info.group == "apps" || info.plural == "customresourcedefinitions";
}

void update_generation(const ResourceInfo& info, const nlohmann::json& before,
                       nlohmann::json& after) {
  if (!keeps_generation(info)) {
    return;
  }
  const std::int64_t generation = before["metadata"].value("generation", std::int64_t{1});
  const nlohmann::json none = nlohmann::json::object();
  const bool spec_changed = before.value("spec", none) != after.value("spec", none);
  // Deployments also count annotation changes: they are copied to the ReplicaSets.
  const bool annotations_changed =
      info.plural == "deployments" && before["metadata"].value("annotations", none) !=
                                          after["metadata"].value("annotations", none);
  after["metadata"]["generation"] = generation + (spec_changed || annotations_changed ? 1 : 0);
  if (info.plural == "daemonsets") {
    const nlohmann::json template_before =
        before.value("spec", none).value("template", nlohmann::json());
    const nlohmann::json template_after =
        after.value("spec", none).value("template", nlohmann::json());
    std::int64_t template_generation = std::stoll(
        before["metadata"]
            .value("annotations", none)
            .value("deprecated.daemonset.template.generation", std::string("1")));
    if (template_before != template_after) {
      ++template_generation;
    }
    after["metadata"]["annotations"]["deprecated.daemonset.template.generation"] =
        std::to_string(template_generation);
  }
}

void record_managed_fields(nlohmann::json& after, const std::string& manager,
                           const std::string& operation, const std::string& api_version,
                           const std::string& subresource, const FieldSet& changed,
                           bool replace_set) {
  nlohmann::json& metadata = after["metadata"];
  nlohmann::json entries = metadata.value("managedFields", nlohmann::json::array());
  nlohmann::json kept = nlohmann::json::array();
  FieldSet mine;
  for (nlohmann::json& entry : entries) {
    FieldSet owned = from_fields_v1(entry.value("fieldsV1", nlohmann::json::object()));
    const bool same = entry.value("manager", std::string()) == manager &&
                      entry.value("operation", std::string()) == operation &&
                      entry.value("subresource", std::string()) == subresource;
    if (same) {
      if (!replace_set) {
        mine = owned;
      }
      continue;
    }
    if (operation == "Update") {
      for (const FieldPath& path : changed) {
        owned.erase(path); // an update takes ownership of what it changed
      }
    }
    if (owned.empty()) {
      continue; // real servers drop entries that no longer own anything
    }
    entry["fieldsV1"] = to_fields_v1(owned);
    kept.push_back(entry);
  }
  mine.insert(changed.begin(), changed.end());
  if (!mine.empty()) {
    nlohmann::json entry = {{"manager", manager},     {"operation", operation},
                            {"apiVersion", api_version}, {"time", timestamp_now()},
                            {"fieldsType", "FieldsV1"}, {"fieldsV1", to_fields_v1(mine)}};
    if (!subresource.empty()) {
      entry["subresource"] = subresource;
    }
    kept.push_back(entry);
  }
  if (kept.empty()) {
    metadata.erase("managedFields");
  } else {
    metadata["managedFields"] = kept;
  }
}

} // namespace fakekube
