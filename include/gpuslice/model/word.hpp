// SPDX-License-Identifier: Apache-2.0
// Word: text from a small vocabulary — a toleration's key, operator, value and effect — held
// once for the life of the process, so that a field is one pointer and equal words share
// their text. At 17,000 pods of three tolerations, four std::strings each (and a heap copy of
// "node.kubernetes.io/not-ready" in every one) were ~7 MB of `diagnose --from-file`'s peak.
// Interning is thread-safe: decode workers create words side by side.
#pragma once

#include <compare>
#include <cstddef>
#include <string>
#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json_fwd.hpp>

namespace gpuslice::model {

class Word {
public:
  Word() = default;
  Word(std::string_view text); // NOLINT(google-explicit-constructor): words are assigned from text
  Word(const char* text) : Word(std::string_view(text)) {}
  Word(const std::string& text) : Word(std::string_view(text)) {}

  const std::string& str() const;
  std::string_view view() const { return m_text ? std::string_view(*m_text) : std::string_view(); }
  operator const std::string&() const { return str(); } // NOLINT(google-explicit-constructor)
  operator std::string_view() const { return view(); }  // NOLINT(google-explicit-constructor)
  bool empty() const { return m_text == nullptr; }
  std::size_t size() const { return view().size(); }
  const char* data() const { return view().data(); }
  const char* c_str() const { return str().c_str(); }

  // Interned: equal words are the same pointer.
  friend bool operator==(const Word& a, const Word& b) { return a.m_text == b.m_text; }
  friend bool operator==(const Word& a, std::string_view b) { return a.view() == b; }
  friend bool operator==(const Word& a, const char* b) { return a.view() == std::string_view(b); }
  friend bool operator==(const Word& a, const std::string& b) { return a.view() == std::string_view(b); }
  friend std::strong_ordering operator<=>(const Word& a, const Word& b) { return a.view() <=> b.view(); }

private:
  const std::string* m_text = nullptr; // null for the empty word
};

inline std::string operator+(const std::string& a, const Word& b) { return a + b.str(); }
inline std::string operator+(const Word& a, const std::string& b) { return a.str() + b; }
inline std::string operator+(const char* a, const Word& b) { return a + b.str(); }
inline std::string operator+(const Word& a, const char* b) { return a.str() + b; }

void to_json(nlohmann::json& out, const Word& word);

} // namespace gpuslice::model

template <> struct fmt::formatter<gpuslice::model::Word> : fmt::formatter<std::string_view> {
  template <class Context> auto format(const gpuslice::model::Word& word, Context& ctx) const {
    return fmt::formatter<std::string_view>::format(word.view(), ctx);
  }
};
