// SPDX-License-Identifier: Apache-2.0
#include <gpuslice/model/quantity.hpp>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <limits>

namespace gpuslice::model {
namespace {

// 128-bit intermediates so "1.5Ei" or "123456789012e-9" are exact before the int64 check.
__extension__ typedef __int128 Wide;

constexpr std::int64_t k_max = std::numeric_limits<std::int64_t>::max();
constexpr int k_max_digits = 30; // beyond this the 128-bit product could overflow

struct Suffix {
  std::string_view text;
  int base10 = 0; // power of ten
  int base2 = 0;  // power of two
  Quantity::Format format = Quantity::Format::decimal_si;
};

constexpr std::array<Suffix, 14> k_suffixes{{
    {"n", -9, 0, Quantity::Format::decimal_si},  {"u", -6, 0, Quantity::Format::decimal_si},
    {"m", -3, 0, Quantity::Format::decimal_si},  {"k", 3, 0, Quantity::Format::decimal_si},
    {"M", 6, 0, Quantity::Format::decimal_si},   {"G", 9, 0, Quantity::Format::decimal_si},
    {"T", 12, 0, Quantity::Format::decimal_si},  {"P", 15, 0, Quantity::Format::decimal_si},
    {"E", 18, 0, Quantity::Format::decimal_si},  {"Ki", 0, 10, Quantity::Format::binary_si},
    {"Mi", 0, 20, Quantity::Format::binary_si},  {"Gi", 0, 30, Quantity::Format::binary_si},
    {"Ti", 0, 40, Quantity::Format::binary_si},  {"Pi", 0, 50, Quantity::Format::binary_si},
}};

bool is_digit(char c) { return c >= '0' && c <= '9'; }

Wide pow10(int exponent) {
  Wide result = 1;
  for (int i = 0; i < exponent; ++i) result *= 10;
  return result;
}

// Ceil of numerator / denominator for a positive denominator.
Wide ceil_div(Wide numerator, Wide denominator) {
  Wide quotient = numerator / denominator;
  if (numerator % denominator != 0 && numerator > 0) ++quotient;
  return quotient;
}

// Reads the suffix after the number: a unit, an exponent, or nothing.
std::optional<Suffix> parse_suffix(std::string_view rest) {
  if (rest.empty()) return Suffix{};
  if (rest == "Ei") return Suffix{"Ei", 0, 60, Quantity::Format::binary_si};
  for (const Suffix& suffix : k_suffixes)
    if (rest == suffix.text) return suffix;
  if (rest[0] != 'e' && rest[0] != 'E') return std::nullopt;
  std::string_view exponent = rest.substr(1);
  bool negative = false;
  if (!exponent.empty() && (exponent[0] == '+' || exponent[0] == '-')) {
    negative = exponent[0] == '-';
    exponent.remove_prefix(1);
  }
  if (exponent.empty() || exponent.size() > 3) return std::nullopt;
  int value = 0;
  for (char c : exponent) {
    if (!is_digit(c)) return std::nullopt;
    value = value * 10 + (c - '0');
  }
  return Suffix{rest, negative ? -value : value, 0, Quantity::Format::decimal_exponent};
}

std::string with_suffix(std::int64_t mantissa, std::string_view suffix) {
  return std::to_string(mantissa) + std::string(suffix);
}

} // namespace

Quantity Quantity::from_units(std::int64_t units) { return from_milli(units * 1000); }

Quantity Quantity::from_milli(std::int64_t milli, Format format) {
  Quantity q;
  q.m_milli = milli;
  q.m_format = format;
  return q;
}

std::optional<Quantity> Quantity::parse(std::string_view text) {
  std::string_view rest = text;
  bool negative = false;
  if (!rest.empty() && (rest[0] == '+' || rest[0] == '-')) {
    negative = rest[0] == '-';
    rest.remove_prefix(1);
  }
  Wide digits = 0;
  int significant = 0;
  int fraction_digits = 0;
  bool seen_digit = false;
  bool seen_point = false;
  std::size_t i = 0;
  for (; i < rest.size(); ++i) {
    char c = rest[i];
    if (c == '.' && !seen_point) {
      seen_point = true;
      continue;
    }
    if (!is_digit(c)) break;
    seen_digit = true;
    if (digits != 0 || c != '0') ++significant;
    if (significant > k_max_digits) return std::nullopt;
    digits = digits * 10 + (c - '0');
    if (seen_point) ++fraction_digits;
  }
  if (!seen_digit) return std::nullopt;
  std::optional<Suffix> suffix = parse_suffix(rest.substr(i));
  if (!suffix) return std::nullopt;

  // milli = ±digits * 10^(base10 - fraction_digits + 3) * 2^base2, rounded up (ceil).
  int exponent = suffix->base10 - fraction_digits + 3;
  Wide milli = digits;
  for (int b = 0; b < suffix->base2 && milli != 0; ++b) {
    milli *= 2;
    if (milli > k_max) return std::nullopt;
  }
  for (int e = 0; e < exponent && milli != 0; ++e) {
    milli *= 10;
    if (milli > k_max) return std::nullopt;
  }
  if (negative) milli = -milli;
  if (exponent < 0 && milli != 0) {
    // Below a thousandth: ceil rounds a tiny positive up to 1 and a tiny negative to 0.
    milli = -exponent > 36 ? (milli > 0 ? 1 : 0) : ceil_div(milli, pow10(-exponent));
  }
  return from_milli(static_cast<std::int64_t>(milli), suffix->format);
}

std::int64_t Quantity::value() const {
  std::int64_t whole = m_milli / 1000;
  if (m_milli % 1000 != 0 && m_milli > 0) ++whole;
  return whole;
}

std::string Quantity::to_string() const {
  if (m_milli == 0) return "0";
  if (m_milli % 1000 != 0) {
    return m_format == Format::decimal_exponent ? with_suffix(m_milli, "e-3") : with_suffix(m_milli, "m");
  }
  std::int64_t units = m_milli / 1000;
  if (m_format == Format::binary_si) {
    static constexpr std::array<std::string_view, 6> binary{"Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
    int power = -1;
    while (power + 1 < static_cast<int>(binary.size()) && units % 1024 == 0) {
      units /= 1024;
      ++power;
    }
    return power < 0 ? std::to_string(units) : with_suffix(units, binary[power]);
  }
  static constexpr std::array<std::string_view, 6> decimal{"k", "M", "G", "T", "P", "E"};
  static constexpr std::array<std::string_view, 6> exponent{"e3", "e6", "e9", "e12", "e15", "e18"};
  int power = -1;
  while (power + 1 < static_cast<int>(decimal.size()) && units % 1000 == 0) {
    units /= 1000;
    ++power;
  }
  if (power < 0) return std::to_string(units);
  return with_suffix(units, m_format == Format::decimal_exponent ? exponent[power] : decimal[power]);
}

Quantity Quantity::operator+(const Quantity& other) const {
  Quantity sum = *this;
  sum += other;
  return sum;
}

Quantity Quantity::operator-(const Quantity& other) const { return from_milli(m_milli - other.m_milli, m_format); }

Quantity& Quantity::operator+=(const Quantity& other) {
  m_milli += other.m_milli;
  return *this;
}

Quantity quantity_of(const ResourceList& list, std::string_view resource) {
  auto it = list.find(resource);
  return it == list.end() ? Quantity{} : it->second;
}

Quantity& ResourceList::operator[](std::string_view name) {
  std::size_t index = lower_bound(name);
  if (index == size() || key_of(slot(index)) != name) insert_slot(index, name, Quantity{});
  return slot(index).value;
}

bool ResourceList::insert_or_assign(std::string_view name, Quantity quantity) {
  std::size_t index = lower_bound(name);
  if (index < size() && key_of(slot(index)) == name) {
    slot(index).value = quantity;
    return false;
  }
  insert_slot(index, name, quantity);
  return true;
}

bool ResourceList::emplace(std::string_view name, Quantity quantity) {
  if (contains(name)) return false;
  return insert_or_assign(name, quantity);
}

void ResourceList::shrink_to_fit() {
  compact([](Slot&, auto&&) {});
}

bool operator==(const ResourceList& a, const ResourceList& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
}

} // namespace gpuslice::model
