// SPDX-License-Identifier: Apache-2.0
#include "cli/private_file.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

#include <gpuslice/error.hpp>

namespace gpuslice::cli {

namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what, int error) {
  throw RuntimeError(path + ": " + what + ": " + std::strerror(error));
}

} // namespace

void write_private_file(const std::string& path, const std::string& content) {
  std::string temp = path + ".tmp.XXXXXX";
  const int fd = mkstemp(temp.data()); // creates with mode 0600
  if (fd < 0) {
    fail(path, "cannot create a file beside it", errno);
  }
  std::size_t written = 0;
  while (written < content.size()) {
    const ssize_t n = ::write(fd, content.data() + written, content.size() - written);
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      const int error = errno;
      ::close(fd);
      ::unlink(temp.c_str());
      fail(path, "write failed", error);
    }
    written += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    const int error = errno;
    ::unlink(temp.c_str());
    fail(path, "write failed", error);
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    const int error = errno;
    ::unlink(temp.c_str());
    fail(path, "cannot replace", error);
  }
}

} // namespace gpuslice::cli
