// SPDX-License-Identifier: Apache-2.0
// Karpenter pod events (reference/scheduling.md §5). Karpenter also uses reason
// FailedScheduling, so callers tell it from kube-scheduler by the event's source; the body is
// a multierr of per-NodePool errors joined with "; ", worded differently per version.
#include <gpuslice/diagnose.hpp>

#include "text.hpp"

namespace gpuslice::diagnose {

namespace {

constexpr std::string_view k_nominated = "Pod should schedule on: ";

// The first double-quoted string in text ("" if none).
std::string first_quoted(std::string_view text) {
  const std::size_t open = text.find('"');
  if (open == std::string_view::npos) return {};
  const std::size_t close = text.find('"', open + 1);
  if (close == std::string_view::npos) return {};
  return std::string(text.substr(open + 1, close - open - 1));
}

// Skips "daemonset overhead={…}, " (the JSON has commas, so find its closing "}, ").
std::string_view skip_overhead(std::string_view text) {
  text = trim(text);
  if (!strip_prefix(text, "daemonset overhead=")) return text;
  const std::size_t close = text.find("}, ");
  return close == std::string_view::npos ? std::string_view{} : text.substr(close + 3);
}

KarpenterError parse_pool_error(std::string_view piece) {
  KarpenterError e;
  std::string_view inner = piece;
  for (std::string_view prefix : {"incompatible with nodepool ", "incompatible with provisioner ",
                                  "compatible with nodepool "}) {
    std::string_view rest = piece;
    if (!strip_prefix(rest, prefix)) continue;
    e.nodepool = first_quoted(rest);
    const std::size_t comma = rest.find(", ");
    inner = comma == std::string_view::npos ? std::string_view{} : skip_overhead(rest.substr(comma + 2));
    break;
  }
  // v1.5+ structured errors: "… (NodePool=gpu-nodepool)"; ≤v1.2: "… for nodepool: \"x\"".
  if (const std::size_t pos = piece.find("(NodePool="); pos != std::string_view::npos) {
    const std::size_t close = piece.find(')', pos);
    if (close != std::string_view::npos) e.nodepool = std::string(piece.substr(pos + 10, close - pos - 10));
  } else if (e.nodepool.empty() && piece.find("for nodepool") != std::string_view::npos) {
    e.nodepool = first_quoted(piece.substr(piece.find("for nodepool")));
  }
  e.reason = classify_reason(inner.empty() ? piece : inner, 1);
  return e;
}

bool looks_like_karpenter_body(std::string_view text) {
  for (std::string_view start : {"incompatible with nodepool", "incompatible with provisioner",
                                 "compatible with nodepool", "all available instance types",
                                 "did not tolerate", "no instance type", "node limits have been"}) {
    if (text.starts_with(start)) return true;
  }
  return false;
}

} // namespace

std::optional<KarpenterMessage> parse_karpenter_message(std::string_view text) {
  text = trim(text);
  KarpenterMessage m;
  if (strip_prefix(text, k_nominated)) {
    // "nodeclaim/<name>[, node/<name>]"
    m.nominated = true;
    while (!text.empty()) {
      const std::size_t comma = text.find(", ");
      std::string_view item = trim(text.substr(0, comma));
      text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 2);
      if (strip_prefix(item, "nodeclaim/")) m.nodeclaim = std::string(item);
      else if (strip_prefix(item, "node/")) m.node = std::string(item);
    }
    return m;
  }
  if (!strip_prefix(text, "Failed to schedule pod, ") && !strip_prefix(text, "Could not schedule pod, ") &&
      !looks_like_karpenter_body(text)) {
    return std::nullopt;
  }
  while (!text.empty()) {
    const std::size_t semi = text.find(';');
    const std::string_view piece = trim(text.substr(0, semi));
    text = semi == std::string_view::npos ? std::string_view{} : text.substr(semi + 1);
    if (!piece.empty()) m.errors.push_back(parse_pool_error(piece));
  }
  return m;
}

} // namespace gpuslice::diagnose
