// SPDX-License-Identifier: Apache-2.0
// Object metadata shared by every view, and API timestamps.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include <gpuslice/model/labels.hpp>

namespace gpuslice::model {

// metadata.ownerReferences[] entry.
struct OwnerReference {
  std::string api_version;
  std::string kind;
  std::string name;
  std::string uid;
  bool controller = false;
  bool operator==(const OwnerReference&) const = default;
};

// The parts of metadata the tool reads. Timestamps stay as the API's RFC 3339 text so that
// snapshots round-trip exactly; parse_time() turns them into time points.
struct ObjectMeta {
  std::string ns; // empty for cluster-scoped objects
  std::string name;
  std::string uid;
  std::string resource_version;
  std::string creation_timestamp;
  long long generation = 0;
  StringMap labels;
  StringMap annotations;
  std::vector<OwnerReference> owner_references;
  bool operator==(const ObjectMeta&) const = default;

  // The owner reference with controller=true, if any.
  const OwnerReference* controller() const;
  // Whether this object's controller is `owner`, of `kind`, in the same namespace (as a pod
  // of a DaemonSet or ReplicaSet is).
  bool controlled_by(std::string_view kind, const ObjectMeta& owner) const;
  // The label value or nullopt.
  std::optional<std::string_view> label(std::string_view key) const;
  // The annotation value or nullopt.
  std::optional<std::string_view> annotation(std::string_view key) const;
};

using TimePoint = std::chrono::sys_seconds;
// Parses RFC 3339 ("2026-01-01T12:00:00Z", fractional seconds and offsets allowed; fractions
// truncated). nullopt for empty or malformed text.
std::optional<TimePoint> parse_time(std::string_view text);
// RFC 3339 UTC with second precision, as the API writes creationTimestamp.
std::string format_time(TimePoint time);

ObjectMeta meta_from_json(const nlohmann::json& metadata);
nlohmann::json to_json(const ObjectMeta& meta);

} // namespace gpuslice::model
