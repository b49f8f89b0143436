// SPDX-License-Identifier: Apache-2.0
// The progress line: drawn only when active, one erasable line, never control characters from
// object names, erased when done.
#include <sstream>

#include <doctest/doctest.h>

#include "cli/progress.hpp"

using gpuslice::cli::Progress;

TEST_CASE("progress: nothing at all when stderr is not a terminal or --quiet") {
  std::ostringstream err;
  std::ostringstream out;
  gpuslice::cli::Env env{out, err, "kubectl gpuslice"};
  gpuslice::cli::GlobalFlags global;
  env.err_is_tty = false;
  {
    Progress progress(env, global);
    CHECK_FALSE(progress.active());
    progress.update("listing pods: page 3", true);
  }
  env.err_is_tty = true;
  global.quiet = true;
  {
    Progress progress(env, global);
    CHECK_FALSE(progress.active());
    progress.update("listing pods: page 3", true);
  }
  CHECK(err.str().empty());
  CHECK(out.str().empty());
}

TEST_CASE("progress: a terminal sees one line, rewritten in place and erased at the end") {
  std::ostringstream err;
  {
    Progress progress(err, true);
    progress.update("listing pods: page 1", true);
    progress.update("listing pods: page 2", true);
  }
  CHECK(err.str() == "\r\033[Klisting pods: page 1\r\033[Klisting pods: page 2\r\033[K");
}

TEST_CASE("progress: redraws are rate-limited unless forced") {
  std::ostringstream err;
  Progress progress(err, true);
  progress.update("a");
  progress.update("b"); // within 100 ms of "a": skipped
  CHECK(err.str() == "\r\033[Ka");
  progress.update("c", true);
  CHECK(err.str() == "\r\033[Ka\r\033[Kc");
}

TEST_CASE("progress: control characters from names are dropped and long lines cut") {
  CHECK(gpuslice::cli::progress_text("pod \x1b[31mred\n") == "pod [31mred");
  CHECK(gpuslice::cli::progress_text(std::string(500, 'x')).size() == 200);
}
