// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include <string>

#include "kube/json_member.hpp"

using gpuslice::kube::find_top_level_member;
using gpuslice::kube::MemberScan;

namespace {

std::string found(std::string_view text, std::string_view key) {
  const MemberScan scan = find_top_level_member(text, key);
  REQUIRE(scan.outcome == MemberScan::Outcome::found);
  return std::string(scan.value);
}

MemberScan::Outcome outcome(std::string_view text, std::string_view key) {
  return find_top_level_member(text, key).outcome;
}

} // namespace

TEST_CASE("kube::find_top_level_member") {
  SUBCASE("a list page's metadata, before its items") {
    const std::string page = R"({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"7","continue":"abc"},)"
                             R"("items":[{"metadata":{"name":"p"}}]})";
    CHECK(found(page, "metadata") == R"({"resourceVersion":"7","continue":"abc"})");
    CHECK(found(page, "kind") == R"("PodList")");
    CHECK(found(page, "items") == R"([{"metadata":{"name":"p"}}])");
  }
  SUBCASE("after values holding brackets, quotes and escapes inside strings") {
    const std::string text = " {\n \"items\" : [ {\"a\":\"}]\\\"{[\"}, 1, true, null, -2.5e3 ] ,\n"
                             " \"n\": 12, \"metadata\" : { \"continue\" : \"x\\\"y\" } }\n";
    CHECK(found(text, "metadata") == R"({ "continue" : "x\"y" })");
    CHECK(found(text, "n") == "12");
  }
  SUBCASE("a nested member of that name is not the top-level one") {
    CHECK(outcome(R"({"items":[{"metadata":{}}]})", "metadata") == MemberScan::Outcome::absent);
    CHECK(outcome(R"({})", "metadata") == MemberScan::Outcome::absent);
    CHECK(outcome(R"({"metad\u0061ta":{}})", "metadata") == MemberScan::Outcome::absent);
  }
  SUBCASE("text that is not an object, or breaks off before the member, is unreadable") {
    CHECK(outcome("hello, this is not JSON", "metadata") == MemberScan::Outcome::unreadable);
    CHECK(outcome("", "metadata") == MemberScan::Outcome::unreadable);
    CHECK(outcome(R"([{"metadata":{}}])", "metadata") == MemberScan::Outcome::unreadable);
    CHECK(outcome(R"({"kind":"NodeList","items":[{"metadata":)", "metadata") == MemberScan::Outcome::unreadable);
    CHECK(outcome(R"({"metadata":{"continue":"ab)", "metadata") == MemberScan::Outcome::unreadable);
    CHECK(outcome(R"({"kind" "NodeList"})", "metadata") == MemberScan::Outcome::unreadable);
    CHECK(outcome(R"({"kind":"NodeList" "metadata":{}})", "metadata") == MemberScan::Outcome::unreadable);
    CHECK(outcome(R"({"n":12)", "metadata") == MemberScan::Outcome::unreadable);
  }
}
