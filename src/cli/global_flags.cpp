// SPDX-License-Identifier: Apache-2.0
#include "cli/global_flags.hpp"

#include <unistd.h>

#include <fmt/format.h>

#include <gpuslice/error.hpp>

namespace gpuslice::cli {

void add_global_flags(CLI::App& app, GlobalFlags& flags) {
  kube::GlobalOptions& o = flags.kube;
  const std::string group = "Global connection flags (as kubectl)";
  app.fallthrough();
  app.add_option("--kubeconfig", o.kubeconfig, "Path to the kubeconfig file to use")->group(group);
  app.add_option("--context", o.context, "The name of the kubeconfig context to use")->group(group);
  app.add_option("--cluster", o.cluster, "The name of the kubeconfig cluster to use")->group(group);
  app.add_option("--user", o.user, "The name of the kubeconfig user to use")->group(group);
  app.add_option("-n,--namespace", o.namespace_name, "The namespace scope for this request")->group(group);
  app.add_option("-s,--server", o.server, "The address and port of the Kubernetes API server")->group(group);
  app.add_option("--token", o.token, "Bearer token for authentication to the API server")->group(group);
  app.add_option("--certificate-authority", o.certificate_authority, "Path to a cert file for the certificate authority")
      ->group(group);
  app.add_option("--client-certificate", o.client_certificate, "Path to a client certificate file for TLS")->group(group);
  app.add_option("--client-key", o.client_key, "Path to a client key file for TLS")->group(group);
  app.add_flag("--insecure-skip-tls-verify", o.insecure_skip_tls_verify,
               "If true, the server's certificate will not be checked for validity (insecure)")
      ->group(group);
  app.add_option("--tls-server-name", o.tls_server_name,
                 "Server name to use for server certificate validation; defaults to the server's hostname")
      ->group(group);
  app.add_option("--as", o.as_user, "Username to impersonate for the operation")->group(group);
  app.add_option("--as-group", o.as_groups, "Group to impersonate for the operation; repeat for several")
      ->group(group);
  app.add_option("--request-timeout", o.request_timeout,
                 "How long to wait for a single request, e.g. 1s, 2m, 3h; 0 waits forever")
      ->capture_default_str()
      ->group(group);
  app.add_option("-v,--v", o.verbosity, "Log level: 6 requests, 7 request headers, 8 bodies (secrets masked)")
      ->group(group);
  auto given = [&flags](const std::string&) { flags.rate_limit_given = true; };
  app.add_option("--qps", o.qps,
                 fmt::format("Client-side request rate limit per second, for reads and writes alike (default {} for "
                             "reads, lifted when the server enforces API Priority and Fairness, {} for writes; "
                             "negative disables)",
                             kube::k_default_read_qps, kube::k_default_qps))
      ->each(given)
      ->group(group);
  app.add_option("--burst", o.burst,
                 fmt::format("Requests allowed above --qps in a burst (default {} for reads, {} for writes)",
                             kube::k_default_read_burst, kube::k_default_burst))
      ->each(given)
      ->group(group);
  app.add_flag("--no-color", flags.no_color, "Never colour the output")->group(group);
  app.add_flag("--quiet", flags.quiet, "No progress lines on stderr (they are only drawn when stderr is a terminal)")
      ->group(group);
}

void validate_global_flags(const GlobalFlags& flags) {
  (void)kube::parse_request_timeout(flags.kube.request_timeout); // throws UsageError
  if (flags.kube.burst < 1) {
    throw UsageError(fmt::format("--burst {}: must be at least 1", flags.kube.burst));
  }
  if (flags.kube.qps == 0) {
    throw UsageError("--qps 0: must be positive, or negative to disable client-side rate limiting");
  }
  if (flags.kube.verbosity < 0) {
    throw UsageError(fmt::format("--v {}: must be 0 or more", flags.kube.verbosity));
  }
}

kube::ClientOptions client_options(const GlobalFlags& flags, std::ostream& log) {
  kube::ClientOptions options;
  options.verbosity = flags.kube.verbosity;
  options.log = &log;
  options.qps = flags.kube.qps;
  options.burst = flags.kube.burst;
  if (flags.rate_limit_given) {
    options.read_qps = flags.kube.qps;
    options.read_burst = flags.kube.burst;
    options.read_limit_yields_to_apf = false; // the user's limit holds, APF or not
  }
  options.stdin_is_tty = ::isatty(0) == 1; // exec plugins' interactiveMode
  return options;
}

std::unique_ptr<kube::Client> open_client(const GlobalFlags& flags, std::ostream& log) {
  validate_global_flags(flags);
  return std::make_unique<kube::Client>(kube::connect(flags.kube), client_options(flags, log));
}

std::vector<std::string> split_short_equals(int argc, const char* const* argv) {
  std::vector<std::string> out;
  for (int i = 0; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i > 0 && arg.size() > 3 && arg[0] == '-' && arg[1] != '-' && arg[2] == '=') {
      out.push_back(arg.substr(0, 2));
      out.push_back(arg.substr(3));
    } else {
      out.push_back(arg);
    }
  }
  return out;
}

} // namespace gpuslice::cli
