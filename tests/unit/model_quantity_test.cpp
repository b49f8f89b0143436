// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include <gpuslice/model/quantity.hpp>

using gpuslice::model::Quantity;

namespace {

long long milli(const char* text) {
  std::optional<Quantity> q = Quantity::parse(text);
  REQUIRE_MESSAGE(q.has_value(), text);
  return q->milli();
}

} // namespace

TEST_CASE("model::Quantity::parse") {
  SUBCASE("plain integers and decimals") {
    CHECK(milli("0") == 0);
    CHECK(milli("1") == 1000);
    CHECK(milli("1.5") == 1500);
    CHECK(milli(".5") == 500);
    CHECK(milli("5.") == 5000);
    CHECK(milli("+2") == 2000);
    CHECK(milli("-2") == -2000);
  }
  SUBCASE("decimal suffixes") {
    CHECK(milli("500m") == 500);
    CHECK(milli("2k") == 2'000'000);
    CHECK(milli("3M") == 3'000'000'000);
    CHECK(milli("1G") == 1'000'000'000'000);
    CHECK(milli("1T") == 1'000'000'000'000'000);
    CHECK(milli("1500u") == 2); // 1.5 milli rounds up
    CHECK(milli("1n") == 1);
    CHECK(milli("1000000n") == 1);
  }
  SUBCASE("binary suffixes") {
    CHECK(milli("1Ki") == 1'024'000);
    CHECK(milli("16203652Ki") == 16203652LL * 1024 * 1000);
    CHECK(milli("1.5Gi") == 1610612736LL * 1000);
    CHECK(milli("2Ti") == 2LL * 1024 * 1024 * 1024 * 1024 * 1000);
  }
  SUBCASE("exponents") {
    CHECK(milli("1e3") == 1'000'000);
    CHECK(milli("1E3") == 1'000'000);
    CHECK(milli("12e-3") == 12);
    CHECK(milli("1.5e+2") == 150'000);
  }
  SUBCASE("rounding is ceil") {
    CHECK(milli("0.0001") == 1);
    CHECK(milli("-0.0001") == 0);
    CHECK(milli("1e-40") == 1);
  }
  SUBCASE("bad input is nullopt, never a crash") {
    for (const char* bad : {"", "-", "+", ".", "abc", "1x", "1 Gi", "1Gi ", " 1", "1..2", "1.2.3", "Gi", "1e", "1e+",
                            "1ee3", "1KiB", "1k1", "--1", "1e1234", "0x10", "1,5"}) {
      CHECK_MESSAGE(!Quantity::parse(bad).has_value(), bad);
    }
  }
  SUBCASE("out of range is nullopt") {
    CHECK(!Quantity::parse("10Ei").has_value());
    CHECK(!Quantity::parse("9223372036854775807").has_value());
    CHECK(!Quantity::parse("1234567890123456789012345678901234567890").has_value());
    CHECK(Quantity::parse("9000000000000").has_value());
  }
}

TEST_CASE("model::Quantity::value") {
  CHECK(Quantity::parse("500m")->value() == 1);
  CHECK(Quantity::parse("2")->value() == 2);
  CHECK(Quantity::parse("2001m")->value() == 3);
  CHECK(Quantity::parse("-1500m")->value() == -1);
}

TEST_CASE("model::Quantity::to_string") {
  auto canonical = [](const char* text) { return Quantity::parse(text)->to_string(); };
  CHECK(canonical("0") == "0");
  CHECK(canonical("1500m") == "1500m");
  CHECK(canonical("1.5") == "1500m");
  CHECK(canonical("2000") == "2k");
  CHECK(canonical("1500") == "1500");
  CHECK(canonical("1Gi") == "1Gi");
  CHECK(canonical("1024Mi") == "1Gi");
  CHECK(canonical("16203652Ki") == "16203652Ki");
  CHECK(canonical("1e3") == "1e3");
  CHECK(canonical("4") == "4");
  CHECK(Quantity::from_units(4).to_string() == "4");
  CHECK(Quantity::from_milli(-250).to_string() == "-250m");
  SUBCASE("round trip") {
    for (const char* text : {"1", "100m", "3920m", "15186820Ki", "110", "2k", "7Gi", "1e6", "-3"}) {
      std::optional<Quantity> again = Quantity::parse(canonical(text));
      REQUIRE(again.has_value());
      CHECK(*again == *Quantity::parse(text));
    }
  }
}

TEST_CASE("model::Quantity arithmetic and comparison") {
  Quantity one = *Quantity::parse("1");
  Quantity half = *Quantity::parse("500m");
  CHECK((one + half).milli() == 1500);
  CHECK((one - half).milli() == 500);
  CHECK(half < one);
  CHECK(*Quantity::parse("1Ki") == *Quantity::parse("1024"));
  Quantity total;
  total += one;
  total += one;
  CHECK(total == Quantity::from_units(2));
}

TEST_CASE("model::quantity_of") {
  gpuslice::model::ResourceList list{{"nvidia.com/gpu", Quantity::from_units(2)}};
  CHECK(gpuslice::model::quantity_of(list, "nvidia.com/gpu").value() == 2);
  CHECK(gpuslice::model::quantity_of(list, "cpu").is_zero());
}
