// SPDX-License-Identifier: Apache-2.0
// No credential or Secret value leaks: a cluster holding an Opaque Secret and a Helm release
// Secret (whose values carry a token), kubeconfigs with a bearer token, a password and a client
// key; diagnose, status, snapshot, apply --dry-run=client, apply --yes and undo --dry-run at
// -v 0, 6 and 8 (diagnose also at 10) in every output format. stdout, stderr, the snapshot file
// and the journal are searched for every secret value; none may appear. Files holding cluster objects are 0600 and
// replaced atomically (a new inode, no temporary left behind).
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <sys/stat.h>

#include <httplib.h>

#include <fakekube/server.hpp>

#include "kube/base64.hpp"
#include "unit/cli_run_support.hpp"
#include "unit/collect_live_support.hpp"

namespace {

namespace fs = std::filesystem;

// A Helm release of the device plugin chart whose values hold "apiToken: helm-values-s3cr3t-7f3a"
// (base64 of base64 of gzip of the release JSON, as Helm stores it).
const std::string k_secrets_helm_release =
    "SDRzSUFJSWtFV3NDLzVWVVhXL1RNQlQ5SzVaNXhXM2FTZ3p5Qm9LM0NSQXQxUmlaa0d2ZnRDYU9IZGxPdEduYWY4ZSthWnAyZElK"
    "R2xScmZuSHMrcnVNOFVzTnJvRG1ocHBNTmZVMXc3UnN1OWtVbEZXY1NPaVdBTmJyZEtwTkFIVGl2ckltUWVWd3BVOXA0KzBoTDVY"
    "ejRKYUhSOWdGa0lwaG44emRzTm1PTGJKVzl5N01zL200VGdlWXZBMmZaRVZDQ2h0QkQrcVVYVGpXaEY2ZmZtNjNqRW9pd2RaTndD"
    "ZUlERDYxUFR3LzhLWllOZ01YUFgxYWZsam54SUJ3RWhtVVc0RDdRcDRnU08rNENScWtoY01rRHg4VTRvMytOZzJhVDJkVmtsb3E4"
    "YWRibjYrcW8zczFSV0Z0UnhhVnB0WTZyQURFTzd3My9IT1VQNWVuOTVLSFdPSS9lSWhYejlXOVJyN1BybTI5NmMvUEIvNGovOU9r"
    "dWVlTzZSYUpIR213RktMb1BqMmtaQXRDRUZ6dW8rV2lqVkxxM2NJZXpzYVpVV3lSU05kL0Mxd2hhSXRFem13NjJzU3A3K1poMk5j"
    "anVRTmU5bkdkK0lkd2lzS3R5d1ZHNzVrYVY0TlB3S1dPc01LL0kwclpPUUhSelp1clRjUlllSEQ3Z1F0aldoRFNad294RHprazNL"
    "MHlsak16SnNvZSs3NUdGR1RZNUx3d2h5WDRTa3cwN3A4aWU2UXd0ZUZiT215ek1aVWtraDlvYUgzZm1CUEYzb3ZocStla1k2eVAy"
    "TGVIQ1JQK1ZnQkROTjZBOUVwS2tQS25hRFRnVFQ1dWZLRHNkUk00MSt3WUVOdnA0aWtXd2JzOVM4eUIyMThlOGx6SVRNb3h0b0R3"
    "T25pNTlTbis1UUhROTJFOVhmUDBEVnladXdhSEV5TXNNVEFRM2F1T0JTVURoVUJnYnB0VmJmOXFVZC8xbm9zQ3Z5czdhYW4vOC9n"
    "REFKT1dEcHdVQUFBPT0="
    ;

std::string secrets_read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The value of the first "key: value" line of a kubeconfig.
std::string kubeconfig_field(const std::string& text, const std::string& key) {
  const std::size_t at = text.find(key + ": ");
  if (at == std::string::npos) return {};
  const std::size_t start = at + key.size() + 2;
  return text.substr(start, text.find('\n', start) - start);
}

fakekube::Scenario secrets_scenario() {
  fakekube::Scenario scenario = collect_test::incident(
      {kube_test::make_user("sre", "sre-token-Zq81xWm4", "sre-pa55-Kd02", true, {"system:masters"})});
  bool replaced = false;
  for (nlohmann::json& object : scenario.objects) {
    if (object.value("kind", "") == "Secret" && object["metadata"].value("name", "") == "sh.helm.release.v1.nvdp.v1") {
      object["data"]["release"] = k_secrets_helm_release;
      replaced = true;
    }
  }
  REQUIRE(replaced);
  scenario.objects.push_back({{"apiVersion", "v1"},
                              {"kind", "Secret"},
                              {"type", "Opaque"},
                              {"metadata", {{"name", "dcgm-credentials"}, {"namespace", "nvidia-device-plugin"}}},
                              {"data", {{"password", "b3BhcXVlLXMzY3IzdC05YjFj"}, {"token", "b3BhcXVlLXRva2VuLTQ0WHk="}}}});
  return scenario;
}

struct SecretsCluster {
  kube_test::Cluster cluster{secrets_scenario()};
  fs::path token_kc = cluster.kubeconfig("sre", fakekube::KubeconfigAuth::token, "token.kc");
  fs::path basic_kc = cluster.kubeconfig("sre", fakekube::KubeconfigAuth::basic, "basic.kc");
  fs::path cert_kc = cluster.kubeconfig("sre", fakekube::KubeconfigAuth::client_cert_data, "cert.kc");
  std::vector<std::string> secrets;

