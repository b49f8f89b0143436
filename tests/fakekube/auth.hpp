// SPDX-License-Identifier: Apache-2.0
// How fakekube recognises a caller: a verified client certificate (CN=user, O=groups), a
// bearer token or HTTP basic credentials, matched against the scenario's users.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <openssl/ssl.h>

#include <fakekube/server.hpp>

namespace fakekube {

// The token field that makes a user an EKS stand-in: such a user accepts every bearer token
// starting with "k8s-aws-v1." (what `aws eks get-token` prints), as fakekube cannot check STS.
inline constexpr const char* k_eks_token_pattern = "k8s-aws-v1.*";
inline constexpr const char* k_eks_token_prefix = "k8s-aws-v1.";

// The user a bearer token belongs to, or nullptr. Exact match, or the EKS stand-in rule.
const User* find_token_user(const std::vector<User>& users, const std::string& token);

// The user whose name and password match `encoded` (base64 of "name:password"), or nullptr.
const User* find_basic_user(const std::vector<User>& users, const std::string& encoded);

// The identity in the peer's client certificate when it was verified against our CA, else
// nullopt (no certificate, or one we did not sign).
std::optional<Identity> certificate_identity(const SSL* ssl);

// Standard base64 decoding (padding optional); nullopt for malformed input.
std::optional<std::string> decode_base64(const std::string& text);

// Standard base64 encoding with padding, as kubeconfig *-data fields need.
std::string encode_base64(const std::string& bytes);

} // namespace fakekube
