// SPDX-License-Identifier: Apache-2.0
// The real file reader and clock behind the seams.
#include <fstream>
#include <sstream>
#include <system_error>
#include <thread>

#include <sys/stat.h>

#include <fmt/format.h>

#include <gpuslice/error.hpp>
#include <gpuslice/kube/seams.hpp>

namespace gpuslice::kube {

namespace {

class SystemFileReader final : public FileReader {
public:
  std::optional<std::string> read(const std::string& path) override {
    struct stat info {};
    if (::stat(path.c_str(), &info) != 0) {
      if (errno == ENOENT || errno == ENOTDIR) {
        return std::nullopt;
      }
      throw RuntimeError(fmt::format("{}: {}", path, std::generic_category().message(errno)));
    }
    if (S_ISDIR(info.st_mode)) {
      throw RuntimeError(fmt::format("{}: is a directory", path));
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      throw RuntimeError(fmt::format("{}: cannot open for reading", path));
    }
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  }
};

class SystemClock final : public Clock {
public:
  std::chrono::system_clock::time_point now() override { return std::chrono::system_clock::now(); }
  std::chrono::steady_clock::time_point steady_now() override { return std::chrono::steady_clock::now(); }
  void sleep_for(std::chrono::milliseconds duration) override { std::this_thread::sleep_for(duration); }
};

} // namespace

FileReader& system_file_reader() {
  static SystemFileReader reader;
  return reader;
}

Clock& system_clock() {
  static SystemClock clock;
  return clock;
}

} // namespace gpuslice::kube
