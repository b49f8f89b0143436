// SPDX-License-Identifier: Apache-2.0
// diagnose --from-file: JSON (one object, a List, or an array of objects) or multi-document
// YAML, one or several files merged into one Snapshot.

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <simdjson.h>

#include <gpuslice/collect.hpp>
#include <gpuslice/error.hpp>

#include "merge.hpp"
#include "yaml_json.hpp"

namespace gpuslice::collect {
namespace {

// JSON and YAML are text: a NUL byte in the first 64 KiB means a binary (or sparse, or
// zero-filled) file, refused before the whole of it is loaded into memory.
void refuse_binary_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return; // the loader reports unreadable files
  std::string head(64 * 1024, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  if (const std::size_t nul = head.find('\0'); nul != std::string::npos)
    throw UsageError(fmt::format("{}: not a JSON or YAML file (a NUL byte at byte {})", path, nul + 1));
}

// Read straight into simdjson's padded buffer: the file is held once, never copied.
simdjson::padded_string read_file(const std::string& path) {
  refuse_binary_file(path);
  simdjson::simdjson_result<simdjson::padded_string> loaded = simdjson::padded_string::load(path);
  if (loaded.error() != simdjson::SUCCESS)
    throw UsageError(fmt::format("{}: cannot open file (missing or not readable)", path));
  return std::move(loaded).value_unsafe();
}

// JSON starts with '{' or '['; anything else is read as YAML (of which JSON is a subset, but
// the JSON parser gives better errors for JSON).
bool looks_like_json(std::string_view text) {
  std::size_t first = text.find_first_not_of(" \t\r\n");
  return first != std::string_view::npos && (text[first] == '{' || text[first] == '[');
}

std::vector<nlohmann::json> parse_json(std::string_view text, const std::string& origin) {
  nlohmann::json value;
  try {
    value = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    std::string what = e.what();
    bool truncated = what.find("unexpected end of input") != std::string::npos;
    throw UsageError(fmt::format("{}: {} JSON at byte {}", origin, truncated ? "truncated" : "invalid", e.byte));
  }
  std::vector<nlohmann::json> documents;
  if (!value.is_array()) {
    documents.push_back(std::move(value));
    return documents;
  }
  // Moved, not copied: a copy recurses and a hostile nesting depth would overflow the stack.
  for (nlohmann::json& element : value) documents.push_back(std::move(element));
  return documents;
}

void merge_padded(Snapshot& snapshot, const simdjson::padded_string& text, const std::string& origin) {
  std::string_view view(text.data(), text.size());
  if (view.find_first_not_of(" \t\r\n") == std::string_view::npos)
    throw UsageError(fmt::format("{}: empty file", origin));
  if (!looks_like_json(view)) return merge_documents(snapshot, parse_yaml_documents(view, origin), origin);
  merge_documents(snapshot, parse_json(view, origin), origin);
}

} // namespace

void merge_text(Snapshot& snapshot, std::string_view text, const std::string& origin) {
  const ReadBytes read = text_reader(text);
  // A window no larger than the text: the fuzzer calls this with small inputs, very often.
  if (merge_list_window(snapshot, read, origin, std::clamp<std::size_t>(text.size(), 1, std::size_t{4} << 20))) return;
  merge_padded(snapshot, simdjson::padded_string(text), origin);
}

Snapshot load_snapshot_files(const std::vector<std::string>& paths) {
  if (paths.empty()) throw UsageError("--from-file: no file given");
  Snapshot snapshot;
  for (const std::string& path : paths) {
    // A List is read through a window: peak memory is the records plus a few MiB, not the
    // file. Anything else, or a List with a problem, is read whole.
    refuse_binary_file(path);
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
    const ReadBytes read = [&](char* into, std::size_t size) { return std::fread(into, 1, size, file.get()); };
    if (file && merge_list_window(snapshot, read, path)) continue;
    merge_padded(snapshot, read_file(path), path);
  }
  return snapshot;
}

} // namespace gpuslice::collect
