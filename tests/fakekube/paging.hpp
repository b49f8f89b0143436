// SPDX-License-Identifier: Apache-2.0
// Continue tokens in the real format: base64url(no padding) of
// {"v":"meta.k8s.io/v1","rv":<int64>,"start":"<next key sans prefix>"} (apiserver
// pkg/storage/continue.go), and the 410 Expired answer for tokens that are too old.
#pragma once

#include <cstdint>
#include <string>

#include "status_errors.hpp"

namespace fakekube {

struct ContinueToken {
  std::int64_t resource_version = 0;
  std::string start; // the first key to return, relative to the list's key prefix
};

std::string encode_continue(const ContinueToken& token);
// Throws 400 `continue key is not valid: …` when the token cannot be decoded.
ContinueToken decode_continue(const std::string& text);
// 410 Expired for `token`, carrying a fresh token (rv -1) that continues inconsistently.
StatusError expired_continue(const ContinueToken& token);

std::string base64url_encode(const std::string& bytes);
// Throws std::invalid_argument on characters outside the alphabet.
std::string base64url_decode(const std::string& text);

} // namespace fakekube
