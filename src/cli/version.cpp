// SPDX-License-Identifier: Apache-2.0
// `version`: the client's version (the server's /version is added by the kube client).
#include <fmt/format.h>

#include <gpuslice/version.hpp>

#include "cli/commands.hpp"

namespace gpuslice::cli {

void add_version(CLI::App& app, Commands& commands, Env& env) {
  CLI::App* sub = app.add_subcommand("version", "Print the client version.");
  sub->callback([&commands, &env] {
    commands.chosen = [&env] {
      env.out << fmt::format("Client Version: {}\n", k_version);
      return ExitCode::ok;
    };
  });
}

} // namespace gpuslice::cli
