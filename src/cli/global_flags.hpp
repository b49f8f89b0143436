// SPDX-License-Identifier: Apache-2.0
// kubectl's global connection flags (and ours: --qps, --burst, --no-color) on the root app.
#pragma once

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include <gpuslice/kube/client.hpp>
#include <gpuslice/kube/config.hpp>

namespace gpuslice::cli {

struct GlobalFlags {
  kube::GlobalOptions kube;
  bool no_color = false;
  bool quiet = false; // --quiet: no progress lines, even on a terminal
  bool rate_limit_given = false; // --qps or --burst: one limit for reads and writes alike, kept under APF
};

// Adds the flags to `app` and lets every subcommand accept them (fallthrough), so
// `kubectl gpuslice version --context prod` works as kubectl's own commands do.
// Call before adding subcommands.
void add_global_flags(CLI::App& app, GlobalFlags& flags);

// Checks flag values that need no file or server: --request-timeout, --qps, --burst, -v.
// Throws UsageError naming the flag.
void validate_global_flags(const GlobalFlags& flags);

// The client options the flags ask for: --qps/--burst set one limit for reads and writes,
// which then holds even when the server enforces API Priority and Fairness.
kube::ClientOptions client_options(const GlobalFlags& flags, std::ostream& log);

// Validates the flags, resolves the kubeconfig (or in-cluster config) and builds the client,
// logging -v output to `log`. Throws UsageError (exit 2) before any request is sent.
std::unique_ptr<kube::Client> open_client(const GlobalFlags& flags, std::ostream& log);

// kubectl (pflag) accepts "-v=6", "-n=ns", "-s=url"; CLI11 reads "=6" as the value. Splits
// those into "-v" "6". Other arguments pass through unchanged.
std::vector<std::string> split_short_equals(int argc, const char* const* argv);

} // namespace gpuslice::cli
