// SPDX-License-Identifier: Apache-2.0
// fakekube: serves a scenario over HTTPS until SIGTERM or SIGINT. Prints its URL on stdout
// (one line) once it accepts connections, so scripts can wait for that line.
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <fstream>
#include <map>
#include <mutex>

#include <condition_variable>
#include <thread>

#include <pthread.h>

#include <CLI/CLI.hpp>

#include <fakekube/server.hpp>

#include "scenario_list_chunks.hpp"

int main(int argc, char** argv) {
  CLI::App app{"fakekube: an in-memory Kubernetes API server for tests and demos"};
  std::string scenario_path;
  int port = 0;
  std::string kubeconfig_out;
  std::string user;
  fakekube::KubeconfigAuth auth = fakekube::KubeconfigAuth::token;
  const std::map<std::string, fakekube::KubeconfigAuth> k_auth_modes = {
      {"token", fakekube::KubeconfigAuth::token},
      {"token-file", fakekube::KubeconfigAuth::token_file},
      {"client-cert", fakekube::KubeconfigAuth::client_cert_files},
      {"client-cert-data", fakekube::KubeconfigAuth::client_cert_data},
      {"basic", fakekube::KubeconfigAuth::basic},
      {"exec", fakekube::KubeconfigAuth::exec}};
  app.add_option("--scenario", scenario_path, "scenario file (JSON or YAML)")
      ->required()
      ->check(CLI::ExistingFile);
  app.add_option("--port", port, "port on 127.0.0.1 (default: an ephemeral port)")
      ->check(CLI::Range(0, 65535));
  app.add_option("--kubeconfig-out", kubeconfig_out, "write a kubeconfig (mode 0600) here");
  app.add_option("--user", user, "user for --kubeconfig-out (default: the scenario's first)");
  app.add_option("--auth", auth, "credential style for --kubeconfig-out")
      ->transform(CLI::CheckedTransformer(k_auth_modes, CLI::ignore_case));
  std::string request_log;
  app.add_option("--request-log", request_log,
                 "append every request to this file as a JSON line (method, path, query, "
                 "contentType, user, status) before answering it");
  std::string simulate_text;
  CLI::Option* simulate =
      app.add_option("--simulate", simulate_text,
                     "run the cluster simulation (controllers, scheduler, device plugin, "
                     "autoscaler) one tick every INTERVAL_MS (default 100)")
          ->expected(0, 1)
          ->type_name("INTERVAL_MS");
  bool no_priority_and_fairness = false;
  app.add_flag("--no-priority-and-fairness", no_priority_and_fairness,
               "act as a server without API Priority and Fairness: no X-Kubernetes-PF-FlowSchema-UID "
               "and X-Kubernetes-PF-PriorityLevel-UID response headers");
  CLI11_PARSE(app, argc, argv);
  int simulate_ms = 0;
  if (simulate->count() > 0) {
    simulate_ms = simulate_text.empty() ? 100 : std::atoi(simulate_text.c_str());
    if (simulate_ms <= 0) {
      std::cerr << "fakekube: error: --simulate: \"" << simulate_text
                << "\" is not a positive number of milliseconds\n";
      return 2;
    }
  }

  // Block the stop signals before any server thread exists, so that only sigwait sees them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  try {
    // Declared before the server so that they outlive its handler threads.
    std::ofstream log_file;
    std::mutex log_mutex;
    const bool chunked = fakekube::wants_chunked_load(scenario_path); // the benchmarks' large Lists
    fakekube::Scenario scenario = chunked ? fakekube::Scenario{} : fakekube::load_scenario(scenario_path);
    scenario.priority_and_fairness = !no_priority_and_fairness;
    fakekube::Server server(std::move(scenario));
    if (chunked) fakekube::load_list_in_chunks(server.api(), scenario_path);
    if (!request_log.empty()) {
      log_file.open(request_log, std::ios::app);
      if (!log_file) throw std::runtime_error(request_log + ": cannot open request log");
      server.set_request_listener([&](const fakekube::LoggedRequest& r) {
        nlohmann::json line = {{"method", r.method}, {"path", r.path},
                               {"query", r.query},   {"contentType", r.content_type},
                               {"user", r.user},     {"status", r.status}};
        std::lock_guard<std::mutex> lock(log_mutex);
        log_file << line.dump() << std::endl;
      });
    }
    server.start(port);
    if (!kubeconfig_out.empty()) {
      if (user.empty()) user = server.users().front().name;
      server.write_kubeconfig(kubeconfig_out, user, auth);
    }
    // Ticks on a timer, taking the API's lock like a request does.
    std::mutex timer_mutex;
    std::condition_variable timer_wake;
    bool stopping = false;
    std::thread ticker;
    if (simulate_ms > 0) {
      ticker = std::thread([&] {
        std::unique_lock<std::mutex> lock(timer_mutex);
        while (!timer_wake.wait_for(lock, std::chrono::milliseconds(simulate_ms), [&] { return stopping; })) {
          lock.unlock();
          server.api().simulation().tick();
          lock.lock();
        }
      });
    }
    std::cout << server.url() << std::endl;
    int signal_number = 0;
    sigwait(&stop_signals, &signal_number);
    if (ticker.joinable()) {
      {
        std::lock_guard<std::mutex> lock(timer_mutex);
        stopping = true;
      }
      timer_wake.notify_all();
      ticker.join();
    }
    server.stop();
  } catch (const std::exception& error) {
    std::cerr << "fakekube: error: " << error.what() << "\n";
    return 1;
  }
  return 0;
}
