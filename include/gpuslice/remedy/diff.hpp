// SPDX-License-Identifier: Apache-2.0
// A unified diff of two texts, as `diff -u` and `kubectl diff` print it.
#pragma once

#include <string>

namespace gpuslice::remedy {

// "--- a_label\n+++ b_label\n@@ -l,n +l,n @@\n …" with `context` lines around each change;
// "" when the texts are equal. Lines are compared whole (LCS), so small objects diff exactly.
std::string unified_diff(const std::string& a, const std::string& b, const std::string& a_label,
                         const std::string& b_label, int context = 3);

} // namespace gpuslice::remedy
