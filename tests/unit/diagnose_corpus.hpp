// SPDX-License-Identifier: Apache-2.0
// The message corpus of tests/fixtures/messages (README there): loading, and comparing parsed
// reasons with the fields an entry's "expect" names. Shared by the diagnose parser tests.
#pragma once

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <gpuslice/diagnose.hpp>

namespace corpus {

inline std::string fixture_path(const std::string& relative) {
  return std::string(GPUSLICE_SOURCE_DIR) + "/tests/fixtures/messages/" + relative;
}

inline std::string read_fixture(const std::string& relative) {
  std::ifstream in(fixture_path(relative), std::ios::binary);
  REQUIRE_MESSAGE(in.good(), "cannot open fixture ", relative);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The "messages" array of one corpus file.
inline nlohmann::json load(const std::string& file) {
  const nlohmann::json doc = nlohmann::json::parse(read_fixture(file));
  REQUIRE(doc.contains("messages"));
  return doc.at("messages");
}

// Every message of every corpus file, for replaying through every parser.
inline std::vector<std::string> all_messages() {
  std::vector<std::string> out;
  for (const char* file : {"scheduler.json", "autoscaler.json", "karpenter.json"}) {
    for (const auto& entry : load(file)) out.push_back(entry.at("message").get<std::string>());
  }
  return out;
}

// Checks reason against the fields expected names (count and kind always; the rest if given).
inline void check_reason(const gpuslice::diagnose::Reason& reason, const nlohmann::json& expected) {
  INFO("reason: ", reason.text);
  if (expected.contains("count")) CHECK(reason.count == expected.at("count").get<int>());
  CHECK(gpuslice::diagnose::to_string(reason.kind) == expected.at("kind").get<std::string>());
  if (expected.contains("resource")) CHECK(reason.resource == expected.at("resource").get<std::string>());
  if (expected.contains("taint_key")) CHECK(reason.taint_key == expected.at("taint_key").get<std::string>());
  if (expected.contains("taint_value")) CHECK(reason.taint_value == expected.at("taint_value").get<std::string>());
  if (expected.contains("taint_effect")) CHECK(reason.taint_effect == expected.at("taint_effect").get<std::string>());
  if (expected.contains("plugins")) CHECK(reason.plugins == expected.at("plugins").get<std::string>());
}

inline void check_reasons(const std::vector<gpuslice::diagnose::Reason>& reasons,
                          const nlohmann::json& expected) {
  REQUIRE(reasons.size() == expected.size());
  for (std::size_t i = 0; i < reasons.size(); ++i) check_reason(reasons[i], expected[i]);
}

} // namespace corpus
