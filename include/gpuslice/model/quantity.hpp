// SPDX-License-Identifier: Apache-2.0
// resource.Quantity ("500m", "16Gi", "1e3") as an exact integer count of thousandths.
#pragma once

#include <compare>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include <gpuslice/model/text_keyed.hpp>

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

// Resource name -> quantity, as in requests, limits, capacity and allocatable; sorted by name,
// names in one buffer (model/text_keyed.hpp). Entries read as (name view, quantity).
class ResourceList : public TextKeyed<Quantity> {
public:
  using key_type = std::string_view;
  using mapped_type = Quantity;
  using value_type = std::pair<std::string_view, Quantity>;
  using size_type = std::size_t;
  using const_iterator = EntryIterator<ResourceList>;
  using iterator = const_iterator;

  ResourceList() = default;
  ResourceList(std::initializer_list<value_type> entries) {
    for (const auto& [name, quantity] : entries) insert_or_assign(name, quantity);
  }

  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, size()}; }
  const_iterator find(std::string_view name) const { return {this, index_of(name)}; }
  bool contains(std::string_view name) const { return index_of(name) != size(); }
  std::size_t count(std::string_view name) const { return contains(name) ? 1 : 0; }

  // The quantity of `name`, added as zero when absent (std::map's operator[]). The reference
  // lasts until the list next gains an entry.
  Quantity& operator[](std::string_view name);
  // Sets name to quantity; true when the name is new.
  bool insert_or_assign(std::string_view name, Quantity quantity);
  // Adds name -> quantity unless the name is present; true when added.
  bool emplace(std::string_view name, Quantity quantity);
  std::size_t erase(std::string_view name) { return erase_key(name); }
  void shrink_to_fit();

  // Same names with equal amounts (Quantity's ==).
  friend bool operator==(const ResourceList& a, const ResourceList& b);

  // (name, quantity) of the entry at `index` < size(); what the iterators read.
  value_type entry(std::size_t index) const { return {key_of(slot(index)), slot(index).value}; }
};

// The quantity of `resource` in `list`, zero when absent.
Quantity quantity_of(const ResourceList& list, std::string_view resource);

} // namespace gpuslice::model
