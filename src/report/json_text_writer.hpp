// SPDX-License-Identifier: Apache-2.0
// A JSON value written as text while it is produced, byte for byte what nlohmann's dump(2)
// prints for the same tree, so `-o json` needs no DOM. Also a sink that builds that DOM, for
// the callers that want the tree (YAML, fleet), from the same producer.
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace gpuslice::report {

// Thrown by JsonTextWriter::string for text that is not valid UTF-8, which nlohmann's dump
// rejects (type_error 316): the caller falls back to the DOM so the error is the same.
struct InvalidUtf8 {};

// Pretty JSON text with a two-space indent. Calls must form one well-nested value: key()
// before each member of an object, values directly in arrays.
class JsonTextWriter {
public:
  JsonTextWriter() = default;
  // Text beyond a chunk goes to `sink` as it is written, so a large document is never held
  // whole; take() then returns what is left.
  explicit JsonTextWriter(std::ostream& sink) : m_sink(&sink) {}
  void begin_object() { open('{'); }
  void end_object() { close('}'); }
  void begin_array() { open('['); }
  void end_array() { close(']'); }
  void key(std::string_view name);
  void string(std::string_view text);
  void integer(long long value);
  void boolean(bool value);
  void strings(const std::vector<std::string>& items);
  // The text so far (the whole value once the outermost container is closed).
  std::string take() { return std::move(m_out); }
  // Writes what is held to the sink.
  void flush();

private:
  void open(char bracket);
  void close(char bracket);
  void before_value();
  void newline_indent();
  void quoted(std::string_view text);

  std::string m_out;
  std::ostream* m_sink = nullptr;
  // Per open container: whether it has a member yet (an empty one prints as {} or []).
  std::vector<bool> m_has_member;
  bool m_after_key = false;
};

// Whether text is UTF-8 as nlohmann's decoder accepts it (RFC 3629: no overlong forms, no
// surrogates, nothing above U+10FFFF).
bool valid_utf8(std::string_view text);

// The same calls writing nothing: throws InvalidUtf8 where JsonTextWriter would, so a caller
// can know before it streams a single byte.
class JsonUtf8Check {
public:
  void begin_object() {}
  void end_object() {}
  void begin_array() {}
  void end_array() {}
  void key(std::string_view name) { check(name); }
  void string(std::string_view text) { check(text); }
  void integer(long long) {}
  void boolean(bool) {}
  void strings(const std::vector<std::string>& items) {
    for (const std::string& item : items) check(item);
  }

private:
  static void check(std::string_view text) {
    if (!valid_utf8(text)) throw InvalidUtf8{};
  }
};

// The same calls building an nlohmann::ordered_json tree.
class JsonTreeBuilder {
public:
  JsonTreeBuilder() = default;
  void begin_object() { open(nlohmann::ordered_json::object()); }
  void end_object() { m_stack.pop_back(); }
  void begin_array() { open(nlohmann::ordered_json::array()); }
  void end_array() { m_stack.pop_back(); }
  void key(std::string_view name) { m_key = name; }
  void string(std::string_view text) { put(std::string(text)); }
  void integer(long long value) { put(value); }
  void boolean(bool value) { put(value); }
  void strings(const std::vector<std::string>& items) { put(items); }
  nlohmann::ordered_json take() { return std::move(m_root); }

private:
  nlohmann::ordered_json& put(nlohmann::ordered_json value);
  void open(nlohmann::ordered_json container) { m_stack.push_back(&put(std::move(container))); }

  nlohmann::ordered_json m_root;
  std::vector<nlohmann::ordered_json*> m_stack;
  std::string m_key;
};

} // namespace gpuslice::report
