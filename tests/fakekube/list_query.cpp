// SPDX-License-Identifier: Apache-2.0
#include "list_query.hpp"

#include "status_errors.hpp"

namespace fakekube {
namespace {

// ListOptions validation errors are 422 Invalid on the ListOptions kind.
StatusError invalid_list_options(const std::string& field, const std::string& detail) {
  nlohmann::json details = {{"group", "meta.k8s.io"},
                            {"kind", "ListOptions"},
                            {"causes", {{{"reason", "FieldValueForbidden"},
                                         {"message", detail},
                                         {"field", field}}}}};
  return StatusError(422, "Invalid",
                     "ListOptions.meta.k8s.io \"\" is invalid: " + field + ": " + detail, details);
}

std::uint64_t parse_resource_version(const std::string& text) {
  try {
    std::size_t used = 0;
    const unsigned long long value = std::stoull(text, &used);
    if (used == text.size() && text[0] != '-') {
      return value;
    }
  } catch (const std::exception&) {
  }
  throw bad_request("resourceVersion: Invalid value: \"" + text + "\": invalid resource version");
}

std::string prefix_of(const Target& target) { return target.ns.empty() ? "" : target.ns + "/"; }

} // namespace

ListQuery parse_list_query(const ApiState& state, const ApiRequest& request,
                           const Target& target) {
  ListQuery query;
  query.labels = parse_label_selector(query_value(request, "labelSelector").value_or(""));
  query.fields = parse_field_selector(query_value(request, "fieldSelector").value_or(""));
  check_field_selector(resource_key(target.info->group, target.info->plural), query.fields);
  if (auto limit = query_value(request, "limit"); limit && !limit->empty()) {
    try {
      std::size_t used = 0;
      query.limit = std::stoll(*limit, &used);
      if (used != limit->size()) {
        throw std::invalid_argument(*limit);
      }
    } catch (const std::exception&) {
      throw bad_request("strconv.ParseInt: parsing \"" + *limit + "\": invalid syntax");
    }
    query.limit = std::max<std::int64_t>(query.limit, 0);
  }
  query.resource_version = query_value(request, "resourceVersion").value_or("");
  query.resource_version_match = query_value(request, "resourceVersionMatch").value_or("");
  const std::string cont = query_value(request, "continue").value_or("");
  const std::string& match = query.resource_version_match;
  if (!match.empty()) {
    if (match != "NotOlderThan" && match != "Exact") {
      throw invalid_list_options("resourceVersionMatch",
                                 "Unsupported value: \"" + match +
                                     "\": supported values: \"Exact\", \"NotOlderThan\", \"\"");
    }
    if (query.resource_version.empty()) {
      throw invalid_list_options(
          "resourceVersionMatch",
          "Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided");
    }
    if (!cont.empty()) {
      throw invalid_list_options(
          "resourceVersionMatch",
          "Forbidden: resourceVersionMatch is forbidden when continue is provided");
    }
    if (match == "Exact" && query.resource_version == "0") {
      throw invalid_list_options(
          "resourceVersionMatch",
          "Forbidden: resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\"");
    }
  }
  const std::uint64_t current = state.store.current_resource_version();
  if (!cont.empty()) {
    if (!query.resource_version.empty() && query.resource_version != "0") {
      throw bad_request("specifying resource version is not allowed when using continue");
    }
    query.continue_token = decode_continue(cont);
    const std::int64_t token_rv = query.continue_token->resource_version;
    if (state.faults.expire_continue_tokens ||
        (token_rv > 0 && static_cast<std::uint64_t>(token_rv) < state.store.oldest_watchable())) {
      throw expired_continue(*query.continue_token);
    }
  } else if (!query.resource_version.empty() && query.resource_version != "0") {
    const std::uint64_t wanted = parse_resource_version(query.resource_version);
    if (wanted > current) {
      StatusError error(504, "Timeout",
                        "Too large resource version: " + std::to_string(wanted) +
                            ", current: " + std::to_string(current),
                        {{"causes", {{{"reason", "ResourceVersionTooLarge"},
                                      {"message", "Too large resource version"}}}},
                         {"retryAfterSeconds", 1}});
      throw error;
    }
    // Only the newest state is kept, so an exact read of an older version has been
    // "compacted", as etcd would say after compaction.
    if (match == "Exact" && wanted < current) {
      throw StatusError(410, "Expired", "The resourceVersion for the provided list is too old.");
    }
  }
  // resourceVersion=0 without continue is served from the "watch cache", which ignores limit.
  if (query.resource_version == "0" && cont.empty()) {
    query.limit = 0;
  }
  return query;
}

bool selected(const StoredObject& object, const Selector& labels, const Selector& fields) {
  return labels.matches(object.labels) && fields.matches(object.fields);
}

ListPage collect_page(const ApiState& state, const Target& target, const ListQuery& query) {
  const std::string key = resource_key(target.info->group, target.info->plural);
  const Store::Objects& objects = state.store.objects(key);
  const std::string prefix = prefix_of(target);
  const std::string start = prefix + (query.continue_token ? query.continue_token->start : "");
  ListPage page;
  page.resource_version = state.store.current_resource_version();
  if (query.continue_token && query.continue_token->resource_version > 0) {
    page.resource_version = static_cast<std::uint64_t>(query.continue_token->resource_version);
  }
  const auto in_range = [&](const std::string& object_id) {
    return object_id.compare(0, prefix.size(), prefix) == 0;
  };
  const auto full = [&] {
    return query.limit > 0 && static_cast<std::int64_t>(page.items.size()) == query.limit;
  };
  const std::string* last = nullptr; // the key of the page's last item
  // Fills the page from sorted candidates; `entry` turns a position into its map element.
  const auto take = [&](auto from, auto to, auto entry) {
    for (; from != to && !full(); ++from) {
      const Store::Objects::value_type& element = entry(from);
      if (!in_range(element.first)) {
        break;
      }
      ++page.examined;
      if (selected(element.second, query.labels, query.fields)) {
        page.items.push_back(&element.second);
        last = &element.first;
      }
    }
  };
  const FieldIndex::Entries* candidates = nullptr;
  for (const Requirement& req : query.fields.requirements) {
    if (candidates == nullptr && req.op == Requirement::Op::equals && req.values.size() == 1) {
      candidates = state.store.indexed(key, req.key, req.values[0]);
    }
  }
  if (candidates != nullptr) {
    take(candidates->lower_bound(start), candidates->end(),
         [](FieldIndex::Entries::const_iterator pos) -> const Store::Objects::value_type& { return **pos; });
  } else {
    take(objects.lower_bound(start), objects.end(),
         [](Store::Objects::const_iterator pos) -> const Store::Objects::value_type& { return *pos; });
  }
  if (!full()) {
    return page;
  }
  // Like etcd's "more" flag: keys remain after the page, whether or not they will match.
  auto rest = objects.upper_bound(*last);
  if (rest != objects.end() && in_range(rest->first)) {
    page.next_start = last->substr(prefix.size()) + std::string(1, '\0');
    if (query.labels.empty() && query.fields.empty()) {
      std::int64_t remaining = 0;
      for (; rest != objects.end() && in_range(rest->first); ++rest) {
        ++remaining;
      }
      page.remaining = remaining;
    }
  }
  return page;
}

} // namespace fakekube
