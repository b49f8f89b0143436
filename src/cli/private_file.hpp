// SPDX-License-Identifier: Apache-2.0
// Writing files that hold cluster objects: mode 0600 from the first byte, and atomically
// (write a temporary beside the target, fsync, rename) so a crash never leaves half a file.
#pragma once

#include <string>

namespace gpuslice::cli {

// Replaces `path` with `content`. Throws RuntimeError naming the path on any failure; the
// temporary file is removed then.
void write_private_file(const std::string& path, const std::string& content);

} // namespace gpuslice::cli
