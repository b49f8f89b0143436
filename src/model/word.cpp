// SPDX-License-Identifier: Apache-2.0
#include <gpuslice/model/word.hpp>

#include <mutex>
#include <unordered_map>
#include <unordered_set>

#include <nlohmann/json.hpp>

namespace gpuslice::model {
namespace {

struct TextHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view text) const { return std::hash<std::string_view>{}(text); }
};

// Every word's text, for the life of the process (a node-based set: addresses never move).
class Vocabulary {
public:
  const std::string* intern(std::string_view text) {
    std::lock_guard<std::mutex> lock(m_mutex);
    auto it = m_words.find(text);
    if (it == m_words.end()) it = m_words.emplace(text).first;
    return &*it;
  }

private:
  std::mutex m_mutex;
  std::unordered_set<std::string, TextHash, std::equal_to<>> m_words;
};

Vocabulary& vocabulary() {
  static Vocabulary* words = new Vocabulary(); // never destroyed: words may outlive statics
  return *words;
}

} // namespace

Word::Word(std::string_view text) {
  if (text.empty()) return;
  // Each thread remembers the words it has seen, so the shared set's lock is taken once a word.
  thread_local std::unordered_map<std::string_view, const std::string*, TextHash, std::equal_to<>> seen;
  if (auto it = seen.find(text); it != seen.end()) {
    m_text = it->second;
    return;
  }
  m_text = vocabulary().intern(text);
  seen.emplace(std::string_view(*m_text), m_text);
}

const std::string& Word::str() const {
  static const std::string k_empty;
  return m_text ? *m_text : k_empty;
}

void to_json(nlohmann::json& out, const Word& word) { out = word.str(); }

} // namespace gpuslice::model
