// SPDX-License-Identifier: Apache-2.0
// `version`: the client's version, then the server's /version, as `kubectl version` prints
// them. With no reachable server the client line is still printed before the error (exit 3).
#include <fmt/format.h>

#include <gpuslice/version.hpp>

#include "cli/commands.hpp"

namespace gpuslice::cli {

namespace {

struct VersionOptions {
  bool client_only = false;
};

ExitCode run_version(const VersionOptions& options, const GlobalFlags& global, Env& env) {
  if (options.client_only) {
    env.out << fmt::format("Client Version: {}\n", k_version);
    return ExitCode::ok;
  }
  // Resolve the configuration first: a bad flag or kubeconfig is a usage error (exit 2).
  std::unique_ptr<kube::Client> client = open_client(global, env.err);
  env.out << fmt::format("Client Version: {}\n", k_version);
  env.out.flush();
  const std::string server = client->server_version(); // ApiError → exit 3
  env.out << fmt::format("Server Version: {}\n", server);
  return ExitCode::ok;
}

} // namespace

void add_version(CLI::App& app, Commands& commands, Env& env) {
  CLI::App* sub = app.add_subcommand("version", "Print the client and server versions.");
  sub->footer(fmt::format("Examples:\n  {0} version\n  {0} version --client", env.program));
  auto options = std::make_shared<VersionOptions>();
  sub->add_flag("--client", options->client_only, "Print the client version only (no server needed)");
  sub->callback([&commands, &env, options] {
    commands.chosen = [&commands, &env, options] { return run_version(*options, commands.global, env); };
  });
}

} // namespace gpuslice::cli