  SecretsCluster() {
    const std::string cert_text = secrets_read(cert_kc);
    const std::string key_data = kubeconfig_field(cert_text, "client-key-data");
    REQUIRE(key_data.size() > 100);
    const std::optional<std::string> key_pem = gpuslice::kube::base64_decode(key_data);
    REQUIRE(key_pem);
    const std::size_t body = key_pem->find('\n') + 1; // the first base64 line of the key itself
    secrets = {"sre-token-Zq81xWm4",
               "sre-pa55-Kd02",
               kubeconfig_field(secrets_read(token_kc), "token"),
               key_data.substr(0, 60),
               key_pem->substr(body, 60),
               "opaque-s3cr3t-9b1c",
               "b3BhcXVlLXMzY3IzdC05YjFj",
               "opaque-token-44Xy",
               "b3BhcXVlLXRva2VuLTQ0WHk=",
               "helm-values-s3cr3t-7f3a",
               k_secrets_helm_release.substr(0, 60)};
    for (const std::string& secret : secrets) REQUIRE(secret.size() >= 13);
  }
};

// Fails naming the secret's index (never its value) and where it was found.
void check_no_secret(const std::vector<std::string>& secrets, const std::string& text, const std::string& where) {
  for (std::size_t i = 0; i < secrets.size(); ++i) {
    INFO("secret #", i, " found in ", where);
    CHECK(text.find(secrets[i]) == std::string::npos);
  }
}

void check_private_file(const fs::path& path) {
  struct stat info {};
  REQUIRE(::stat(path.c_str(), &info) == 0);
  CHECK((info.st_mode & 0777) == 0600);
}

} // namespace

