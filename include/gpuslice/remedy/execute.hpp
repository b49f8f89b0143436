// SPDX-License-Identifier: Apache-2.0
// Carrying a Plan out through the API (read-modify-write, journaled before every mutation),
// the journal file itself, and undo from a journal.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include <gpuslice/kube/client.hpp>
#include <gpuslice/remedy/plan.hpp>

namespace gpuslice::remedy {

// ---- Journal: one JSON object per line, each line fsync'd before the request it describes ----

// A mutation as the journal recorded it: the object's prior state (null = absent) written
// before the request, then the server's answer once it came (done).
struct JournalEntry {
  int seq = 0;
  std::string step;
  Action action = Action::patch;
  TargetObject target;
  nlohmann::json prior;    // null: the object did not exist
  nlohmann::json intended; // what was sent (null for a delete)
  nlohmann::json result;   // the server's answer (null for a delete, or when not done)
  bool done = false;       // the server answered
};

struct JournalFile {
  nlohmann::json header; // {"kind":"GpusliceJournal","version":1,"command",…,"context","server","startedAt"}
  std::vector<JournalEntry> entries;
};

// An open journal. Created with mode 0600 (its directory 0700): it holds cluster objects,
// including Helm release Secrets when a Helm plugin is uninstalled.
class Journal {
public:
  // Creates `<dir>/journal-<UTC time>-<pid>.jsonl` and writes the header line. Throws
  // RuntimeError naming the path on failure.
  Journal(const std::string& dir, nlohmann::json header);
  ~Journal();
  Journal(const Journal&) = delete;
  Journal& operator=(const Journal&) = delete;

  const std::string& path() const { return m_path; }
  // Appends the "before" record and flushes it to disk; returns its sequence number.
  int record_before(const std::string& step, Action action, const TargetObject& target,
                    const nlohmann::json& prior, const nlohmann::json& intended);
  // Appends the "done" record of `seq` with the server's answer.
  void record_done(int seq, const nlohmann::json& result);
  int mutations() const { return m_seq; }

private:
  void append_line(const nlohmann::json& record);
  std::string m_path;
  int m_fd = -1;
  int m_seq = 0;
};

// ~/.kube/gpuslice ($HOME), where journals live.
std::string default_journal_dir();
// The newest journal in dir (names sort by time); "" when there is none.
std::string newest_journal(const std::string& dir);
// The newest journal in dir whose header line `wanted` accepts; "" when there is none.
std::string newest_journal(const std::string& dir, const std::function<bool(const nlohmann::json& header)>& wanted);
// The header's "command" of a `verify --smoke` run's journal.
inline constexpr std::string_view k_smoke_journal_command = "verify --smoke";
// Reads a journal; a torn last line (a crash mid-write) is ignored. Throws UsageError for a
// missing file or one that is not a journal.
JournalFile read_journal(const std::string& path);

// ---- Executing a plan ----

enum class DryRun { none, client, server };

struct ExecuteOptions {
  DryRun dry_run = DryRun::none;
  Journal* journal = nullptr;               // required unless dry_run
  std::function<bool()> stop_requested;     // checked between requests (SIGINT/SIGTERM)
  int max_conflict_retries = 5;             // 409 Conflict: re-read and re-apply the edit
};

// What happened to one change.
struct ChangeOutcome {
  std::string step;
  Action action = Action::patch;
  TargetObject target;
  std::string status;   // created | patched | deleted | unchanged | would-change | server-accepted | failed | skipped
  std::string message;  // server verdict or error
  nlohmann::json before; // live object as read (null when absent)
  nlohmann::json after;  // what was (or would be) written; for server dry-run the server's answer
  int conflicts = 0;     // 409s retried
};

struct ExecuteResult {
  std::vector<ChangeOutcome> outcomes;
  int mutations = 0;        // mutating requests the server accepted (0 for dry runs)
  int unconfirmed = 0;      // mutating requests that got no answer or a 5xx: they may have been made
  bool interrupted = false; // stopped by stop_requested between requests
  std::string failure;      // the error that stopped the run ("" = none)
  bool complete() const { return !interrupted && failure.empty(); }
};

// Runs every changed change of the plan in order. Client dry-run only reads; server dry-run
// sends mutations with dryRun=All and records each verdict (a rejection does not stop it).
// A real run stops at the first failure or interruption (see ExecuteResult).
ExecuteResult execute(const Plan& plan, kube::Client& client, const ExecuteOptions& options);

// apply -o json of a run: {"apiVersion":"gpuslice/v1alpha1","kind":"Result","complete",…,"steps":[…]}.
nlohmann::ordered_json result_to_json(const ExecuteResult& result, const std::string& journal_path);

// ---- Undo ----

struct UndoOptions {
  bool force = false;
  bool dry_run = false;
  std::function<bool()> stop_requested;
};

struct UndoOutcome {
  TargetObject target;
  std::string status;  // restored | deleted | re-created | already-restored | conflict | would-restore | failed
  std::string message;
};

struct UndoResult {
  std::vector<UndoOutcome> outcomes;
  bool refused = false;     // some object changed since and !force: nothing was changed
  bool interrupted = false;
  std::string failure;
};

// Restores every object the journal touched to its prior state, newest first, reverting only
// what the run changed (other writers' later changes to other fields are kept). Checks every
// object first: if one was changed since in a field the run set, refuses (unless force) before
// sending anything. Running it again changes nothing.
UndoResult undo(const JournalFile& journal, kube::Client& client, const UndoOptions& options);

} // namespace gpuslice::remedy

namespace gpuslice::remedy {

// ---- Preflight: one SelfSubjectAccessReview per verb and resource the plan needs ----

struct Permission {
  std::string verb;     // get | create | update | delete
  std::string group;    // "" core
  std::string resource; // plural
  std::string ns;       // "" cluster scope
  bool operator==(const Permission&) const = default;
  auto operator<=>(const Permission&) const = default;
  // "update nodes", "create configmaps in nvidia-device-plugin", "update deployments.apps in ml".
  std::string display() const;
};

// What executing the plan's changed changes needs: get plus the writing verb, per resource
// and namespace, sorted and without duplicates (pure).
std::vector<Permission> permissions_needed(const Plan& plan);

// Asks the server about each permission; returns the denied ones (with the server's reason
// appended to display() when it gave one). Throws ApiError when a review itself fails.
std::vector<std::string> denied_permissions(kube::Client& client, const std::vector<Permission>& needed);

} // namespace gpuslice::remedy

namespace gpuslice::remedy {

// Reads what a config step plans from but the diagnosis query plan may skip — our ConfigMap
// before the plugin refers to it — into the snapshot (nothing when it does not exist), so a
// second run sees it and plans no change; sets options.namespace_exists from a read of its
// namespace. Throws ApiError for errors other than 404.
void read_config_target(kube::Client& client, Snapshot& snapshot, ConfigApplyOptions& options);

} // namespace gpuslice::remedy
