// SPDX-License-Identifier: Apache-2.0
// YAML to JSON straight from yaml-cpp's parser events: no YAML::Node tree in between, and our
// own document loop instead of YAML::LoadAll, which never returns on a stray top-level ','
// (jbeder/yaml-cpp#1040, fixed upstream after 0.8 by #1319; Debian 12 ships 0.7).
#include "yaml_json.hpp"

#include <charconv>
#include <cmath>
#include <cstddef>
#include <optional>
#include <sstream>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

#include <gpuslice/error.hpp>

namespace gpuslice::collect {
namespace {

// Plain scalars typed as the YAML 1.2 core schema does (what kubectl's sigs.k8s.io/yaml does
// for the cases API objects contain).
nlohmann::json plain_scalar(const std::string& text) {
  if (text.empty() || text == "~" || text == "null" || text == "Null" || text == "NULL") return nullptr;
  if (text == "true" || text == "True" || text == "TRUE") return true;
  if (text == "false" || text == "False" || text == "FALSE") return false;
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  const char* digits = (*begin == '+') ? begin + 1 : begin;
  long long integer = 0;
  auto [int_end, int_error] = std::from_chars(digits, end, integer);
  if (int_error == std::errc{} && int_end == end) return integer;
  double real = 0;
  auto [real_end, real_error] = std::from_chars(digits, end, real);
  bool has_digit = text.find_first_of("0123456789") != std::string::npos;
  if (real_error == std::errc{} && real_end == end && has_digit && std::isfinite(real)) return real;
  return text;
}

// Far deeper than any API object; stops a hostile file from exhausting the stack.
constexpr std::size_t k_max_depth = 256;

// Values an alias may copy in, over the document's own: a few aliases are fine, a "billion
// laughs" file (each anchor aliasing the one before, twice) is refused before it fills memory.
std::size_t alias_budget(std::size_t text_size) { return 4 * text_size + 100'000; }

// Builds one document's JSON from the events. Map keys that are not scalars (complex keys,
// null keys, aliases) never appear in API objects: their entry is dropped, as before.
class JsonBuilder final : public YAML::EventHandler {
public:
  explicit JsonBuilder(std::size_t budget) : m_budget(budget) {}

  // The finished document (null for an empty one), and where it began.
  nlohmann::json take_root() { return std::move(m_root); }
  std::size_t start_pos() const { return m_start_pos; }

  void OnDocumentStart(const YAML::Mark& mark) override {
    m_root = nullptr;
    m_start_pos = static_cast<std::size_t>(mark.pos);
    m_stack.clear();
  }
  void OnDocumentEnd() override {}

  void OnNull(const YAML::Mark&, YAML::anchor_t anchor) override { add(nullptr, anchor, 1); }
  void OnAlias(const YAML::Mark&, YAML::anchor_t anchor) override {
    auto found = m_anchors.find(anchor);
    if (found == m_anchors.end()) return add(nullptr, 0, 1); // yaml-cpp refuses these itself
    m_copied += found->second.values;
    if (m_copied > m_budget) throw UsageError(fmt::format("aliases expand to more than {} values", m_budget));
    add(found->second.value, 0, found->second.values);
  }
  void OnScalar(const YAML::Mark&, const std::string& tag, YAML::anchor_t anchor, const std::string& value) override {
    if (in_dropped()) return;
    if (at_key()) {
      m_stack.back().key = value;
      return;
    }
    // yaml-cpp tags quoted and block scalars "!" and plain ones "?".
    add(tag == "!" ? nlohmann::json(value) : plain_scalar(value), anchor, 1);
  }
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t anchor, YAML::EmitterStyle::value) override {
    open(nlohmann::json::array(), anchor);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t anchor, YAML::EmitterStyle::value) override {
    open(nlohmann::json::object(), anchor);
  }
  void OnMapEnd() override { close(); }

private:
  // A collection being built. One that is dropped is a key, the value of a dropped key, or
  // inside either: its events are read and nothing is kept.
  enum class Role { value, key, value_of_dropped_key };
  struct Frame {
    nlohmann::json value;
    YAML::anchor_t anchor = 0;
    std::size_t values = 1; // in this subtree, for the alias budget
    Role role = Role::value;
    bool dropped = false;
    std::optional<std::string> key; // a map's key waiting for its value
    bool key_dropped = false;       // the waiting key was not a scalar
  };
  struct Anchored {
    nlohmann::json value;
    std::size_t values = 1;
  };

  bool in_dropped() const { return !m_stack.empty() && m_stack.back().dropped; }
  bool at_key() const {
    return !m_stack.empty() && m_stack.back().value.is_object() && !m_stack.back().key && !m_stack.back().key_dropped;
  }

  void open(nlohmann::json value, YAML::anchor_t anchor) {
    if (m_stack.size() >= k_max_depth) throw UsageError(fmt::format("nesting deeper than {} levels", k_max_depth));
    Frame frame{std::move(value), anchor, 1, Role::value, false, std::nullopt, false};
    if (in_dropped()) {
      frame.dropped = true;
    } else if (at_key()) {
      frame.role = Role::key;
      frame.dropped = true;
      m_stack.back().key_dropped = true;
    } else if (!m_stack.empty() && m_stack.back().key_dropped) {
      frame.role = Role::value_of_dropped_key;
      frame.dropped = true;
    }
    m_stack.push_back(std::move(frame));
  }

  void close() {
    Frame done = std::move(m_stack.back());
    m_stack.pop_back();
    if (done.dropped) {
      if (done.role == Role::value_of_dropped_key) m_stack.back().key_dropped = false; // the entry is over
      return;
    }
    add(std::move(done.value), done.anchor, done.values);
  }

  // A finished value: the document's root, an item of a sequence, or a map entry's value.
  void add(nlohmann::json value, YAML::anchor_t anchor, std::size_t values) {
    if (in_dropped()) return;
    if (at_key()) { // a null or alias key: the entry goes
      m_stack.back().key_dropped = true;
      return;
    }
    if (anchor != 0) m_anchors[anchor] = Anchored{value, values};
    if (m_stack.empty()) {
      m_root = std::move(value);
      return;
    }
    Frame& parent = m_stack.back();
    parent.values += values;
    if (parent.value.is_array()) {
      parent.value.push_back(std::move(value));
    } else if (parent.key_dropped) {
      parent.key_dropped = false;
    } else {
      parent.value[*parent.key] = std::move(value);
      parent.key.reset();
    }
  }

  std::size_t m_budget;
  std::size_t m_copied = 0;
  std::size_t m_start_pos = 0;
  nlohmann::json m_root;
  std::vector<Frame> m_stack;
  std::unordered_map<YAML::anchor_t, Anchored> m_anchors;
};

// Line and column (1-based) of a byte offset, for the message of a stall.
std::pair<std::size_t, std::size_t> line_column(std::string_view text, std::size_t pos) {
  std::size_t line = 1;
  std::size_t column = 1;
  for (std::size_t i = 0; i < pos && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return {line, column};
}

} // namespace

std::vector<nlohmann::json> parse_yaml_documents(std::string_view text, const std::string& origin) {
  std::istringstream input{std::string(text)};
  std::vector<nlohmann::json> result;
  JsonBuilder builder(alias_budget(text.size()));
  std::optional<std::size_t> previous_start;
  std::optional<std::size_t> stalled_at;
  try {
    YAML::Parser parser(input);
    while (parser.HandleNextDocument(builder)) {
      // A document that began where the last one did consumed nothing: yaml-cpp 0.7 would
      // hand us the same empty document forever.
      if (previous_start == builder.start_pos()) {
        stalled_at = builder.start_pos();
        break;
      }
      previous_start = builder.start_pos();
      nlohmann::json document = builder.take_root();
      if (!document.is_null()) result.push_back(std::move(document));
    }
  } catch (const YAML::Exception& e) {
    throw UsageError(fmt::format("{}: not valid YAML or JSON: line {}, column {}: {}", origin, e.mark.line + 1,
                                 e.mark.column + 1, e.msg));
  } catch (const UsageError& e) {
    throw UsageError(fmt::format("{}: document {}: {}", origin, result.size() + 1, e.what()));
  }
  if (stalled_at) {
    auto [line, column] = line_column(text, *stalled_at);
    throw UsageError(fmt::format("{}: not valid YAML or JSON: line {}, column {}: unexpected '{}'", origin, line,
                                 column, *stalled_at < text.size() ? text[*stalled_at] : ' '));
  }
  return result;
}

} // namespace gpuslice::collect
