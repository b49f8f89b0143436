// SPDX-License-Identifier: Apache-2.0
// resource.Quantity ("500m", "16Gi", "1e3") as an exact integer count of thousandths.
#pragma once

#include <compare>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace gpuslice::model {

// A Kubernetes resource quantity held with milli precision (like Quantity.MilliValue()).
// Invariant: m_milli fits int64, so magnitudes up to about 9.2e15 units are representable;
// parse() refuses larger ones rather than wrapping.
class Quantity {
public:
  enum class Format { decimal_si, binary_si, decimal_exponent };

  Quantity() = default;
  // Whole units, e.g. from_units(4) is "4".
  static Quantity from_units(std::int64_t units);
  // Thousandths, e.g. from_milli(500) is "500m".
  static Quantity from_milli(std::int64_t milli, Format format = Format::decimal_si);
  // Parses the Kubernetes quantity grammar (sign, digits, decimals, suffix n u m k M G T P E,
  // Ki…Ei, or e/E exponent). Precision below a thousandth rounds up, as MilliValue() does.
  // Returns nullopt for bad syntax or values out of range.
  static std::optional<Quantity> parse(std::string_view text);

  // Thousandths of a unit.
  std::int64_t milli() const { return m_milli; }
  // Whole units rounded up (Quantity.Value()): "500m" is 1, "-1500m" is -1.
  std::int64_t value() const;
  bool is_zero() const { return m_milli == 0; }
  Format format() const { return m_format; }

  // Canonical text in this quantity's format family: "1500m", "16Gi", "2k", "0".
  std::string to_string() const;

  Quantity operator+(const Quantity& other) const;
  Quantity operator-(const Quantity& other) const;
  Quantity& operator+=(const Quantity& other);
  // Compares the amounts only; "1Ki" == "1024".
  bool operator==(const Quantity& other) const { return m_milli == other.m_milli; }
  std::strong_ordering operator<=>(const Quantity& other) const { return m_milli <=> other.m_milli; }

private:
  std::int64_t m_milli = 0;
  Format m_format = Format::decimal_si;
};

// Resource name -> quantity, as in requests, limits, capacity and allocatable.
using ResourceList = std::map<std::string, Quantity, std::less<>>;

// The quantity of `resource` in `list`, zero when absent.
Quantity quantity_of(const ResourceList& list, std::string_view resource);

} // namespace gpuslice::model