TEST_CASE("cli: no secret in any output, log level, snapshot or journal") {
  SecretsCluster c;
  const fs::path dir = c.cluster.dir.path;
  const std::string kubeconfig = c.token_kc.string();
  const std::string journal_dir = (dir / "journal").string();
  std::size_t runs = 0;
  auto run = [&](std::vector<std::string> args, const std::string& kc, int expected_max_code) {
    args.insert(args.end(), {"--kubeconfig", kc});
    std::string label;
    for (const std::string& arg : args) label += arg + " ";
    INFO("command: ", label);
    const cli_test::CliRun result = cli_test::run_cli(args);
    CHECK(static_cast<int>(result.code) <= expected_max_code);
    check_no_secret(c.secrets, result.out, "stdout of " + label);
    check_no_secret(c.secrets, result.err, "stderr of " + label);
    ++runs;
    return result;
  };

  for (const std::string verbosity : {"0", "6", "8"}) {
    for (const std::string format : {"table", "json", "yaml", "markdown", "junit"})
      run({"diagnose", "-v", verbosity, "-o", format}, kubeconfig, 1);
    for (const std::string format : {"table", "json", "yaml"}) {
      run({"status", "-v", verbosity, "-o", format}, kubeconfig, 0);
      run({"apply", "--replicas", "4", "--dry-run=client", "-v", verbosity, "-o", format}, kubeconfig, 0);
    }
    const fs::path snapshot = dir / ("snapshot-v" + verbosity + ".json");
    run({"snapshot", "-v", verbosity, "-o", snapshot.string()}, kubeconfig, 0);
    check_no_secret(c.secrets, secrets_read(snapshot), "the snapshot file at -v " + verbosity);
    check_private_file(snapshot);
    // The other credential styles at the same level.
    run({"diagnose", "-v", verbosity}, c.basic_kc.string(), 1);
    run({"status", "-v", verbosity}, c.cert_kc.string(), 0);
  }

  run({"diagnose", "-v", "10"}, kubeconfig, 1); // bodies uncut

  // A real apply writes the journal; undo --dry-run reads it back.
  run({"apply", "--replicas", "4", "--yes", "--no-wait", "-v", "8", "--journal-dir", journal_dir}, kubeconfig, 0);
  std::vector<fs::path> journals;
  for (const fs::directory_entry& entry : fs::directory_iterator(journal_dir)) journals.push_back(entry.path());
  REQUIRE(journals.size() == 1);
  check_private_file(journals.front());
  check_no_secret(c.secrets, secrets_read(journals.front()), "the journal");
  for (const std::string verbosity : {"0", "6", "8"})
    for (const std::string format : {"table", "json", "yaml"})
      run({"undo", "--dry-run", "--journal", journals.front().string(), "-v", verbosity, "-o", format}, kubeconfig, 0);
  CHECK(runs == 3 * (5 + 3 + 3 + 1 + 2) + 1 + 1 + 9);
}

TEST_CASE("cli snapshot: the file is replaced atomically and stays 0600") {
  SecretsCluster c;
  const fs::path snapshot = c.cluster.dir.path / "snapshot.json";
  {
    std::ofstream(snapshot) << "old content\n";
  }
  fs::permissions(snapshot, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
                                fs::perms::others_read);
  struct stat before {};
  REQUIRE(::stat(snapshot.c_str(), &before) == 0);
  const cli_test::CliRun result =
      cli_test::run_cli({"snapshot", "-o", snapshot.string(), "--kubeconfig", c.token_kc.string()});
  REQUIRE(static_cast<int>(result.code) == 0);
  struct stat after {};
  REQUIRE(::stat(snapshot.c_str(), &after) == 0);
  CHECK(after.st_ino != before.st_ino); // renamed over, not rewritten in place
  CHECK((after.st_mode & 0777) == 0600); // even though the file it replaced was 0644
  CHECK(secrets_read(snapshot).find("old content") == std::string::npos);
  for (const fs::directory_entry& entry : fs::directory_iterator(c.cluster.dir.path))
    CHECK(entry.path().filename().string().find(".tmp") == std::string::npos); // no temporary left behind
}

