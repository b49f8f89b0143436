// SPDX-License-Identifier: Apache-2.0
#include "collect/list_window.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace gpuslice::collect {
namespace {

constexpr std::size_t k_no_offset = static_cast<std::size_t>(-1);

// Where an object or array ends, read 64 bytes at a time: per block, bit masks of its quotes,
// backslashes and brackets; the bytes inside strings from a prefix XOR of the quotes; the depth
// from the counts of the brackets outside them. Only the block where the depth may reach zero
// is walked bracket by bracket, and only a block with a backslash (rare in Kubernetes JSON, an
// escaped quote in an annotation) byte by byte: one branch per 64 bytes, not one per quote.
class CompositeEnd {
public:
  static constexpr std::size_t k_block = 64;
  static constexpr std::size_t k_open = static_cast<std::size_t>(-1); // not closed yet
  static constexpr std::size_t k_unbalanced = static_cast<std::size_t>(-2);

  // The offset just after the closing bracket within the 64 bytes at p, k_open, or k_unbalanced.
  std::size_t block(const char* p) {
    const Masks m = masks(p);
    if (m.backslashes != 0 || m_escaped) return bytes(p, k_block);
    // Bit i: an odd count of quotes at or before i (XORed with the string open coming in).
    std::uint64_t in_string = prefix_xor(m.quotes) ^ (m_in_string ? ~std::uint64_t{0} : 0);
    m_in_string = (in_string >> 63) != 0;
    const std::uint64_t opens = m.opens & ~in_string;
    const std::uint64_t closes = m.closes & ~in_string;
    const auto closing = static_cast<std::size_t>(__builtin_popcountll(closes));
    if (m_depth > closing) {
      m_depth = m_depth + static_cast<std::size_t>(__builtin_popcountll(opens)) - closing;
      return k_open;
    }
    for (std::uint64_t left = opens | closes; left != 0; left &= left - 1) {
      const int at = __builtin_ctzll(left);
      if ((opens >> at) & 1) {
        ++m_depth;
      } else {
        if (m_depth == 0) return k_unbalanced;
        if (--m_depth == 0) return static_cast<std::size_t>(at) + 1;
      }
    }
    return k_open;
  }

  // The same over `count` bytes at p, one at a time (a block with a backslash, or the tail).
  std::size_t bytes(const char* p, std::size_t count) {
    for (std::size_t i = 0; i < count; ++i) {
      const char c = p[i];
      if (m_escaped) {
        m_escaped = false;
      } else if (m_in_string) {
        m_escaped = c == '\\';
        m_in_string = c != '"';
      } else if (c == '"') {
        m_in_string = true;
      } else if (c == '{' || c == '[') {
        ++m_depth;
      } else if (c == '}' || c == ']') {
        if (m_depth == 0) return k_unbalanced;
        if (--m_depth == 0) return i + 1;
      }
    }
    return k_open;
  }

private:
  struct Masks {
    std::uint64_t quotes = 0, backslashes = 0, opens = 0, closes = 0;
  };

  static std::uint64_t prefix_xor(std::uint64_t bits) {
    bits ^= bits << 1;
    bits ^= bits << 2;
    bits ^= bits << 4;
    bits ^= bits << 8;
    bits ^= bits << 16;
    bits ^= bits << 32;
    return bits;
  }

  static Masks masks(const char* p) {
    Masks m;
#ifdef __SSE2__
    // '{' and '[', '}' and ']' differ only in bit 0x20: one compare each after folding it in.
    const __m128i case_bit = _mm_set1_epi8(0x20);
    const __m128i quote = _mm_set1_epi8('"');
    const __m128i backslash = _mm_set1_epi8('\\');
    const __m128i open = _mm_set1_epi8('{');
    const __m128i close = _mm_set1_epi8('}');
    for (int part = 0; part < 4; ++part) {
      const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * part));
      const __m128i folded = _mm_or_si128(bytes, case_bit);
      const auto bits = [&](__m128i hits) {
        return static_cast<std::uint64_t>(static_cast<unsigned>(_mm_movemask_epi8(hits))) << (16 * part);
      };
      m.quotes |= bits(_mm_cmpeq_epi8(bytes, quote));
      m.backslashes |= bits(_mm_cmpeq_epi8(bytes, backslash));
      m.opens |= bits(_mm_cmpeq_epi8(folded, open));
      m.closes |= bits(_mm_cmpeq_epi8(folded, close));
    }
#else
    for (std::size_t i = 0; i < k_block; ++i) {
      const std::uint64_t bit = std::uint64_t{1} << i;
      const char c = p[i];
      if (c == '"') m.quotes |= bit;
      if (c == '\\') m.backslashes |= bit;
      if (c == '{' || c == '[') m.opens |= bit;
      if (c == '}' || c == ']') m.closes |= bit;
    }
#endif
    return m;
  }

  std::size_t m_depth = 0;
  bool m_in_string = false;
  bool m_escaped = false; // the next byte is escaped (a backslash ended the last block)
};

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
  // ends first or a bracket closes what was never opened. One pass over the loaded bytes (see
  // CompositeEnd), loading more as it goes.
  std::size_t after_composite(std::size_t at) {
    CompositeEnd scan;
    while (this->at(at) >= 0) {
      const char* const start = m_buffer.get() + (at - m_base);
      const std::size_t loaded = m_size - (at - m_base);
      std::size_t done = 0;
      std::size_t found = CompositeEnd::k_open;
      for (; loaded - done >= CompositeEnd::k_block; done += CompositeEnd::k_block) {
        found = scan.block(start + done);
        if (found != CompositeEnd::k_open) break;
      }
      if (found == CompositeEnd::k_open) {
        found = scan.bytes(start + done, loaded - done);
        if (found == CompositeEnd::k_open) {
          at += loaded;
          continue;
        }
      }
      if (found == CompositeEnd::k_unbalanced) return k_no_offset;
      return at + done + found;
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
