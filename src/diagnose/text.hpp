// SPDX-License-Identifier: Apache-2.0
// String helpers private to diagnose/: the message parsers all split Go-formatted text.
#pragma once

#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace gpuslice::diagnose {

// text without leading and trailing ASCII whitespace.
std::string_view trim(std::string_view text);

// A non-negative decimal that is all of text; nullopt otherwise (overflow included).
std::optional<int> parse_count(std::string_view text);

// Splits Go's strings.Join(["<count> <reason>", …], ", ") back into (count, reason) pairs.
// A reason may itself contain ", " (old taint wording, CA quota reasons), so an entry only
// ends at ", " followed by digits and a space. nullopt if text does not start with a count.
std::optional<std::vector<std::pair<int, std::string_view>>> split_counted_list(
    std::string_view text);

// Removes one suffix if present; returns whether it did.
bool strip_suffix(std::string_view& text, std::string_view suffix);

// Removes one prefix if present; returns whether it did.
bool strip_prefix(std::string_view& text, std::string_view prefix);

} // namespace gpuslice::diagnose