TEST_CASE("cli: no secret in error messages") {
  SecretsCluster c;
  const fs::path dir = c.cluster.dir.path;
  // Credentials the server refuses are secrets too: a mistyped token or password is often
  // a real one of another cluster.
  const std::string wrong_token = "wrong-token-Q9x8c7v6";
  const std::string wrong_password = "wrong-pa55-Lm3nB8";
  std::vector<std::string> secrets = c.secrets;
  secrets.insert(secrets.end(), {wrong_token, wrong_password});
  std::string basic = secrets_read(c.basic_kc);
  basic.replace(basic.find("sre-pa55-Kd02"), 13, wrong_password);
  std::ofstream(dir / "wrong-password.kc") << basic;
  // Key material that is not PEM is refused at load; the message names the field, not the bytes.
  std::string cert = secrets_read(c.cert_kc);
  const std::string key_data = kubeconfig_field(cert, "client-key-data");
  cert.replace(cert.find(key_data), key_data.size(), gpuslice::kube::base64_encode("not-pem-" + c.secrets[0]));
  std::ofstream(dir / "bad-key.kc") << cert;

  struct ErrorRun {
    std::vector<std::string> args;
    int code;
  };
  const std::vector<ErrorRun> runs = {
      {{"status", "--kubeconfig", c.token_kc.string(), "--token", wrong_token}, 3},
      {{"diagnose", "--kubeconfig", (dir / "wrong-password.kc").string()}, 3},
      {{"status", "--kubeconfig", (dir / "bad-key.kc").string()}, 2},
      {{"apply", "--replicas", "4", "--yes", "--no-wait", "--kubeconfig", c.token_kc.string(), "--token", wrong_token,
        "--journal-dir", (dir / "journal").string()},
       3},
  };
  for (const ErrorRun& error : runs) {
    for (const std::string verbosity : {"0", "8"}) {
      std::vector<std::string> args = error.args;
      args.insert(args.end(), {"-v", verbosity});
      INFO("command: ", args.front(), " #", &error - runs.data(), " -v ", verbosity);
      const cli_test::CliRun result = cli_test::run_cli(args);
      CHECK(static_cast<int>(result.code) == error.code);
      CHECK(!result.err.empty());
      check_no_secret(secrets, result.out, "stdout");
      check_no_secret(secrets, result.err, "stderr");
    }
  }
}

namespace {

// A plain-http "API server" that records every request header it is sent.
class PlainHttpRecorder {
public:
  PlainHttpRecorder() {
    m_server.Get(".*", [this](const httplib::Request& request, httplib::Response& response) {
      std::lock_guard<std::mutex> lock(m_mutex);
      for (const auto& [name, value] : request.headers) m_headers += name + ": " + value + "\n";
      ++m_requests;
      response.set_content(R"({"kind":"NodeList","apiVersion":"v1","metadata":{},"items":[]})", "application/json");
    });
    m_port = m_server.bind_to_any_port("127.0.0.1");
    m_thread = std::thread([this] { m_server.listen_after_bind(); });
    while (!m_server.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ~PlainHttpRecorder() {
    m_server.stop();
    m_thread.join();
  }
  PlainHttpRecorder(const PlainHttpRecorder&) = delete;
  PlainHttpRecorder& operator=(const PlainHttpRecorder&) = delete;

  std::string url() const { return "http://127.0.0.1:" + std::to_string(m_port); }
  std::string headers() {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_headers;
  }
  int requests() {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_requests;
  }

private:
  httplib::Server m_server;
  std::thread m_thread;
  std::mutex m_mutex;
  std::string m_headers;
  int m_requests = 0;
  int m_port = 0;
};

} // namespace

TEST_CASE("cli: credentials are never sent over plain http") {
  PlainHttpRecorder server;
  kube_test::TempDir dir;
  const std::string head = "apiVersion: v1\nkind: Config\nclusters:\n- name: plain\n  cluster:\n    server: \"" +
                           server.url() + "\"\ncontexts:\n- name: plain\n  context:\n    cluster: plain\n    user: u\n"
                                          "current-context: plain\nusers:\n- name: u\n  user:\n";
  std::ofstream(dir.path / "token.kc") << head << "    token: plain-http-token-Xq72kLm\n";
  std::ofstream(dir.path / "basic.kc") << head << "    username: u\n    password: plain-http-pa55-Vb81\n";
  for (const char* const kubeconfig : {"token.kc", "basic.kc"}) {
    INFO("kubeconfig: ", kubeconfig);
    const int before = server.requests();
    const cli_test::CliRun run =
        cli_test::run_cli({"status", "-o", "json", "--kubeconfig", (dir.path / kubeconfig).string()});
    INFO("stderr: ", run.err);
    CHECK(server.requests() > before); // the requests were sent, without the credentials
  }
  const std::string headers = server.headers();
  CHECK(headers.find("plain-http-token-Xq72kLm") == std::string::npos);
  CHECK(headers.find("plain-http-pa55-Vb81") == std::string::npos);
  CHECK(headers.find("Authorization") == std::string::npos); // basic auth would be base64 in it
}
