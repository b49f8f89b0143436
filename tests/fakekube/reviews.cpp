// SPDX-License-Identifier: Apache-2.0
#include "reviews.hpp"

#include <algorithm>

#include "protobuf.hpp"
#include "rbac.hpp"
#include "status_errors.hpp"

namespace fakekube {
namespace {

using nlohmann::json;

bool is_protobuf(const std::string& content_type) {
  return content_type.rfind("application/vnd.kubernetes.protobuf", 0) == 0;
}

bool accepts_json(const std::string& accept) {
  return accept.empty() || accept.find("application/json") != std::string::npos ||
         accept.find("*/*") != std::string::npos;
}

json access_review(const ApiState& state, const Identity& identity, json review) {
  const json spec = review.value("spec", json::object());
  Attributes attributes;
  if (spec.contains("resourceAttributes")) {
    const json resource = spec["resourceAttributes"];
    attributes.verb = resource.value("verb", std::string());
    attributes.group = resource.value("group", std::string());
    attributes.resource = resource.value("resource", std::string());
    attributes.subresource = resource.value("subresource", std::string());
    attributes.ns = resource.value("namespace", std::string());
    attributes.name = resource.value("name", std::string());
  } else if (spec.contains("nonResourceAttributes")) {
    attributes.resource_request = false;
    attributes.verb = spec["nonResourceAttributes"].value("verb", std::string());
    attributes.path = spec["nonResourceAttributes"].value("path", std::string());
  } else {
    throw StatusError(422, "Invalid",
                      "SelfSubjectAccessReview.authorization.k8s.io \"\" is invalid: "
                      "spec.resourceAttributes: Invalid value: \"null\": exactly one of "
                      "nonResourceAttributes or resourceAttributes must be specified",
                      {{"group", "authorization.k8s.io"}, {"kind", "SelfSubjectAccessReview"}});
  }
  const Decision decision = authorize(state, identity, attributes);
  review["metadata"] = json::object();
  review["status"] = {{"allowed", decision.allowed}};
  if (!decision.reason.empty()) {
    review["status"]["reason"] = decision.reason;
  }
  return review;
}

} // namespace

ApiResponse create_review(const ApiState& state, const ApiRequest& request,
                          const ResourceInfo& info) {
  json review;
  if (is_protobuf(request.content_type)) {
    if (!accepts_json(request.accept)) {
      throw not_acceptable("only application/json responses are supported");
    }
    try {
      review = info.plural == "selfsubjectaccessreviews" ? decode_access_review(request.body)
                                                         : decode_review_spec(request.body);
    } catch (const std::runtime_error& error) {
      throw bad_request(error.what());
    }
  } else {
    review = parse_body(request);
  }
  if (!review.is_object()) {
    throw bad_request("the body of the request must be a JSON or YAML object");
  }
  review["apiVersion"] = info.api_version();
  review["kind"] = info.kind;
  if (info.plural == "selfsubjectaccessreviews") {
    review = access_review(state, request.identity, std::move(review));
  } else if (info.plural == "selfsubjectrulesreviews") {
    const std::string ns =
        review.value("spec", json::object()).value("namespace", std::string());
    review["metadata"] = json::object();
    review["spec"] = {{"namespace", ns}};
    review["status"] = rules_review_status(state, request.identity, ns);
  } else {
    std::vector<std::string> groups = request.identity.groups;
    if (std::find(groups.begin(), groups.end(), "system:authenticated") == groups.end()) {
      groups.push_back("system:authenticated");
    }
    review = {{"kind", info.kind},
              {"apiVersion", info.api_version()},
              {"metadata", {{"creationTimestamp", nullptr}}},
              {"status", {{"userInfo", {{"username", request.identity.user}, {"groups", groups}}}}}};
  }
  return json_response(201, review.dump());
}

} // namespace fakekube
