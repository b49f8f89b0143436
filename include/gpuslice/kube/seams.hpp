// SPDX-License-Identifier: Apache-2.0
// The side effects the kube client cannot have faked by a server: files, processes, time.
// Production code uses the system_* implementations; tests substitute their own.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gpuslice::kube {

// Reads whole files (kubeconfigs, token files, certificates).
class FileReader {
public:
  virtual ~FileReader() = default;
  // The file's bytes; nullopt when the file does not exist. Throws RuntimeError when it exists
  // but cannot be read (a directory, no permission).
  virtual std::optional<std::string> read(const std::string& path) = 0;
};

// What to run: argv[0] is `command` (looked up on PATH when it has no '/'), never a shell.
struct ProcessSpec {
  std::string command;
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> env; // the child's complete environment
  bool connect_stdin = false; // interactive: reads the terminal, prompts on our stderr (not captured)
};

struct ProcessResult {
  bool not_found = false; // the command could not be found or executed
  int exit_code = 0;      // 128+N when killed by signal N
  std::string out;
  std::string err;
};

// Runs a child process to completion, capturing stdout and stderr.
class ProcessRunner {
public:
  virtual ~ProcessRunner() = default;
  virtual ProcessResult run(const ProcessSpec& spec) = 0;
};

// Wall-clock time (credential expiry) and waiting (retry backoff, rate limiting).
class Clock {
public:
  virtual ~Clock() = default;
  virtual std::chrono::system_clock::time_point now() = 0;
  virtual std::chrono::steady_clock::time_point steady_now() = 0;
  virtual void sleep_for(std::chrono::milliseconds duration) = 0;
};

FileReader& system_file_reader();
ProcessRunner& system_process_runner();
Clock& system_clock();

} // namespace gpuslice::kube
