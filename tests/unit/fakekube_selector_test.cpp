// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include "selectors.hpp"
#include "status_errors.hpp"

using fakekube::parse_field_selector;
using fakekube::parse_label_selector;

namespace {

bool label_match(const std::string& selector, std::map<std::string, std::string> labels) {
  return parse_label_selector(selector).matches(labels);
}

} // namespace

TEST_CASE("fakekube::parse_label_selector") {
  const std::map<std::string, std::string> gpu = {{"gpu", "a100"}, {"count", "4"}};
  SUBCASE("equality") {
    CHECK(label_match("gpu=a100", gpu));
    CHECK(label_match("gpu==a100", gpu));
    CHECK_FALSE(label_match("gpu=t4", gpu));
  }
  SUBCASE("inequality matches a missing key") {
    CHECK(label_match("gpu!=t4", gpu));
    CHECK_FALSE(label_match("gpu!=a100", gpu));
    CHECK(label_match("zone!=a", gpu));
  }
  SUBCASE("in and notin") {
    CHECK(label_match("gpu in (t4, a100)", gpu));
    CHECK_FALSE(label_match("gpu in (t4)", gpu));
    CHECK(label_match("gpu notin (t4)", gpu));
    CHECK_FALSE(label_match("gpu notin (a100,t4)", gpu));
    CHECK(label_match("zone notin (a)", gpu));
  }
  SUBCASE("exists and does not exist") {
    CHECK(label_match("gpu", gpu));
    CHECK_FALSE(label_match("zone", gpu));
    CHECK(label_match("!zone", gpu));
    CHECK_FALSE(label_match("!gpu", gpu));
  }
  SUBCASE("gt and lt") {
    CHECK(label_match("count>3", gpu));
    CHECK_FALSE(label_match("count>4", gpu));
    CHECK(label_match("count<5", gpu));
    CHECK_FALSE(label_match("gpu>1", gpu)); // non-integer value never matches
  }
  SUBCASE("requirements are ANDed") {
    CHECK(label_match("gpu=a100,count>1,!zone", gpu));
    CHECK_FALSE(label_match("gpu=a100,zone", gpu));
  }
  SUBCASE("empty value") {
    CHECK(label_match("empty=", {{"empty", ""}}));
  }
  SUBCASE("empty selector matches everything") {
    CHECK(parse_label_selector("").empty());
    CHECK(label_match("", gpu));
  }
  SUBCASE("syntax errors are 400") {
    for (const char* bad : {"gpu in a100", "=x", "gpu>x", "a b", "gpu in (a"}) {
      CAPTURE(bad);
      try {
        parse_label_selector(bad);
        FAIL("accepted a bad selector");
      } catch (const fakekube::StatusError& error) {
        CHECK(error.code() == 400);
      }
    }
  }
}

TEST_CASE("fakekube::parse_field_selector") {
  SUBCASE("=, == and !=") {
    const auto selector = parse_field_selector("spec.nodeName=n1,status.phase!=Running");
    CHECK(selector.matches({{"spec.nodeName", "n1"}, {"status.phase", "Pending"}}));
    CHECK_FALSE(selector.matches({{"spec.nodeName", "n1"}, {"status.phase", "Running"}}));
    CHECK(parse_field_selector("spec.nodeName==").matches({{"spec.nodeName", ""}}));
  }
  SUBCASE("a term without an operator is 400") {
    CHECK_THROWS_AS(parse_field_selector("spec.nodeName"), fakekube::StatusError);
  }
}

TEST_CASE("fakekube::check_field_selector") {
  SUBCASE("unsupported field names the label") {
    try {
      fakekube::check_field_selector("/pods", parse_field_selector("spec.foo=bar"));
      FAIL("accepted an unsupported field");
    } catch (const fakekube::StatusError& error) {
      CHECK(error.code() == 400);
      CHECK(std::string(error.what()) == "field label not supported: spec.foo");
    }
  }
  SUBCASE("per-resource fields") {
    CHECK_NOTHROW(fakekube::check_field_selector("/nodes", parse_field_selector("spec.unschedulable=false")));
    CHECK_NOTHROW(fakekube::check_field_selector("/events", parse_field_selector("involvedObject.name=p,reason=FailedScheduling,source=default-scheduler")));
    CHECK_NOTHROW(fakekube::check_field_selector("/secrets", parse_field_selector("type=Opaque")));
    CHECK_THROWS(fakekube::check_field_selector("/nodes", parse_field_selector("spec.nodeName=x")));
  }
}

TEST_CASE("fakekube::selectable_fields") {
  SUBCASE("pods") {
    auto fields = fakekube::selectable_fields(
        "/pods", {{"metadata", {{"name", "p"}, {"namespace", "ns"}}},
                  {"spec", {{"nodeName", "n1"}}},
                  {"status", {{"phase", "Pending"}}}});
    CHECK(fields["spec.nodeName"] == "n1");
    CHECK(fields["status.phase"] == "Pending");
    CHECK(fields["metadata.namespace"] == "ns");
  }
  SUBCASE("events source is source.component") {
    auto fields = fakekube::selectable_fields(
        "/events", {{"metadata", {{"name", "e"}}}, {"source", {{"component", "default-scheduler"}}}});
    CHECK(fields["source"] == "default-scheduler");
  }
  SUBCASE("nodes default spec.unschedulable to false") {
    CHECK(fakekube::selectable_fields("/nodes", {{"metadata", {{"name", "n"}}}})["spec.unschedulable"] == "false");
  }
}
