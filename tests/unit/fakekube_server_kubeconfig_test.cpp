// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include <array>
#include <cstdio>
#include <cstdlib>

#include <sys/stat.h>
#include <yaml-cpp/yaml.h>

#include <fakekube/server.hpp>
#include <fakekube/server_test_client.hpp>

namespace {

// A pinned real kubectl (kubectl.1.33 beside the PATH dispatcher), or "" when absent.
std::string find_kubectl() {
  FILE* pipe = ::popen("dirname \"$(readlink -f \"$(command -v kubectl)\")\" 2>/dev/null", "r");
  if (pipe == nullptr) return "";
  std::array<char, 512> line{};
  std::string dir = std::fgets(line.data(), line.size(), pipe) ? line.data() : "";
  ::pclose(pipe);
  while (!dir.empty() && dir.back() == '\n') dir.pop_back();
  std::string binary = dir + "/kubectl.1.33";
  return !dir.empty() && ::access(binary.c_str(), X_OK) == 0 ? binary : "";
}

std::string run(const std::string& command) {
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::string out;
  std::array<char, 4096> chunk{};
  while (std::size_t n = std::fread(chunk.data(), 1, chunk.size(), pipe)) out.append(chunk.data(), n);
  ::pclose(pipe);
  return out;
}

unsigned mode_of(const std::filesystem::path& path) {
  struct stat info {};
  REQUIRE(::stat(path.c_str(), &info) == 0);
  return info.st_mode & 0777;
}

} // namespace

TEST_CASE("fakekube::Server::write_kubeconfig") {
  fakekube::Scenario scenario;
  scenario.users = {{"alice", {"system:masters"}, "t-alice", "pw-alice", true},
                    {"eks", {"system:masters"}, "k8s-aws-v1.*", "", false}};
  fakekube::Server server(scenario);
  server.start(0);
  fakekube::TempDir dir;
  std::string kubectl = find_kubectl();
  if (kubectl.empty()) MESSAGE("kubectl.1.33 not found: kubeconfigs are checked without kubectl");

  const std::vector<std::pair<std::string, fakekube::KubeconfigAuth>> k_modes = {
      {"token", fakekube::KubeconfigAuth::token},
      {"token-file", fakekube::KubeconfigAuth::token_file},
      {"client-cert", fakekube::KubeconfigAuth::client_cert_files},
      {"client-cert-data", fakekube::KubeconfigAuth::client_cert_data},
      {"basic", fakekube::KubeconfigAuth::basic},
      {"exec", fakekube::KubeconfigAuth::exec}};
  for (const auto& [name, auth] : k_modes) {
    SUBCASE(name.c_str()) {
      std::filesystem::path path = dir.path() / ("kc-" + name);
      CHECK(server.write_kubeconfig(path, "alice", auth) == path);
      CHECK(mode_of(path) == 0600);
      YAML::Node config = YAML::LoadFile(path.string());
      CHECK(config["clusters"][0]["cluster"]["server"].as<std::string>() == server.url());
      CHECK(config["clusters"][0]["cluster"]["certificate-authority-data"]);
      CHECK(config["current-context"].as<std::string>() == "fakekube");
      YAML::Node user = config["users"][0]["user"];
      if (auth == fakekube::KubeconfigAuth::client_cert_files) {
        CHECK(mode_of(user["client-key"].as<std::string>()) == 0600);
      }
      if (auth == fakekube::KubeconfigAuth::exec) {
        CHECK(user["exec"]["apiVersion"].as<std::string>() == "client.authentication.k8s.io/v1beta1");
        CHECK(mode_of(user["exec"]["command"].as<std::string>()) == 0700);
      }
      if (!kubectl.empty()) {
        server.clear_request_log();
        std::string out = run(kubectl + " --kubeconfig " + path.string() + " --cache-dir " +
                              (dir.path() / "cache").string() + " get --raw /version");
        CHECK_MESSAGE(out.find("\"gitVersion\"") != std::string::npos, out);
        REQUIRE_FALSE(server.request_log().empty());
        CHECK(server.request_log().back().user == "alice");
      }
    }
  }
  SUBCASE("EKS stand-in user gets a k8s-aws-v1. token") {
    std::filesystem::path path = dir.path() / "kc-eks";
    server.write_kubeconfig(path, "eks", fakekube::KubeconfigAuth::token);
    std::string token = YAML::LoadFile(path.string())["users"][0]["user"]["token"].as<std::string>();
    CHECK(token.rfind("k8s-aws-v1.", 0) == 0);
    CHECK(token.size() > 20);
  }
  SUBCASE("a mode the user cannot use is an error naming the user") {
    CHECK_THROWS_WITH_AS(server.write_kubeconfig(dir.path() / "x", "eks",
                                                 fakekube::KubeconfigAuth::client_cert_data),
                         "fakekube: user \"eks\" has no client certificate (set clientCertificate: true)",
                         std::runtime_error);
    CHECK_THROWS_WITH_AS(server.write_kubeconfig(dir.path() / "x", "nobody",
                                                 fakekube::KubeconfigAuth::token),
                         "fakekube: no user \"nobody\"", std::runtime_error);
  }
}
