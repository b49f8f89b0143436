// SPDX-License-Identifier: Apache-2.0
// The little protobuf kubectl 1.33 sends for `auth can-i`: a "k8s\0" envelope around a
// runtime.Unknown whose raw bytes are a SelfSubjectAccessReview. Only the spec is decoded.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace fakekube {

// The review as JSON ({"apiVersion","kind","spec":{...}}); throws std::runtime_error
// describing the first malformed byte range.
nlohmann::json decode_access_review(const std::string& body);
// A SelfSubjectRulesReview or SelfSubjectReview (kubectl 1.33's `auth can-i --list` and
// `auth whoami`): only spec.namespace exists to decode. Throws like decode_access_review.
nlohmann::json decode_review_spec(const std::string& body);

} // namespace fakekube
