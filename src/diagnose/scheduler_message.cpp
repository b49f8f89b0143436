// SPDX-License-Identifier: Apache-2.0
// kube-scheduler FitError text, every version of reference/scheduling.md §1:
//   0/<N> nodes are available: <count> <reason>, … . [preemption: 0/<N> nodes are available: …]
// with a PreFilter message instead of counts, a trailing ".." on 1.26-1.28, no preemption
// part before 1.24, and " ..." when the event note was cut at 1024 characters.
#include <gpuslice/diagnose.hpp>

#include "text.hpp"

namespace gpuslice::diagnose {

namespace {

constexpr std::string_view k_available = " nodes are available:";
constexpr std::string_view k_preemption = "preemption: ";
constexpr std::string_view k_preemption_inside = " preemption: ";
constexpr std::string_view k_ancient = "No nodes are available that match all of the following predicates:";

// Removes the sentence's final "." (or the 1.26-1.28 "..").
std::string_view strip_periods(std::string_view text) {
  text = trim(text);
  while (!text.empty() && text.back() == '.') text.remove_suffix(1);
  return trim(text);
}

// "0/<N> nodes are available:" at the start of text; returns N and leaves the rest in text.
std::optional<int> read_header(std::string_view& text) {
  const std::size_t slash = text.find('/');
  const std::size_t colon = text.find(k_available);
  if (slash == std::string_view::npos || colon == std::string_view::npos || slash > colon) {
    return std::nullopt;
  }
  if (!parse_count(text.substr(0, slash))) return std::nullopt;
  const std::optional<int> total = parse_count(text.substr(slash + 1, colon - slash - 1));
  if (!total) return std::nullopt;
  text.remove_prefix(colon + k_available.size());
  return total;
}

// The counted histogram, or the PreFilter sentence when there are no counts; that one applied
// to every node, so it is also recorded as a reason counting nodes_total.
void read_histogram(std::string_view text, int nodes_total, std::vector<Reason>& reasons,
                    std::string* prefilter) {
  text = strip_periods(text);
  if (text.empty()) return;
  if (const std::optional<std::vector<std::pair<int, std::string_view>>> entries = split_counted_list(text)) {
    for (const auto& [count, reason] : *entries) reasons.push_back(classify_reason(reason, count));
    return;
  }
  if (prefilter) *prefilter = std::string(text);
  reasons.push_back(classify_reason(text, nodes_total));
}

// Before 1.8: "No nodes are available that match all of the following predicates:: Insufficient
// cpu (4), NoVolumeZoneConflict (2)." The node total was not printed.
SchedulerMessage parse_ancient(std::string_view text) {
  SchedulerMessage m;
  text = strip_periods(text);
  while (!text.empty() && text.front() == ':') text.remove_prefix(1);
  while (!text.empty()) {
    const std::size_t comma = text.find(", ");
    std::string_view item = trim(text.substr(0, comma));
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 2);
    int count = 1;
    if (const std::size_t open = item.rfind(" ("); open != std::string_view::npos &&
                                                   item.ends_with(")")) {
      if (const std::optional<int> n = parse_count(item.substr(open + 2, item.size() - open - 3))) {
        count = *n;
        item = item.substr(0, open);
      }
    }
    m.reasons.push_back(classify_reason(item, count));
  }
  return m;
}

} // namespace

std::optional<SchedulerMessage> parse_scheduler_message(std::string_view text) {
  text = trim(text);
  SchedulerMessage m;
  m.truncated = strip_suffix(text, " ...");
  if (text == "no nodes available to schedule pods") return m;
  if (strip_prefix(text, k_ancient)) {
    SchedulerMessage ancient = parse_ancient(text);
    ancient.truncated = m.truncated;
    if (ancient.truncated && !ancient.reasons.empty()) ancient.reasons.pop_back();
    return ancient;
  }
  const std::optional<int> total = read_header(text);
  if (!total) return std::nullopt;
  m.nodes_total = *total;
  text = trim(text);

  // The filter histogram stops where the PostFilter (preemption) message starts.
  std::string_view main = text;
  std::string_view post;
  if (text.starts_with(k_preemption)) {
    main = {};
    post = text.substr(k_preemption.size());
    m.has_preemption = true;
  } else if (const std::size_t pos = text.find(k_preemption_inside);
             pos != std::string_view::npos) {
    main = text.substr(0, pos);
    post = text.substr(pos + k_preemption_inside.size());
    m.has_preemption = true;
  }
  read_histogram(main, m.nodes_total, m.reasons, &m.prefilter);

  if (m.has_preemption) {
    m.preemption = std::string(strip_periods(post));
    std::string_view nested = post;
    if (const std::optional<int> nested_total = read_header(nested)) {
      read_histogram(nested, *nested_total, m.preemption_reasons, nullptr);
    }
  }
  // A cut note ends inside its last entry: drop it rather than report a mangled reason.
  if (m.truncated) {
    std::vector<Reason>& last = m.has_preemption ? m.preemption_reasons : m.reasons;
    if (!last.empty()) last.pop_back();
  }
  return m;
}

} // namespace gpuslice::diagnose
