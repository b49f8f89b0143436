// SPDX-License-Identifier: Apache-2.0
// Test doubles for the kube room's seams: files in memory, scripted processes, a fake clock.
#pragma once

#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include <gpuslice/kube/seams.hpp>

namespace kube_test {

class MemoryFiles final : public gpuslice::kube::FileReader {
public:
  std::map<std::string, std::string> files;
  std::vector<std::string> unreadable; // read() throws for these
  int reads = 0;

  std::optional<std::string> read(const std::string& path) override {
    ++reads;
    for (const std::string& bad : unreadable) {
      if (bad == path) {
        throw std::runtime_error(path + ": permission denied");
      }
    }
    const auto found = files.find(path);
    if (found == files.end()) {
      return std::nullopt;
    }
    return found->second;
  }
};

// Answers each run with the next scripted result and records the specs it was given.
class ScriptedProcesses final : public gpuslice::kube::ProcessRunner {
public:
  std::vector<gpuslice::kube::ProcessResult> results;
  std::vector<gpuslice::kube::ProcessSpec> runs;

  gpuslice::kube::ProcessResult run(const gpuslice::kube::ProcessSpec& spec) override {
    std::lock_guard<std::mutex> lock(m_mutex);
    runs.push_back(spec);
    if (runs.size() > results.size()) {
      throw std::logic_error("ScriptedProcesses: more runs than scripted results");
    }
    return results[runs.size() - 1];
  }

private:
  std::mutex m_mutex;
};

// Time moves only when the code under test sleeps or the test advances it.
class FakeClock final : public gpuslice::kube::Clock {
public:
  std::chrono::system_clock::time_point wall = std::chrono::system_clock::now();
  std::chrono::steady_clock::time_point steady = std::chrono::steady_clock::now();
  std::vector<std::chrono::milliseconds> sleeps;

  std::chrono::system_clock::time_point now() override {
    std::lock_guard<std::mutex> lock(m_mutex);
    return wall;
  }
  std::chrono::steady_clock::time_point steady_now() override {
    std::lock_guard<std::mutex> lock(m_mutex);
    return steady;
  }
  void sleep_for(std::chrono::milliseconds duration) override {
    std::lock_guard<std::mutex> lock(m_mutex);
    sleeps.push_back(duration);
    wall += duration;
    steady += duration;
  }
  void advance(std::chrono::milliseconds duration) {
    std::lock_guard<std::mutex> lock(m_mutex);
    wall += duration;
    steady += duration;
  }

private:
  std::mutex m_mutex;
};

} // namespace kube_test
