// SPDX-License-Identifier: Apache-2.0
// Metadata as the real server sets it: uid, creationTimestamp, generation rules,
// managedFields entries, and the index a StoredObject carries.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "fieldset.hpp"
#include "resources.hpp"
#include "store.hpp"

namespace fakekube {

// A random RFC 4122 version-4 UUID.
std::string new_uid();
// Now as RFC 3339 UTC with second precision, e.g. 2026-01-01T12:00:00Z.
std::string timestamp_now();
// `base` plus five random characters from the alphabet generateName uses.
std::string generate_name(const std::string& base);
// The field manager of a request: ?fieldManager, else the User-Agent before its first '/'.
std::string manager_name(const std::string& field_manager, const std::string& user_agent);

// Serializes `object` (rv, as given) and indexes labels, selectable fields and owners.
StoredObject index_object(const std::string& resource_key, const nlohmann::json& object);

// Sets metadata.generation on an update of the main resource (Deployment: spec or annotations
// changed; DaemonSet: spec, with its template-generation annotation; others with generation:
// spec). Never called for /status writes.
void update_generation(const ResourceInfo& info, const nlohmann::json& before,
                       nlohmann::json& after);
// Whether the kind keeps metadata.generation at all.
bool keeps_generation(const ResourceInfo& info);

// Records `changed` as owned by (`manager`, `operation`) in after.metadata.managedFields and
// takes it away from other managers, as an Update does; Apply entries replace the set.
void record_managed_fields(nlohmann::json& after, const std::string& manager,
                           const std::string& operation, const std::string& api_version,
                           const std::string& subresource, const FieldSet& changed,
                           bool replace_set);

} // namespace fakekube
