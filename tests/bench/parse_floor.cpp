// SPDX-License-Identifier: Apache-2.0
// The offline path's parse floor (issue 7, baseline c): simdjson's on-demand parser reads a
// snapshot file and touches every value in it. A snapshot holds only the fields diagnose
// reads (it is written from the typed model), so "every value" is "the same fields", and no
// loader of ours can read that file faster than this without skipping data.
//   gpuslice_parse_floor FILE   -> prints "<items> items, <bytes> bytes, <seconds> s, <MB/s>"
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string_view>

#include <simdjson.h>

namespace {

namespace od = simdjson::ondemand;

// What the walk saw, so the compiler cannot drop the reads.
struct FloorTally {
  std::uint64_t strings = 0;
  std::uint64_t string_bytes = 0;
  double numbers = 0;
};

void touch_floor_value(od::value value, FloorTally& tally);

void touch_floor_object(od::object object, FloorTally& tally) {
  for (od::field field : object) {
    tally.string_bytes += field.unescaped_key().value().size();
    touch_floor_value(field.value(), tally);
  }
}

void touch_floor_value(od::value value, FloorTally& tally) {
  switch (value.type()) {
  case od::json_type::object:
    touch_floor_object(value.get_object(), tally);
    break;
  case od::json_type::array:
    for (od::value element : value.get_array()) touch_floor_value(element, tally);
    break;
  case od::json_type::string:
    tally.strings++;
    tally.string_bytes += std::string_view(value.get_string()).size();
    break;
  case od::json_type::number:
    tally.numbers += double(value.get_double());
    break;
  case od::json_type::boolean:
    tally.numbers += bool(value.get_bool()) ? 1 : 0;
    break;
  case od::json_type::null:
    break;
  }
}

} // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: gpuslice_parse_floor FILE\n");
    return 2;
  }
  const auto start = std::chrono::steady_clock::now();
  try {
    simdjson::padded_string text = simdjson::padded_string::load(argv[1]);
    od::parser parser;
    od::document doc = parser.iterate(text);
    FloorTally tally;
    std::uint64_t items = 0;
    for (od::field field : doc.get_object()) {
      if (field.unescaped_key().value() != "items") {
        touch_floor_value(field.value(), tally);
        continue;
      }
      for (od::value item : field.value().get_array()) {
        touch_floor_object(item.get_object(), tally);
        items++;
      }
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("%llu items, %zu bytes, %.3f s, %.1f MB/s (%llu strings)\n", static_cast<unsigned long long>(items),
                text.size(), seconds, text.size() / seconds / 1e6, static_cast<unsigned long long>(tally.strings));
  } catch (const simdjson::simdjson_error& error) {
    std::fprintf(stderr, "gpuslice_parse_floor: %s: %s\n", argv[1], error.what());
    return 1;
  }
  return 0;
}
