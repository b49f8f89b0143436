// SPDX-License-Identifier: Apache-2.0
// Which credential a request carries, and when it is refreshed.
#include <doctest/doctest.h>

#include <gpuslice/error.hpp>

#include "kube/credentials.hpp"
#include "unit/kube_test_support.hpp"

using namespace gpuslice::kube;
using std::chrono::minutes;
using std::chrono::seconds;

namespace {

using AuthNext = CredentialProvider::AfterUnauthorized;

ProcessResult token_with_expiry(const std::string& token, const std::string& expiry) {
  ProcessResult result;
  result.out = R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":")" + token +
               R"(")" + (expiry.empty() ? "" : R"(,"expirationTimestamp":")" + expiry + R"(")") + "}}";
  return result;
}

ClusterEndpoint https_endpoint() {
  ClusterEndpoint e;
  e.server = "https://127.0.0.1:6443";
  return e;
}

ExecConfig v1_exec() {
  ExecConfig exec;
  exec.command = "plugin";
  exec.api_version = "client.authentication.k8s.io/v1";
  exec.interactive_mode = "Never";
  return exec;
}

} // namespace

TEST_CASE("kube::CredentialProvider") {
  kube_test::MemoryFiles files;
  kube_test::ScriptedProcesses runner;
  kube_test::FakeClock clock;
  ClusterEndpoint e = https_endpoint();

  SUBCASE("static token, basic auth, client cert") {
    e.credentials.token = "abc";
    CHECK(CredentialProvider(e, runner, files, clock, false).current().authorization == "Bearer abc");
    e.credentials.token.clear();
    e.credentials.username = "user";
    e.credentials.password = "pass";
    CHECK(CredentialProvider(e, runner, files, clock, false).current().authorization == "Basic dXNlcjpwYXNz");
    e.credentials.username.clear();
    e.credentials.password.clear();
    e.credentials.client_certificate_pem = "CERT";
    e.credentials.client_key_pem = "KEY";
    const AuthSnapshot s = CredentialProvider(e, runner, files, clock, false).current();
    CHECK(s.authorization.empty());
    CHECK(s.client_certificate_pem == "CERT");
    CHECK(s.client_key_pem == "KEY");
  }
  SUBCASE("no credentials over plain http") {
    e.server = "http://127.0.0.1:8080";
    e.credentials.token = "abc";
    CHECK(CredentialProvider(e, runner, files, clock, false).current().authorization.empty());
    CHECK_FALSE(carries_credentials("http://x"));
    CHECK(carries_credentials("https://x"));
  }
  SUBCASE("tokenFile wins over token, is re-read after a minute and after a 401") {
    e.credentials.token = "static";
    e.credentials.token_file = "/sa/token";
    files.files["/sa/token"] = "first\n";
    CredentialProvider provider(e, runner, files, clock, false);
    const AuthSnapshot first = provider.current();
    CHECK(first.authorization == "Bearer first");
    files.files["/sa/token"] = "second";
    clock.advance(seconds(10));
    CHECK(provider.current().authorization == "Bearer first"); // cached
    clock.advance(minutes(1));
    CHECK(provider.current().authorization == "Bearer second");
    files.files["/sa/token"] = "third";
    CHECK(provider.after_unauthorized(provider.current(), true)== AuthNext::refreshed);
    CHECK(provider.current().authorization == "Bearer third");
    CHECK(provider.after_unauthorized(provider.current(), true)== AuthNext::none); // same token: no retry
  }
  SUBCASE("a vanished token file keeps the last good token; never read is an error") {
    e.credentials.token_file = "/sa/token";
    CHECK_THROWS_AS(CredentialProvider(e, runner, files, clock, false).current(), gpuslice::RuntimeError);
    files.files["/sa/token"] = "good";
    CredentialProvider provider(e, runner, files, clock, false);
    provider.current();
    files.files.erase("/sa/token");
    clock.advance(minutes(2));
    CHECK(provider.current().authorization == "Bearer good");
  }
  SUBCASE("exec: cached until expirationTimestamp, then re-run") {
    e.credentials.exec = v1_exec();
    runner.results = {token_with_expiry("one", "2000-01-01T00:10:00Z"), token_with_expiry("two", "")};
    clock.wall = std::chrono::system_clock::from_time_t(946684800); // 2000-01-01T00:00:00Z
    CredentialProvider provider(e, runner, files, clock, false);
    CHECK(provider.current().authorization == "Bearer one");
    clock.advance(minutes(5));
    CHECK(provider.current().authorization == "Bearer one");
    CHECK(provider.exec_runs() == 1);
    clock.advance(minutes(6));
    CHECK(provider.current().authorization == "Bearer two");
    CHECK(provider.exec_runs() == 2);
    clock.advance(minutes(600)); // no expiry: kept until a 401
    CHECK(provider.current().authorization == "Bearer two");
    CHECK(provider.exec_runs() == 2);
  }
  SUBCASE("exec: a 401 re-runs the plugin once per credential") {
    e.credentials.exec = v1_exec();
    runner.results = {token_with_expiry("stale", ""), token_with_expiry("fresh", "")};
    CredentialProvider provider(e, runner, files, clock, false);
    const AuthSnapshot used = provider.current();
    CHECK(provider.after_unauthorized(used, true) == AuthNext::refreshed);
    CHECK(provider.current().authorization == "Bearer fresh");
    // A second request that also failed with the stale token retries without another run.
    CHECK(provider.after_unauthorized(used, false)== AuthNext::replaced);
    CHECK(provider.exec_runs() == 2);
  }
  SUBCASE("exec: without leave to refresh, a 401 on the current credential stands") {
    e.credentials.exec = v1_exec();
    runner.results = {token_with_expiry("refused", ""), token_with_expiry("other", "")};
    CredentialProvider provider(e, runner, files, clock, false);
    CHECK(provider.after_unauthorized(provider.current(), false) == AuthNext::none);
    CHECK(provider.exec_runs() == 1);
    CHECK(provider.accepted_count() == 0);
    provider.accepted();
    CHECK(provider.accepted_count() == 1);
  }
  SUBCASE("exec: a failing refresh leaves the 401 standing") {
    e.credentials.exec = v1_exec();
    ProcessResult failed;
    failed.exit_code = 1;
    runner.results = {token_with_expiry("stale", ""), failed};
    CredentialProvider provider(e, runner, files, clock, false);
    CHECK(provider.after_unauthorized(provider.current(), true)== AuthNext::none);
  }
  SUBCASE("a configured token bypasses the exec plugin") {
    e.credentials.exec = v1_exec();
    e.credentials.token = "direct";
    CredentialProvider provider(e, runner, files, clock, false);
    CHECK(provider.current().authorization == "Bearer direct");
    CHECK(provider.exec_runs() == 0);
  }
}
