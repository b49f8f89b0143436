// SPDX-License-Identifier: Apache-2.0
#include "paging.hpp"

#include <stdexcept>

#include <nlohmann/json.hpp>

namespace fakekube {
namespace {

const std::string k_alphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

} // namespace

std::string base64url_encode(const std::string& bytes) {
  std::string out;
  std::uint32_t buffer = 0;
  int bits = 0;
  for (unsigned char c : bytes) {
    buffer = (buffer << 8) | c;
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      out += k_alphabet[(buffer >> bits) & 0x3f];
    }
  }
  if (bits > 0) {
    out += k_alphabet[(buffer << (6 - bits)) & 0x3f];
  }
  return out;
}

std::string base64url_decode(const std::string& text) {
  std::string out;
  std::uint32_t buffer = 0;
  int bits = 0;
  for (char c : text) {
    if (c == '=') {
      break; // tolerate padding
    }
    const std::size_t value = k_alphabet.find(c);
    if (value == std::string::npos) {
      throw std::invalid_argument("illegal base64 data");
    }
    buffer = (buffer << 6) | static_cast<std::uint32_t>(value);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((buffer >> bits) & 0xff);
    }
  }
  return out;
}

std::string encode_continue(const ContinueToken& token) {
  const nlohmann::json body = {
      {"v", "meta.k8s.io/v1"}, {"rv", token.resource_version}, {"start", token.start}};
  return base64url_encode(body.dump());
}

ContinueToken decode_continue(const std::string& text) {
  try {
    const nlohmann::json body = nlohmann::json::parse(base64url_decode(text));
    if (body.value("v", std::string()) != "meta.k8s.io/v1") {
      throw bad_request("continue key is not valid: server does not recognize this encoded key");
    }
    ContinueToken token;
    token.resource_version = body.at("rv").get<std::int64_t>();
    token.start = body.at("start").get<std::string>();
    if (token.resource_version == 0) {
      throw bad_request("continue key is not valid: incorrect encoded start resourceVersion "
                        "(version meta.k8s.io/v1)");
    }
    return token;
  } catch (const StatusError&) {
    throw;
  } catch (const std::exception& error) {
    throw bad_request(std::string("continue key is not valid: ") + error.what());
  }
}

StatusError expired_continue(const ContinueToken& token) {
  StatusError error(
      410, "Expired",
      "The provided continue parameter is too old to display a consistent list result. You can "
      "start a new list without the continue parameter, or use the continue token in this "
      "response to retrieve the remainder of the results. Continuing with the provided token "
      "results in an inconsistent list - objects that were created, modified, or deleted "
      "between the time the first chunk was returned and now may show up in the list.");
  error.list_meta["continue"] = encode_continue({-1, token.start});
  return error;
}

} // namespace fakekube
