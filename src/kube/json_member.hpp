// SPDX-License-Identifier: Apache-2.0
// One top-level member of a JSON object, found by a scan that tracks only strings and nesting:
// a list page's metadata (and its continue token) sits before its items, so reading it costs the
// few hundred bytes before them, not a parse of the whole page.
#pragma once

#include <string_view>

namespace gpuslice::kube {

struct MemberScan {
  enum class Outcome {
    found,      // `value` is the member's value text
    absent,     // the object ends without the member
    unreadable, // not a JSON object, or it breaks off: the caller parses it properly for the error
  };
  Outcome outcome = Outcome::unreadable;
  std::string_view value;
};

// Finds the member `key` at the top level of the object `text`. Keys are compared as written, so
// a key spelled with escapes does not match (the API server never escapes its field names). Only
// what comes before the member is scanned; values are skipped, not validated.
MemberScan find_top_level_member(std::string_view text, std::string_view key);

} // namespace gpuslice::kube
