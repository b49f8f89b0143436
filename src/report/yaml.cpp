// SPDX-License-Identifier: Apache-2.0
// A small JSON → YAML printer. yaml-cpp's emitter would write the string "1" as a plain 1,
// changing its type on the way back in; scripts parse our YAML, so types must survive.
#include <cctype>
#include <regex>

#include <nlohmann/json.hpp>

#include <gpuslice/report.hpp>

namespace gpuslice::report {

namespace {

// True when text can be written as a plain YAML scalar and still read back as this string.
bool plain_safe(const std::string& text) {
  if (text.empty() || std::isspace(static_cast<unsigned char>(text.front())) ||
      std::isspace(static_cast<unsigned char>(text.back()))) {
    return false;
  }
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) {
      return false;
    }
  }
  // YAML 1.1 and 1.2 booleans, nulls and numbers read as other types.
  static const std::regex k_other_type(
      R"(^(?:[-+]?(?:\.inf|\.Inf|\.INF)|\.nan|\.NaN|\.NAN|~|null|Null|NULL|true|True|TRUE|false|False|FALSE|y|Y|yes|Yes|YES|n|N|no|No|NO|on|On|ON|off|Off|OFF|[-+]?[0-9][0-9_.:eExXoObB+-]*|[-+]?\.[0-9].*)$)");
  if (std::regex_match(text, k_other_type)) {
    return false;
  }
  static const std::string k_bad_first = "-?:,[]{}#&*!|>'\"%@`";
  if (k_bad_first.find(text.front()) != std::string::npos) {
    return false;
  }
  return text.find(": ") == std::string::npos && text.find(" #") == std::string::npos &&
         text.back() != ':';
}

std::string scalar(const nlohmann::ordered_json& value) {
  if (value.is_string()) {
    const std::string& text = value.get_ref<const std::string&>();
    return plain_safe(text) ? text : value.dump(); // JSON strings are valid YAML double-quoted scalars
  }
  return value.dump(); // numbers, booleans, null print the same in YAML
}

bool is_empty_container(const nlohmann::ordered_json& value) {
  return (value.is_object() || value.is_array()) && value.empty();
}

void emit(const nlohmann::ordered_json& value, int indent, std::string& out);

void emit_key_value(const std::string& key, const nlohmann::ordered_json& value, int indent,
                    std::string& out) {
  out.append(indent, ' ');
  out += scalar(key) + ":";
  if (is_empty_container(value)) {
    out += value.is_object() ? " {}\n" : " []\n";
  } else if (value.is_object()) {
    out += "\n";
    emit(value, indent + 2, out);
  } else if (value.is_array()) {
    out += "\n";
    emit(value, indent, out); // kubectl style: list items at the key's indentation
  } else {
    out += " " + scalar(value) + "\n";
  }
}

void emit(const nlohmann::ordered_json& value, int indent, std::string& out) {
  if (value.is_object()) {
    for (const auto& [key, item] : value.items()) {
      emit_key_value(key, item, indent, out);
    }
    return;
  }
  if (value.is_array()) {
    for (const auto& item : value) {
      if (item.is_object() && !item.empty()) {
        // "- " then the object's first key on the same line, the rest aligned under it.
        std::string nested;
        emit(item, indent + 2, nested);
        out.append(indent, ' ');
        out += "- " + nested.substr(static_cast<std::size_t>(indent) + 2);
      } else if (item.is_array() && !item.empty()) {
        out.append(indent, ' ');
        out += "-\n";
        emit(item, indent + 2, out);
      } else {
        out.append(indent, ' ');
        out += "- " + (is_empty_container(item) ? std::string(item.is_object() ? "{}" : "[]")
                                                 : scalar(item)) +
               "\n";
      }
    }
    return;
  }
  out.append(indent, ' ');
  out += scalar(value) + "\n";
}

} // namespace

std::string to_yaml(const nlohmann::ordered_json& tree) {
  std::string out;
  if (is_empty_container(tree)) {
    return tree.is_object() ? "{}\n" : "[]\n";
  }
  emit(tree, 0, out);
  return out;
}

} // namespace gpuslice::report
