// SPDX-License-Identifier: Apache-2.0
// Loading a large plain-List scenario in chunks (the benchmarks' L cluster is 1.1 GB of
// JSON). load_scenario parses the whole file into one DOM, and Api::load copies its items:
// about 20x the file in memory, more than the machine has. Here the file is split into its
// items by a bracket scanner, and each chunk of items is parsed and loaded on its own, so only
// the text, the stored objects and one chunk's DOM are in memory at once.
#include "scenario_list_chunks.hpp"

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>

namespace fakekube {
namespace {

constexpr std::size_t k_chunk_items = 2000;
constexpr std::uintmax_t k_chunked_from_bytes = 64u << 20;

// Calls on_item with the text of each element of the top-level "items" array, or returns
// false when the text is not a JSON object with such an array. Strings are skipped whole,
// escapes included, so brackets inside them do not count.
template <typename OnItem>
bool split_list_items(std::string_view text, OnItem on_item) {
  int depth = 0;
  int items_depth = -1; // depth inside the items array, once found
  std::size_t item_start = 0;
  std::string_view last_key;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') {
      const std::size_t start = i + 1;
      for (++i; i < text.size() && text[i] != '"'; ++i)
        if (text[i] == '\\') ++i;
      if (depth == 1) last_key = text.substr(start, i - start);
      continue;
    }
    if (c == '{' || c == '[') {
      if (depth == 1 && c == '[' && last_key == "items") items_depth = depth + 1;
      else if (items_depth >= 0 && depth == items_depth) item_start = i;
      ++depth;
    } else if (c == '}' || c == ']') {
      --depth;
      if (items_depth >= 0 && depth == items_depth) on_item(text.substr(item_start, i + 1 - item_start));
      if (items_depth >= 0 && depth < items_depth) return true;
    }
  }
  return false;
}

} // namespace

bool wants_chunked_load(const std::filesystem::path& path) {
  std::error_code error;
  if (std::filesystem::file_size(path, error) < k_chunked_from_bytes || error) return false;
  std::ifstream in(path, std::ios::binary);
  std::string head(4096, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  const std::size_t first = head.find_first_not_of(" \t\r\n");
  // Shape 1 only: settings (users, faults, ...) need the whole-file loader.
  return first != std::string::npos && head[first] == '{' && head.find("\"kind\":\"List\"") != std::string::npos &&
         head.find("\"objects\"") == std::string::npos;
}

void load_list_in_chunks(Api& api, const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path.string() + ": cannot open scenario");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  const std::string text = std::move(buffer).str();
  nlohmann::json chunk = nlohmann::json::array();
  const bool found = split_list_items(text, [&](std::string_view item) {
    chunk.push_back(nlohmann::json::parse(item));
    if (chunk.size() == k_chunk_items) {
      api.load(chunk);
      chunk = nlohmann::json::array();
    }
  });
  if (!found) throw std::runtime_error(path.string() + ": not a JSON List with items");
  if (!chunk.empty()) api.load(chunk);
}

} // namespace fakekube
