// SPDX-License-Identifier: Apache-2.0
#include "kube/exec_plugin.hpp"

#include <ctime>
#include <regex>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <gpuslice/error.hpp>

#include "kube/base64.hpp"

extern char** environ;

namespace gpuslice::kube {

namespace {

constexpr const char* k_v1 = "client.authentication.k8s.io/v1";
constexpr const char* k_v1beta1 = "client.authentication.k8s.io/v1beta1";

[[noreturn]] void fail(const std::string& why) {
  throw RuntimeError("getting credentials: " + why);
}

// installHint is shown to a terminal: escape sequences in it could rewrite the screen.
std::string strip_ansi(const std::string& text) {
  static const std::regex k_escape("\x1b\\[[0-9;?]*[ -/]*[@-~]|\x1b[@-Z\\\\-_]");
  return std::regex_replace(text, k_escape, "");
}

std::string first_output_line(const std::string& text) {
  const std::size_t begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string::npos) {
    return {};
  }
  std::string line = text.substr(begin, text.find('\n', begin) - begin);
  return line.size() > 300 ? line.substr(0, 300) + "…" : line;
}

bool decide_interactive(const ExecConfig& exec, bool stdin_is_tty) {
  if (exec.interactive_mode == "Never") {
    return false;
  }
  if (exec.interactive_mode == "Always" && !stdin_is_tty) {
    fail(fmt::format("exec plugin {} requires interactive mode (interactiveMode: Always), but standard input is not a terminal",
                     exec.command));
  }
  return stdin_is_tty;
}

ExecCredential parse_output(const ExecConfig& exec, const std::string& out) {
  const nlohmann::json doc = nlohmann::json::parse(out, nullptr, false);
  if (!doc.is_object()) {
    fail(fmt::format("exec plugin {} printed something that is not an ExecCredential JSON object", exec.command));
  }
  const std::string api_version = doc.value("apiVersion", "");
  if (api_version != exec.api_version) {
    fail(fmt::format("exec plugin is configured to use API version {}, plugin returned version {}",
                     exec.api_version, api_version));
  }
  const auto status = doc.find("status");
  if (status == doc.end() || !status->is_object()) {
    fail("exec plugin didn't return a status field");
  }
  ExecCredential credential;
  credential.token = status->value("token", "");
  credential.client_certificate_pem = status->value("clientCertificateData", "");
  credential.client_key_pem = status->value("clientKeyData", "");
  if (credential.token.empty() && credential.client_certificate_pem.empty() && credential.client_key_pem.empty()) {
    fail("exec plugin didn't return a token or cert/key pair");
  }
  if (credential.client_certificate_pem.empty() != credential.client_key_pem.empty()) {
    fail("exec plugin returned only certificate or key, not both");
  }
  const std::string expiry = status->value("expirationTimestamp", "");
  if (!expiry.empty()) {
    credential.expiry = parse_rfc3339(expiry);
    if (!credential.expiry) {
      fail(fmt::format("exec plugin returned an unparsable expirationTimestamp \"{}\"", expiry));
    }
  }
  return credential;
}

} // namespace

std::string exec_info_json(const ExecConfig& exec, const ClusterEndpoint& cluster, bool interactive) {
  nlohmann::json spec = {{"interactive", interactive}};
  if (exec.provide_cluster_info) {
    nlohmann::json info = {{"server", cluster.server},
                           {"insecure-skip-tls-verify", cluster.insecure_skip_tls_verify},
                           {"disable-compression", cluster.disable_compression}};
    if (!cluster.tls_server_name.empty()) {
      info["tls-server-name"] = cluster.tls_server_name;
    }
    if (!cluster.ca_pem.empty()) {
      info["certificate-authority-data"] = base64_encode(cluster.ca_pem);
    }
    if (!cluster.proxy_url.empty()) {
      info["proxy-url"] = cluster.proxy_url;
    }
    spec["cluster"] = std::move(info);
  }
  return nlohmann::json{{"kind", "ExecCredential"}, {"apiVersion", exec.api_version}, {"spec", std::move(spec)}}
      .dump();
}

ExecCredential run_exec_plugin(const ExecConfig& exec, const ClusterEndpoint& cluster, ProcessRunner& runner,
                               bool stdin_is_tty, const EnvList& base_env) {
  if (exec.api_version != k_v1 && exec.api_version != k_v1beta1) {
    fail(fmt::format("exec plugin: invalid apiVersion \"{}\"", exec.api_version));
  }
  const bool interactive = decide_interactive(exec, stdin_is_tty);
  ProcessSpec spec;
  spec.command = exec.command;
  spec.args = exec.args;
  spec.connect_stdin = interactive;
  spec.env = base_env;
  // The kubeconfig's entries come after ours, so they override (a later duplicate wins in
  // getenv-style lookups, but replace in place so the child sees exactly one value).
  auto set_env = [&spec](const std::string& name, const std::string& value) {
    for (auto& [key, current] : spec.env) {
      if (key == name) {
        current = value;
        return;
      }
    }
    spec.env.emplace_back(name, value);
  };
  for (const ExecEnvVar& var : exec.env) {
    set_env(var.name, var.value);
  }
  set_env("KUBERNETES_EXEC_INFO", exec_info_json(exec, cluster, interactive));

  const ProcessResult result = runner.run(spec);
  if (result.not_found) {
    std::string message = fmt::format("exec: executable {} not found", exec.command);
    if (!exec.install_hint.empty()) {
      message += "; " + first_output_line(strip_ansi(exec.install_hint));
    }
    fail(message);
  }
  if (result.exit_code != 0) {
    const std::string stderr_line = first_output_line(result.err);
    fail(fmt::format("exec: executable {} failed with exit code {}{}", exec.command, result.exit_code,
                     stderr_line.empty() ? "" : ": " + stderr_line));
  }
  return parse_output(exec, result.out);
}

std::optional<std::chrono::system_clock::time_point> parse_rfc3339(const std::string& text) {
  static const std::regex k_format(
      R"((\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|([+-])(\d{2}):(\d{2})))");
  std::smatch m;
  if (!std::regex_match(text, m, k_format)) {
    return std::nullopt;
  }
  std::tm tm{};
  tm.tm_year = std::stoi(m[1]) - 1900;
  tm.tm_mon = std::stoi(m[2]) - 1;
  tm.tm_mday = std::stoi(m[3]);
  tm.tm_hour = std::stoi(m[4]);
  tm.tm_min = std::stoi(m[5]);
  tm.tm_sec = std::stoi(m[6]);
  if (tm.tm_mon > 11 || tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour > 23 || tm.tm_min > 59 || tm.tm_sec > 60) {
    return std::nullopt;
  }
  std::time_t seconds = ::timegm(&tm);
  if (m[9].matched) {
    const int offset = std::stoi(m[10]) * 3600 + std::stoi(m[11]) * 60;
    seconds += m[9] == "+" ? -offset : offset;
  }
  // system_clock counts nanoseconds and ends in 2262: a later expiry means "never".
  const auto limit = std::chrono::duration_cast<std::chrono::seconds>(
      std::chrono::system_clock::time_point::max().time_since_epoch());
  if (seconds >= limit.count()) {
    return std::chrono::system_clock::time_point::max();
  }
  return std::chrono::system_clock::from_time_t(seconds);
}

EnvList process_environment() {
  EnvList env;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string text(*entry);
    const std::size_t eq = text.find('=');
    if (eq != std::string::npos) {
      env.emplace_back(text.substr(0, eq), text.substr(eq + 1));
    }
  }
  return env;
}

} // namespace gpuslice::kube
