// SPDX-License-Identifier: Apache-2.0
#include "protobuf.hpp"

#include <string_view>

#include "protobuf_wire.hpp"

namespace fakekube {
namespace {

using protobuf::Chunk;

// SelfSubjectAccessReview's few fields are all strings, read straight off the wire.
template <typename Visit> void each_field(std::string_view message, Visit visit) {
  protobuf::each_field(message, 0, [&](const Chunk& chunk) { visit(chunk.field, chunk.bytes); });
}

nlohmann::json resource_attributes(std::string_view message) {
  static const char* const k_names[] = {"",        "namespace",   "verb", "group",
                                        "version", "resource",    "subresource", "name"};
  nlohmann::json attributes = nlohmann::json::object();
  each_field(message, [&](int field, std::string_view value) {
    if (field >= 1 && field <= 7) {
      attributes[k_names[field]] = std::string(value);
    }
  });
  return attributes;
}

nlohmann::json non_resource_attributes(std::string_view message) {
  nlohmann::json attributes = nlohmann::json::object();
  each_field(message, [&](int field, std::string_view value) {
    if (field == 1) {
      attributes["path"] = std::string(value);
    } else if (field == 2) {
      attributes["verb"] = std::string(value);
    }
  });
  return attributes;
}

// The runtime.Unknown inside the "k8s\0" envelope: its type into `review`, its raw bytes out.
std::string_view unwrap(const std::string& body, nlohmann::json& review) {
  const protobuf::Unknown unknown = protobuf::unwrap(body);
  if (!unknown.api_version.empty()) {
    review["apiVersion"] = unknown.api_version;
  }
  if (!unknown.kind.empty()) {
    review["kind"] = unknown.kind;
  }
  return unknown.raw.bytes;
}

} // namespace

nlohmann::json decode_review_spec(const std::string& body) {
  nlohmann::json review = nlohmann::json::object();
  const std::string_view raw = unwrap(body, review);
  nlohmann::json spec = nlohmann::json::object();
  // Both kinds: 1 metadata, 2 spec; SelfSubjectRulesReviewSpec: 1 namespace.
  each_field(raw, [&](int field, std::string_view value) {
    if (field == 2) {
      each_field(value, [&](int spec_field, std::string_view text) {
        if (spec_field == 1) {
          spec["namespace"] = std::string(text);
        }
      });
    }
  });
  review["spec"] = spec;
  return review;
}

nlohmann::json decode_access_review(const std::string& body) {
  nlohmann::json review = {{"apiVersion", "authorization.k8s.io/v1"},
                           {"kind", "SelfSubjectAccessReview"}};
  const std::string_view raw = unwrap(body, review);
  nlohmann::json spec = nlohmann::json::object();
  // SelfSubjectAccessReview: 1 metadata, 2 spec; spec: 1 resourceAttributes,
  // 2 nonResourceAttributes.
  each_field(raw, [&](int field, std::string_view value) {
    if (field != 2) {
      return;
    }
    each_field(value, [&](int spec_field, std::string_view attributes) {
      if (spec_field == 1) {
        spec["resourceAttributes"] = resource_attributes(attributes);
      } else if (spec_field == 2) {
        spec["nonResourceAttributes"] = non_resource_attributes(attributes);
      }
    });
  });
  review["spec"] = spec;
  return review;
}

} // namespace fakekube
