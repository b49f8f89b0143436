// SPDX-License-Identifier: Apache-2.0
#include <gpuslice/model/meta.hpp>

#include <algorithm>
#include <charconv>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <gpuslice/model/json_fields.hpp>

#include "decode.hpp"

namespace gpuslice::model {
namespace {

// Reads exactly `width` digits at text[pos].
std::optional<int> digits(std::string_view text, std::size_t pos, std::size_t width) {
  if (pos + width > text.size()) return std::nullopt;
  int value = 0;
  for (std::size_t i = pos; i < pos + width; ++i) {
    if (text[i] < '0' || text[i] > '9') return std::nullopt;
    value = value * 10 + (text[i] - '0');
  }
  return value;
}

bool char_at(std::string_view text, std::size_t pos, std::string_view allowed) {
  return pos < text.size() && allowed.find(text[pos]) != std::string_view::npos;
}

} // namespace

const OwnerReference* ObjectMeta::controller() const {
  auto it = std::find_if(owner_references.begin(), owner_references.end(),
                         [](const OwnerReference& ref) { return ref.controller; });
  return it == owner_references.end() ? nullptr : &*it;
}

bool ObjectMeta::controlled_by(std::string_view kind, const ObjectMeta& owner) const {
  if (ns != owner.ns) return false;
  const OwnerReference* ref = controller();
  return ref && ref->kind == kind && ref->name == owner.name;
}

std::optional<std::string_view> ObjectMeta::label(std::string_view key) const {
  auto it = labels.find(key);
  if (it == labels.end()) return std::nullopt;
  return std::string_view(it->second);
}

std::optional<std::string_view> ObjectMeta::annotation(std::string_view key) const {
  auto it = annotations.find(key);
  if (it == annotations.end()) return std::nullopt;
  return std::string_view(it->second);
}

std::optional<TimePoint> parse_time(std::string_view text) {
  using namespace std::chrono;
  std::optional<int> y = digits(text, 0, 4), mo = digits(text, 5, 2), d = digits(text, 8, 2);
  std::optional<int> h = digits(text, 11, 2), mi = digits(text, 14, 2), s = digits(text, 17, 2);
  if (!y || !mo || !d || !h || !mi || !s || !char_at(text, 4, "-") || !char_at(text, 7, "-") ||
      !char_at(text, 10, "Tt ") || !char_at(text, 13, ":") || !char_at(text, 16, ":"))
    return std::nullopt;
  year_month_day date{year{*y}, month{static_cast<unsigned>(*mo)}, day{static_cast<unsigned>(*d)}};
  if (!date.ok() || *h > 23 || *mi > 59 || *s > 60) return std::nullopt;
  std::size_t pos = 19;
  if (char_at(text, pos, ".")) {
    ++pos;
    std::size_t start = pos;
    while (char_at(text, pos, "0123456789")) ++pos;
    if (pos == start) return std::nullopt;
  }
  seconds offset{0};
  if (char_at(text, pos, "Zz") && pos + 1 == text.size()) {
    // UTC
  } else if (char_at(text, pos, "+-") && pos + 6 == text.size() && char_at(text, pos + 3, ":")) {
    std::optional<int> oh = digits(text, pos + 1, 2), om = digits(text, pos + 4, 2);
    if (!oh || !om) return std::nullopt;
    offset = hours{*oh} + minutes{*om};
    if (text[pos] == '-') offset = -offset;
  } else {
    return std::nullopt;
  }
  return sys_days{date} + hours{*h} + minutes{*mi} + seconds{*s} - offset;
}

std::string format_time(TimePoint time) {
  using namespace std::chrono;
  sys_days day = floor<days>(time);
  year_month_day date{day};
  hh_mm_ss<seconds> clock{time - day};
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", static_cast<int>(date.year()),
                     static_cast<unsigned>(date.month()), static_cast<unsigned>(date.day()), clock.hours().count(),
                     clock.minutes().count(), clock.seconds().count());
}

ObjectMeta meta_from_json(const nlohmann::json& metadata) { return decode::meta(metadata); }

nlohmann::json to_json(const ObjectMeta& meta) {
  using namespace json_fields;
  nlohmann::json out = {{"name", meta.name}};
  put_string(out, "namespace", meta.ns);
  put_string(out, "uid", meta.uid);
  put_string(out, "resourceVersion", meta.resource_version);
  put_string(out, "creationTimestamp", meta.creation_timestamp);
  if (meta.generation != 0) out["generation"] = meta.generation;
  put_map(out, "labels", meta.labels);
  put_map(out, "annotations", meta.annotations);
  for (const OwnerReference& ref : meta.owner_references) {
    nlohmann::json j = {{"apiVersion", ref.api_version}, {"kind", ref.kind}, {"name", ref.name}};
    put_string(j, "uid", ref.uid);
    if (ref.controller) j["controller"] = true;
    out["ownerReferences"].push_back(std::move(j));
  }
  return out;
}

} // namespace gpuslice::model
