// SPDX-License-Identifier: Apache-2.0
#include <sys/ioctl.h>
#include <unistd.h>

#include "cli/app.hpp"

namespace gpuslice::cli {

void detect_terminal(Env& env) {
  env.out_is_tty = isatty(STDOUT_FILENO) == 1;
  env.err_is_tty = isatty(STDERR_FILENO) == 1;
  winsize size{};
  if (env.out_is_tty && ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0) {
    env.out_width = size.ws_col;
  }
}

} // namespace gpuslice::cli
