// SPDX-License-Identifier: Apache-2.0
// The apply journal: JSON lines, each written and fsync'd before the request it describes, so
// an interrupted run (or a crash) always leaves enough to undo what reached the server.
#include <gpuslice/remedy/execute.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <gpuslice/error.hpp>

namespace gpuslice::remedy {

namespace {

[[noreturn]] void fail_journal(const std::string& path, const std::string& what, int error) {
  throw RuntimeError(fmt::format("journal {}: {}: {}", path, what, std::strerror(error)));
}

std::string journal_time_now() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y%m%dT%H%M%SZ", &utc);
  return buffer;
}

nlohmann::json target_json(const TargetObject& target) {
  return {{"apiVersion", target.api_version}, {"kind", target.kind}, {"namespace", target.ns}, {"name", target.name}};
}

Action action_from_text(const std::string& text) {
  if (text == "create") return Action::create;
  if (text == "delete") return Action::remove;
  if (text == "replace") return Action::replace;
  return Action::patch;
}

} // namespace

Journal::Journal(const std::string& dir, nlohmann::json header) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) throw RuntimeError(fmt::format("journal directory {}: {}", dir, error.message()));
  ::chmod(dir.c_str(), 0700);
  const std::string base = fmt::format("{}/journal-{}-{}", dir, journal_time_now(), ::getpid());
  m_path = base + ".jsonl";
  for (int attempt = 1; (m_fd = ::open(m_path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) < 0; ++attempt) {
    if (errno != EEXIST || attempt > 50) fail_journal(m_path, "cannot create", errno);
    m_path = fmt::format("{}-{}.jsonl", base, attempt);
  }
  header["kind"] = "GpusliceJournal";
  header["version"] = 1;
  append_line(header);
}

Journal::~Journal() {
  if (m_fd >= 0) ::close(m_fd);
}

void Journal::append_line(const nlohmann::json& record) {
  const std::string line = record.dump() + "\n";
  std::size_t written = 0;
  while (written < line.size()) {
    const ssize_t n = ::write(m_fd, line.data() + written, line.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail_journal(m_path, "write failed", errno);
    }
    written += static_cast<std::size_t>(n);
  }
  if (::fsync(m_fd) != 0) fail_journal(m_path, "fsync failed", errno);
}

int Journal::record_before(const std::string& step, Action action, const TargetObject& target,
                           const nlohmann::json& prior, const nlohmann::json& intended) {
  ++m_seq;
  append_line({{"seq", m_seq},
               {"phase", "before"},
               {"step", step},
               {"action", std::string(to_string(action))},
               {"object", target_json(target)},
               {"prior", prior},
               {"intended", intended}});
  return m_seq;
}

void Journal::record_done(int seq, const nlohmann::json& result) {
  append_line({{"seq", seq}, {"phase", "done"}, {"result", result}});
}

std::string default_journal_dir() {
  const char* home = std::getenv("HOME");
  return std::string(home != nullptr && *home != '\0' ? home : ".") + "/.kube/gpuslice";
}

std::string newest_journal(const std::string& dir) {
  return newest_journal(dir, [](const nlohmann::json&) { return true; });
}

std::string newest_journal(const std::string& dir, const std::function<bool(const nlohmann::json& header)>& wanted) {
  std::error_code error;
  std::vector<std::string> paths;
  for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with("journal-") && name.ends_with(".jsonl")) paths.push_back(entry.path().string());
  }
  std::sort(paths.rbegin(), paths.rend()); // newest first
  for (const std::string& path : paths) {
    std::ifstream in(path);
    std::string line;
    if (!std::getline(in, line)) continue;
    const nlohmann::json header = nlohmann::json::parse(line, nullptr, false);
    if (!header.is_discarded() && header.value("kind", "") == "GpusliceJournal" && wanted(header)) return path;
  }
  return {};
}

JournalFile read_journal(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UsageError(fmt::format("--journal {}: cannot read the file", path));
  JournalFile journal;
  std::string line;
  bool first = true;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    nlohmann::json record = nlohmann::json::parse(line, nullptr, false);
    if (record.is_discarded()) break; // a torn last line: the request it announced was never sent
    if (first) {
      if (record.value("kind", "") != "GpusliceJournal") {
        throw UsageError(fmt::format("--journal {}: not a kubectl-gpuslice journal", path));
      }
      journal.header = std::move(record);
      first = false;
      continue;
    }
    if (record.value("phase", "") == "before") {
      JournalEntry entry;
      entry.seq = record.value("seq", 0);
      entry.step = record.value("step", "");
      entry.action = action_from_text(record.value("action", "patch"));
      const nlohmann::json& object = record["object"];
      try {
        entry.target = target_for(object.value("kind", ""), object.value("namespace", ""), object.value("name", ""));
      } catch (const std::invalid_argument& e) {
        throw UsageError(fmt::format("--journal {}: {}", path, e.what()));
      }
      entry.prior = record["prior"];
      entry.intended = record["intended"];
      journal.entries.push_back(std::move(entry));
    } else if (record.value("phase", "") == "done") {
      const int seq = record.value("seq", 0);
      for (JournalEntry& entry : journal.entries) {
        if (entry.seq == seq) {
          entry.result = record["result"];
          entry.done = true;
        }
      }
    }
  }
  if (first) throw UsageError(fmt::format("--journal {}: empty or not a kubectl-gpuslice journal", path));
  return journal;
}

} // namespace gpuslice::remedy
