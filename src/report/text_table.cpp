// SPDX-License-Identifier: Apache-2.0
#include <algorithm>

#include <gpuslice/report.hpp>

namespace gpuslice::report {

namespace {

constexpr std::size_t k_gap = 3; // kubectl separates columns by three spaces

// Cuts UTF-8 text to at most `width` code points, ending in "…" when cut.
std::string cut(const std::string& text, std::size_t width) {
  if (display_width(text) <= width) {
    return text;
  }
  if (width == 0) {
    return "";
  }
  std::string out;
  std::size_t points = 0;
  for (std::size_t i = 0; i < text.size() && points < width - 1; ++points) {
    std::size_t len = 1;
    const auto lead = static_cast<unsigned char>(text[i]);
    if (lead >= 0xF0) len = 4;
    else if (lead >= 0xE0) len = 3;
    else if (lead >= 0xC0) len = 2;
    out.append(text, i, len);
    i += len;
  }
  return out + "…";
}

} // namespace

std::size_t display_width(const std::string& text) {
  // Count bytes that are not UTF-8 continuation bytes.
  return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}

TextTable::TextTable(std::vector<std::string> headers) : m_headers(std::move(headers)) {}

void TextTable::add_row(std::vector<std::string> cells) {
  cells.resize(m_headers.size());
  m_rows.push_back(std::move(cells));
}

std::string TextTable::render(const Style& style) const {
  std::vector<std::size_t> widths(m_headers.size(), 0);
  for (std::size_t c = 0; c < m_headers.size(); ++c) {
    widths[c] = display_width(m_headers[c]);
    for (const auto& row : m_rows) {
      widths[c] = std::max(widths[c], display_width(row[c]));
    }
  }
  // On a known terminal width, the last column gives way: it is where long text
  // (reasons, messages) goes.
  std::size_t last_width = widths.empty() ? 0 : widths.back();
  if (style.width > 0 && !widths.empty()) {
    std::size_t fixed = 0;
    for (std::size_t c = 0; c + 1 < widths.size(); ++c) {
      fixed += widths[c] + k_gap;
    }
    const auto total = static_cast<std::size_t>(style.width);
    last_width = fixed + 8 < total ? std::min(last_width, total - fixed) : std::min<std::size_t>(last_width, 8);
  }
  auto emit = [&](const std::vector<std::string>& cells, std::string& out) {
    std::string line;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      const bool last = c + 1 == cells.size();
      const std::string cell = last ? cut(cells[c], last_width) : cells[c];
      line += cell;
      if (!last) {
        line.append(widths[c] - display_width(cell) + k_gap, ' ');
      }
    }
    while (!line.empty() && line.back() == ' ') {
      line.pop_back();
    }
    out += line + "\n";
  };
  std::string out;
  std::vector<std::string> upper = m_headers;
  for (auto& h : upper) {
    std::transform(h.begin(), h.end(), h.begin(), [](unsigned char ch) { return static_cast<char>(std::toupper(ch)); });
  }
  emit(upper, out);
  for (const auto& row : m_rows) {
    emit(row, out);
  }
  return out;
}

} // namespace gpuslice::report
