// SPDX-License-Identifier: Apache-2.0
#include "collect/list_window.hpp"

#include <algorithm>
#include <cstring>
#include <memory>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace gpuslice::collect {
namespace {

constexpr std::size_t k_no_offset = static_cast<std::size_t>(-1);

bool is_quote_or_bracket(char c) { return c == '"' || c == '{' || c == '}' || c == '[' || c == ']'; }

// The first quote or bracket in [from, end), or end. Between them an item's depth cannot
// change, and pretty-printed JSON is mostly indentation, keys and values to pass over.
const char* first_quote_or_bracket(const char* from, const char* end) {
#ifdef __SSE2__
  // '{' and '[', '}' and ']' differ only in bit 0x20: two compares find all four.
  const __m128i case_bit = _mm_set1_epi8(0x20);
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i open = _mm_set1_epi8('{');
  const __m128i close = _mm_set1_epi8('}');
  for (; end - from >= 16; from += 16) {
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(from));
    const __m128i folded = _mm_or_si128(bytes, case_bit);
    const __m128i hits = _mm_or_si128(_mm_cmpeq_epi8(bytes, quote),
                                      _mm_or_si128(_mm_cmpeq_epi8(folded, open), _mm_cmpeq_epi8(folded, close)));
    if (const int mask = _mm_movemask_epi8(hits); mask != 0) return from + __builtin_ctz(static_cast<unsigned>(mask));
  }
#endif
  while (from != end && !is_quote_or_bracket(*from)) ++from;
  return from;
}

// The first quote or backslash in [from, end), or end: where a string may end.
const char* first_quote_or_backslash(const char* from, const char* end) {
#ifdef __SSE2__
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  for (; end - from >= 16; from += 16) {
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(from));
    const __m128i hits = _mm_or_si128(_mm_cmpeq_epi8(bytes, quote), _mm_cmpeq_epi8(bytes, backslash));
    if (const int mask = _mm_movemask_epi8(hits); mask != 0) return from + __builtin_ctz(static_cast<unsigned>(mask));
  }
#endif
  while (from != end && *from != '"' && *from != '\\') ++from;
  return from;
}

// The bytes [m_base, m_base + m_size) of the input, read on demand; bytes before the
// mark are dropped when more must be read.
class Window {
public:
  Window(const ReadBytes& read, std::size_t block) : m_read(read), m_block(block) {}

  // The byte at absolute offset `at`, or -1 past the end of the input.
  int at(std::size_t at) {
    if (at >= m_base + m_size && !load(at)) return -1;
    return static_cast<unsigned char>(m_buffer[at - m_base]);
  }
  std::string_view view(std::size_t from, std::size_t to) const {
    return std::string_view(m_buffer.get() + (from - m_base), to - from);
  }
  // Bytes before `offset` are no longer needed.
  void mark(std::size_t offset) { m_mark = offset; }

  // Offset of the first '"' at or after `from`; k_no_offset at the end of the input.
  std::size_t find_quote(std::size_t from) {
    for (;;) {
      if (at(from) < 0) return k_no_offset;
      const char* start = m_buffer.get() + (from - m_base);
      const std::size_t left = m_size - (from - m_base);
      if (const void* hit = std::memchr(start, '"', left)) return from + (static_cast<const char*>(hit) - start);
      from += left;
    }
  }

  // Offset just after the object or array that starts at `at`; k_no_offset when the input
  // ends first or a bracket closes what was never opened. One pass over the loaded bytes,
  // from quote or bracket to the next, passing over strings and their escapes.
  std::size_t after_composite(std::size_t at) {
    std::size_t depth = 0;
    bool in_string = false;
    while (this->at(at) >= 0) {
      const char* const start = m_buffer.get() + (at - m_base);
      const char* const end = m_buffer.get() + m_size;
      const char* p = start;
      while (p < end) {
        if (in_string) {
          p = first_quote_or_backslash(p, end);
          if (p == end) break;
          if (*p == '\\') { // the escaped byte may be the first of the next read
            p += 2;
            continue;
          }
          in_string = false;
          ++p;
          continue;
        }
        p = first_quote_or_bracket(p, end);
        if (p == end) break;
        const char c = *p++;
        if (c == '"') {
          in_string = true;
        } else if (c == '{' || c == '[') {
          ++depth;
        } else {
          if (depth == 0) return k_no_offset;
          if (--depth == 0) return at + static_cast<std::size_t>(p - start);
        }
      }
      at += static_cast<std::size_t>(p - start);
    }
    return k_no_offset;
  }

private:

  // Reads until `at` is loaded; false at the end of the input.
  [[gnu::noinline]] bool load(std::size_t at) {
    while (at >= m_base + m_size)
      if (!fill()) return false;
    return true;
  }

