// SPDX-License-Identifier: Apache-2.0
// A LIST's options validated as the real server validates them, and the page they select.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <fakekube/api.hpp>

#include "api_state.hpp"
#include "paging.hpp"
#include "selectors.hpp"

namespace fakekube {

struct ListQuery {
  Selector labels;
  Selector fields;
  std::int64_t limit = 0; // 0 = everything
  std::optional<ContinueToken> continue_token;
  std::string resource_version;       // as given
  std::string resource_version_match; // "", "NotOlderThan" or "Exact"
};

struct ListPage {
  std::vector<const StoredObject*> items;
  std::uint64_t resource_version = 0;
  std::string next_start;      // empty when this is the last page
  std::int64_t remaining = -1; // remainingItemCount, -1 to omit
  std::size_t examined = 0;    // stored objects the selectors were evaluated on
};

// Throws the real 400/410/422/504 answers for bad or unservable options.
ListQuery parse_list_query(const ApiState& state, const ApiRequest& request,
                           const Target& target);
// A field selector that pins an indexed field (pods' spec.nodeName) reads only that index entry's
// objects; the page, its continue token and remainingItemCount are those of a scan of all.
ListPage collect_page(const ApiState& state, const Target& target, const ListQuery& query);
// Whether a stored object satisfies the query's selectors (also used by watch).
bool selected(const StoredObject& object, const Selector& labels, const Selector& fields);

} // namespace fakekube
