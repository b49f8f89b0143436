// SPDX-License-Identifier: Apache-2.0
// Retries under fakekube's transport faults, rate limiting, proxies, and timeouts.
#include <thread>

#include <doctest/doctest.h>
#include <httplib.h>

#include "kube/http.hpp"
#include "unit/kube_fakekube_support.hpp"

using gpuslice::kube::ApiError;
using gpuslice::kube::ClusterEndpoint;
using namespace kube_test;
using std::chrono::milliseconds;

namespace {

int count(const Cluster& cluster, const std::string& method) {
  int n = 0;
  for (const fakekube::LoggedRequest& r : cluster.server.request_log()) {
    n += r.method == method ? 1 : 0;
  }
  return n;
}

// A plain-HTTP server answering /version from a script, for responses fakekube does not make.
struct ScriptedHttp {
  httplib::Server server;
  std::thread thread;
  int port = 0;
  std::atomic<int> hits{0};
  explicit ScriptedHttp(std::function<void(int hit, httplib::Response&)> answer) {
    server.Get("/version", [this, answer](const httplib::Request&, httplib::Response& response) {
      answer(++hits, response);
    });
    port = server.bind_to_any_port("127.0.0.1");
    thread = std::thread([this] { server.listen_after_bind(); });
    while (!server.is_running()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  ~ScriptedHttp() {
    server.stop();
    thread.join();
  }
  ClusterEndpoint endpoint() const {
    ClusterEndpoint e;
    e.server = "http://127.0.0.1:" + std::to_string(port);
    return e;
  }
};

void version_ok(httplib::Response& response) {
  response.set_content(R"({"gitVersion":"v1.29.0"})", "application/json");
}

// A client whose GETs have 2 QPS, burst 2, sending `gets` of them; returns its sleeps.
std::vector<milliseconds> read_waits(Cluster& cluster, gpuslice::kube::ClientOptions options, int gets) {
  options.clock = &cluster.clock;
  options.read_qps = 2;
  options.read_burst = 2;
  gpuslice::kube::Client client(cluster.endpoint("admin", fakekube::KubeconfigAuth::token), options);
  for (int i = 0; i < gets; ++i) {
    client.server_version();
  }
  return cluster.clock.sleeps;
}

fakekube::Scenario without_priority_and_fairness() {
  fakekube::Scenario scenario = default_scenario();
  scenario.priority_and_fairness = false;
  return scenario;
}

} // namespace

TEST_CASE("kube::Client retries") {
  SUBCASE("429 with Retry-After is honoured (through the clock) and retried") {
    Cluster cluster;
    auto client = cluster.admin();
    cluster.server.transport_faults().too_many_every_nth = 2;
    cluster.server.transport_faults().retry_after_seconds = 3;
    for (int i = 0; i < 3; ++i) {
      CHECK(client->server_version() == "v1.30.4");
    }
    CHECK(std::count(cluster.clock.sleeps.begin(), cluster.clock.sleeps.end(), milliseconds(3000)) >= 1);
  }
  SUBCASE("a long Retry-After is capped") {
    Cluster cluster;
    auto client = cluster.admin();
    cluster.server.transport_faults().too_many_every_nth = 1;
    cluster.server.transport_faults().retry_after_seconds = 600;
    CHECK_THROWS_AS(client->server_version(), ApiError); // every request is a 429
    CHECK(cluster.clock.sleeps.size() == 10);              // bounded: client-go's 10 retries
    CHECK(cluster.clock.sleeps.front() == milliseconds(10'000));
    CHECK(count(cluster, "GET") == 11);
  }
  SUBCASE("a 500 without Retry-After is not retried") {
    Cluster cluster;
    auto client = cluster.admin();
    cluster.server.transport_faults().server_error_every_nth = 1;
    const ApiError e = [&] {
      try {
        client->server_version();
      } catch (const ApiError& error) {
        return error;
      }
      throw std::logic_error("expected an error");
    }();
    CHECK(e.http_code == 500);
    CHECK(e.reason == "InternalError");
    CHECK(count(cluster, "GET") == 1);
  }
  SUBCASE("a GET cut off mid-body is retried") {
    Cluster cluster;
    auto client = cluster.admin();
    cluster.server.transport_faults().drop_mid_body_every_nth = 2;
    for (int i = 0; i < 4; ++i) {
      CHECK(client->get({k_pods, "gpu", "pod-100", ""})["metadata"]["name"] == "pod-100");
    }
    CHECK(std::count(cluster.clock.sleeps.begin(), cluster.clock.sleeps.end(), milliseconds(1000)) >= 1);
  }
  SUBCASE("a POST cut off mid-body is never retried blindly") {
    Cluster cluster;
    auto client = cluster.admin();
    cluster.server.transport_faults().drop_mid_body_every_nth = 1;
    const nlohmann::json cm = {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", "once"}}}};
    CHECK_THROWS_AS(client->create(k_configmaps, "gpu", cm), ApiError);
    CHECK(count(cluster, "POST") == 1);
  }
  SUBCASE("503 with Retry-After is retried; an HTTP-date Retry-After is not") {
    ScriptedHttp http([](int hit, httplib::Response& response) {
      if (hit <= 2) {
        response.status = 503;
        response.set_header("Retry-After", "2");
        response.set_content("overloaded", "text/plain");
      } else {
        version_ok(response);
      }
    });
    FakeClock clock;
    gpuslice::kube::ClientOptions options;
    options.clock = &clock;
    gpuslice::kube::Client client(http.endpoint(), options);
    CHECK(client.server_version() == "v1.29.0");
    CHECK(clock.sleeps == std::vector<milliseconds>{milliseconds(2000), milliseconds(2000)});

    ScriptedHttp dated([](int, httplib::Response& response) {
      response.status = 503;
      response.set_header("Retry-After", "Wed, 21 Oct 2015 07:28:00 GMT");
    });
    gpuslice::kube::Client dated_client(dated.endpoint(), options);
    CHECK_THROWS_AS(dated_client.server_version(), ApiError);
    CHECK(dated.hits == 1);
  }
}

TEST_CASE("kube::Client rate limiting") {
  gpuslice::kube::ClientOptions options;
  SUBCASE("a server without API Priority and Fairness: GETs take from the read bucket") {
    Cluster cluster(without_priority_and_fairness());
    const std::vector<milliseconds> waits = read_waits(cluster, options, 4);
    CHECK(waits.size() == 2); // the two requests beyond the burst waited
    CHECK(waits.back() == milliseconds(500));
  }
  SUBCASE("a server enforcing APF: after its first response, GETs no longer wait") {
    Cluster cluster; // fakekube sends X-Kubernetes-PF-FlowSchema-UID / -PriorityLevel-UID
    options.log = &cluster.log;
    options.verbosity = 4;
    CHECK(read_waits(cluster, options, 6).empty());
    const std::string log = cluster.log.str();
    const std::string lifted = "The server enforces API Priority and Fairness: client-side rate limit for GETs lifted";
    REQUIRE(log.find(lifted) != std::string::npos);
    CHECK(log.find(lifted) == log.rfind(lifted)); // logged once
  }
  SUBCASE("an explicit read limit (--qps/--burst) holds under APF") {
    Cluster cluster;
    options.read_limit_yields_to_apf = false;
    const std::vector<milliseconds> waits = read_waits(cluster, options, 4);
    CHECK(waits.size() == 2);
    CHECK(waits.back() == milliseconds(500));
  }
  SUBCASE("writes take from their own bucket, which APF does not lift and reads do not drain") {
    Cluster cluster;
    options.qps = 2;
    options.burst = 2;
    CHECK(read_waits(cluster, options, 4).empty()); // reads lifted by APF
    options.clock = &cluster.clock;
    gpuslice::kube::Client client(cluster.endpoint("admin", fakekube::KubeconfigAuth::token), options);
    client.server_version(); // this client, too, has seen the APF headers
    const gpuslice::kube::ResourceRef configmaps{"", "v1", "configmaps", true};
    for (int i = 0; i < 3; ++i) {
      client.create(configmaps, "default",
                    {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", "cm-" + std::to_string(i)}}}});
    }
    CHECK(cluster.clock.sleeps.size() == 1); // the third write waited for a token
    CHECK(cluster.clock.sleeps.back() == milliseconds(500));
  }
}

TEST_CASE("kube::Client proxies and timeouts") {
  SUBCASE("HTTPS_PROXY is ignored for loopback") {
    Cluster cluster;
    ::setenv("HTTPS_PROXY", "http://127.0.0.1:1", 1);
    auto client = cluster.admin();
    const bool ok = client->server_version() == "v1.30.4";
    ::unsetenv("HTTPS_PROXY");
    CHECK(ok);
  }
  SUBCASE("a kubeconfig proxy-url is used even for loopback") {
    Cluster cluster;
    ClusterEndpoint endpoint = cluster.endpoint("admin", fakekube::KubeconfigAuth::token);
    endpoint.proxy_url = "http://127.0.0.1:1";
    auto client = cluster.client(endpoint);
    CHECK_THROWS_AS(client->server_version(), ApiError);
    CHECK(cluster.server.request_log().empty());
  }
  SUBCASE("--request-timeout bounds a slow answer and is sent as ?timeout=") {
    Cluster cluster;
    gpuslice::kube::GlobalOptions options;
    options.request_timeout = "1s";
    auto client = cluster.client(cluster.endpoint("admin", fakekube::KubeconfigAuth::token, options));
    CHECK(client->server_version() == "v1.30.4");
    CHECK(cluster.server.request_log().back().query.find("timeout=1s") != std::string::npos);
    cluster.server.transport_faults().latency_ms = 3000;
    try {
      client->server_version();
      FAIL("expected a timeout");
    } catch (const ApiError& e) {
      CHECK(e.reason == "Timeout");
    }
  }
}

TEST_CASE("kube::go_duration") {
  CHECK(gpuslice::kube::go_duration(milliseconds(30'000)) == "30s");
  CHECK(gpuslice::kube::go_duration(milliseconds(60'000)) == "1m0s");
  CHECK(gpuslice::kube::go_duration(milliseconds(90'000)) == "1m30s");
  CHECK(gpuslice::kube::go_duration(milliseconds(1'500)) == "1.5s");
  CHECK(gpuslice::kube::go_duration(milliseconds(500)) == "500ms");
  CHECK(gpuslice::kube::go_duration(milliseconds(3'600'000)) == "1h0m0s");
}