  bool fill() {
    if (m_mark > m_base) { // drop what is behind the mark before growing
      std::memmove(m_buffer.get(), m_buffer.get() + (m_mark - m_base), m_size - (m_mark - m_base));
      m_size -= m_mark - m_base;
      m_base = m_mark;
    }
    // Grown only when an item fills half of it: the bytes kept from the last read are less
    // than an item, and reading a little less than a block costs less than fresh pages.
    if (m_capacity - m_size < m_block / 2 + 1) {
      m_capacity = std::max(2 * m_capacity, m_size + m_block);
      std::unique_ptr<char[]> larger = std::make_unique_for_overwrite<char[]>(m_capacity);
      if (m_size > 0) std::memcpy(larger.get(), m_buffer.get(), m_size);
      m_buffer = std::move(larger);
    }
    const std::size_t got = m_read(m_buffer.get() + m_size, std::min(m_block, m_capacity - m_size));
    m_size += got;
    return got > 0;
  }

  const ReadBytes& m_read;
  std::size_t m_block;
  std::unique_ptr<char[]> m_buffer; // not std::string: its resize would zero every block first
  std::size_t m_capacity = 0;
  std::size_t m_size = 0;
  std::size_t m_base = 0;
  std::size_t m_mark = 0;
};

bool is_space(int c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

class ItemScanner {
public:
  explicit ItemScanner(Window& window) : m_in(window) {}

  std::size_t skip_space(std::size_t at) {
    while (is_space(m_in.at(at))) ++at;
    return at;
  }

  // `at` is an opening quote: the offset after the closing one, or k_no_offset.
  std::size_t skip_string(std::size_t at) {
    for (std::size_t from = at + 1;;) {
      const std::size_t quote = m_in.find_quote(from);
      if (quote == k_no_offset) return k_no_offset;
      std::size_t backslashes = 0;
      while (m_in.at(quote - 1 - backslashes) == '\\') ++backslashes;
      if (backslashes % 2 == 0) return quote + 1;
      from = quote + 1;
    }
  }

  // Any value at `at`: the offset after it, or k_no_offset when cut short or unbalanced.
  std::size_t skip_value(std::size_t at) {
    const int first = m_in.at(at);
    if (first == '"') return skip_string(at);
    if (first != '{' && first != '[') { // a number, true, false or null: checked by whoever parses it
      while (true) {
        const int c = m_in.at(at);
        if (c < 0 || c == ',' || c == '}' || c == ']' || is_space(c)) return at;
        ++at;
      }
    }
    return m_in.after_composite(at);
  }

  std::optional<ListHead> scan(const OnListItem& on_item) {
    std::size_t at = skip_space(0);
    if (m_in.at(at) != '{') return std::nullopt;
    at = skip_space(at + 1);
    ListHead head;
    bool has_items = false;
    if (m_in.at(at) == '}') return std::nullopt; // no items
    for (;;) {
      if (m_in.at(at) != '"') return std::nullopt;
      const std::size_t key_end = skip_string(at);
      if (key_end == k_no_offset) return std::nullopt;
      const std::string key(m_in.view(at + 1, key_end - 1)); // escaped keys never match below
      at = skip_space(key_end);
      if (m_in.at(at) != ':') return std::nullopt;
      at = skip_space(at + 1);
      if (key == "items") {
        if (has_items || m_in.at(at) != '[') return std::nullopt;
        has_items = true;
        at = items(at + 1, head, on_item);
      } else {
        const std::size_t end = skip_value(at);
        if (end == k_no_offset || end == at) return std::nullopt;
        if (key == "kind") head.kind = std::string(m_in.view(at, end));
        if (key == "metadata") head.metadata = std::string(m_in.view(at, end));
        at = end;
      }
      if (at == k_no_offset) return std::nullopt;
      m_in.mark(at);
      at = skip_space(at);
      if (m_in.at(at) == '}') break;
      if (m_in.at(at) != ',') return std::nullopt;
      at = skip_space(at + 1);
    }
    if (m_in.at(skip_space(at + 1)) != -1 || !has_items) return std::nullopt; // something after the object
    return head;
  }

private:
  // `at` is just after '[': the offset after the closing ']', or k_no_offset.
  std::size_t items(std::size_t at, const ListHead& head, const OnListItem& on_item) {
    at = skip_space(at);
    if (m_in.at(at) == ']') return at + 1;
    for (;;) {
      if (m_in.at(at) != '{') return k_no_offset;
      const std::size_t end = skip_value(at);
      if (end == k_no_offset) return k_no_offset;
      on_item(m_in.view(at, end), head);
      m_in.mark(end);
      at = skip_space(end);
      if (m_in.at(at) == ']') return at + 1;
      if (m_in.at(at) != ',') return k_no_offset;
      at = skip_space(at + 1);
    }
  }

  Window& m_in;
};

} // namespace

ReadBytes text_reader(std::string_view text) {
  return [text, offset = std::size_t{0}](char* into, std::size_t size) mutable {
    const std::size_t count = std::min(size, text.size() - offset);
    std::memcpy(into, text.data() + offset, count);
    offset += count;
    return count;
  };
}

std::optional<ListHead> scan_list_items(const ReadBytes& read, const OnListItem& on_item,
                                        std::size_t window) {
  Window in(read, window);
  return ItemScanner(in).scan(on_item);
}

} // namespace gpuslice::collect
