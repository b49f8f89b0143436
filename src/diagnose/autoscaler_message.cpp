// SPDX-License-Identifier: Apache-2.0
// cluster-autoscaler events (reference/scheduling.md §2.2-2.3): NotTriggerScaleUp and
// TriggeredScaleUp on pods, ScaledUpGroup / FailedToScaleUpGroup / ScaleUpFailed /
// ScaleUpTimedOut on the status ConfigMap. Wording of CA 1.1x to 1.36.
#include <gpuslice/diagnose.hpp>

#include "text.hpp"

namespace gpuslice::diagnose {

namespace {

constexpr std::string_view k_not_triggered = "pod didn't trigger scale-up";
constexpr std::string_view k_wouldnt_fit = " (it wouldn't fit if a new node is added)";
constexpr std::string_view k_triggered = "pod triggered scale-up";
constexpr std::string_view k_combined = "(combined from similar events): ";

std::string_view strip_final_period(std::string_view text) {
  text = trim(text);
  strip_suffix(text, ".");
  return text;
}

// The text between open and close after start, or nullopt.
std::optional<std::string_view> between(std::string_view text, std::string_view open,
                                        std::string_view close) {
  const std::size_t a = text.find(open);
  if (a == std::string_view::npos) return std::nullopt;
  const std::size_t b = text.find(close, a + open.size());
  if (b == std::string_view::npos) return std::nullopt;
  return text.substr(a + open.size(), b - a - open.size());
}

AutoscalerMessage parse_not_triggered(std::string_view rest) {
  AutoscalerMessage m;
  m.kind = AutoscalerEventKind::not_triggered;
  m.wouldnt_fit_prefix = strip_prefix(rest, k_wouldnt_fit);
  strip_prefix(rest, ":");
  rest = strip_final_period(rest);
  if (rest.empty()) return m;  // CA ≤1.1x, or every rejected group vanished (#4613)
  if (const std::optional<std::vector<std::pair<int, std::string_view>>> entries = split_counted_list(rest)) {
    for (const auto& [count, reason] : *entries) m.reasons.push_back(classify_reason(reason, count));
  } else {
    // A whole-message reason such as "max total nodes in cluster reached": no group count.
    m.reasons.push_back(classify_reason(rest, 0));
  }
  return m;
}

// "{<group id> <from>-><to> (max: <max>)}"
std::optional<ScaleUpGroup> parse_scale_up_info(std::string_view item) {
  item = trim(item);
  if (!strip_prefix(item, "{") || !strip_suffix(item, "}")) return std::nullopt;
  ScaleUpGroup g;
  if (const std::size_t max_pos = item.rfind(" (max: "); max_pos != std::string_view::npos) {
    std::string_view max_text = item.substr(max_pos + 7);
    strip_suffix(max_text, ")");
    g.max = parse_count(max_text).value_or(-1);
    item = item.substr(0, max_pos);
  }
  const std::size_t space = item.rfind(' ');
  if (space == std::string_view::npos) return std::nullopt;
  const std::string_view sizes = item.substr(space + 1);
  const std::size_t arrow = sizes.find("->");
  if (arrow == std::string_view::npos) return std::nullopt;
  g.from = parse_count(sizes.substr(0, arrow)).value_or(-1);
  g.to = parse_count(sizes.substr(arrow + 2)).value_or(-1);
  g.group = std::string(trim(item.substr(0, space)));
  return g;
}

AutoscalerMessage parse_triggered(std::string_view rest) {
  AutoscalerMessage m;
  m.kind = AutoscalerEventKind::triggered;
  if (strip_prefix(rest, ", group: ")) {
    // Very old: "pod triggered scale-up, group: <url>, sizes (current/new): 3/4"
    ScaleUpGroup g;
    const std::size_t sizes = rest.find(", sizes (current/new): ");
    g.group = std::string(trim(rest.substr(0, sizes)));
    if (sizes != std::string_view::npos) {
      const std::string_view nums = trim(rest.substr(sizes + 23));
      const std::size_t slash = nums.find('/');
      g.from = parse_count(nums.substr(0, slash)).value_or(-1);
      if (slash != std::string_view::npos) g.to = parse_count(nums.substr(slash + 1)).value_or(-1);
    }
    m.groups.push_back(std::move(g));
    return m;
  }
  const std::optional<std::string_view> list = between(rest, "[", "]");
  if (!list) return m;
  // Items are "{…}" joined by spaces; group ids have no braces.
  std::string_view items = *list;
  while (true) {
    const std::size_t open = items.find('{');
    const std::size_t close = items.find('}', open == std::string_view::npos ? 0 : open);
    if (open == std::string_view::npos || close == std::string_view::npos) break;
    if (std::optional<ScaleUpGroup> g = parse_scale_up_info(items.substr(open, close - open + 1))) {
      m.groups.push_back(std::move(*g));
    }
    items.remove_prefix(close + 1);
  }
  return m;
}

// "Scale-up: setting group X size to N[ instead of M (max: K)]" and
// "Scale-up: group X size set to N instead of M (max: K)".
AutoscalerMessage parse_scale_up_set(std::string_view rest) {
  AutoscalerMessage m;
  m.kind = AutoscalerEventKind::scale_up_set;
  ScaleUpGroup g;
  if (!strip_prefix(rest, "setting group ")) strip_prefix(rest, "group ");
  std::size_t size_pos = rest.find(" size to ");
  std::size_t skip = 9;
  if (size_pos == std::string_view::npos) {
    size_pos = rest.find(" size set to ");
    skip = 13;
  }
  g.group = std::string(trim(rest.substr(0, size_pos)));
  if (size_pos != std::string_view::npos) {
    std::string_view nums = rest.substr(size_pos + skip);
    const std::size_t instead = nums.find(" instead of ");
    g.to = parse_count(trim(nums.substr(0, instead))).value_or(-1);
    if (instead != std::string_view::npos) {
      std::string_view from = nums.substr(instead + 12);
      g.from = parse_count(from.substr(0, from.find(' '))).value_or(-1);
      if (const std::optional<std::string_view> max = between(nums, "(max: ", ")")) g.max = parse_count(*max).value_or(-1);
    }
  }
  m.groups.push_back(std::move(g));
  return m;
}

} // namespace

std::optional<AutoscalerMessage> parse_autoscaler_message(std::string_view text) {
  text = trim(text);
  strip_prefix(text, k_combined);
  std::string_view rest = text;
  if (strip_prefix(rest, k_not_triggered)) return parse_not_triggered(rest);
  if (strip_prefix(rest, k_triggered)) return parse_triggered(rest);
  if (strip_prefix(rest, "Scale-up: ")) return parse_scale_up_set(rest);

  AutoscalerMessage m;
  if (strip_prefix(rest, "Scale-up failed for group ")) {
    // "Scale-up failed for group %s: %v"; group ids (GCE URLs) contain ':' but not ": ".
    m.kind = AutoscalerEventKind::scale_up_failed;
    const std::size_t colon = rest.find(": ");
    m.groups.push_back({std::string(trim(rest.substr(0, colon))), -1, -1, -1});
    if (colon != std::string_view::npos) m.error = std::string(trim(rest.substr(colon + 2)));
    return m;
  }
  if (strip_prefix(rest, "Failed adding ")) {
    // "Failed adding %v nodes to group %v due to %v; source errors: %v"
    m.kind = AutoscalerEventKind::scale_up_failed;
    ScaleUpGroup g;
    const std::size_t nodes = rest.find(" nodes to group ");
    if (nodes == std::string_view::npos) return std::nullopt;
    rest.remove_prefix(nodes + 16);
    const std::size_t due = rest.find(" due to ");
    g.group = std::string(trim(rest.substr(0, due)));
    if (due != std::string_view::npos) m.error = std::string(trim(rest.substr(due + 8)));
    m.groups.push_back(std::move(g));
    return m;
  }
  if (strip_prefix(rest, "Nodes added to group ")) {
    m.kind = AutoscalerEventKind::scale_up_timed_out;
    const std::size_t failed = rest.find(" failed to register");
    if (failed == std::string_view::npos) return std::nullopt;
    m.groups.push_back({std::string(trim(rest.substr(0, failed))), -1, -1, -1});
    return m;
  }
  return std::nullopt;
}

} // namespace gpuslice::diagnose
