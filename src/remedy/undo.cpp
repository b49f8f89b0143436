// SPDX-License-Identifier: Apache-2.0
// Undo from a journal: per object, the goal is the object without the run's own writes and the
// latest write is the run's last word. Every object is checked before anything is sent, so a refusal changes nothing.
#include <gpuslice/remedy/execute.hpp>

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include <gpuslice/kube/api_error.hpp>

#include "remedy/object_delta.hpp"

namespace gpuslice::remedy {

namespace {

// One object the run touched: its goal (the state before the run, with what others changed
// between the run's writes kept) and its last written state.
struct TouchedObject {
  TargetObject target;
  nlohmann::json prior;   // the goal; null: the run created it
  nlohmann::json written; // null: the run deleted it
  bool written_known = true; // false: the last request may or may not have reached the server
};

nlohmann::json read_undo_current(kube::Client& client, const TargetObject& target) {
  try {
    return client.get(target.ref());
  } catch (const kube::ApiError& e) {
    if (e.is_not_found()) return nullptr;
    throw;
  }
}

// Empty maps and lists the revert left behind where the prior object had nothing.
void prune_empty(nlohmann::json& current, const nlohmann::json& prior) {
  if (!current.is_object()) return;
  for (auto it = current.begin(); it != current.end();) {
    const bool prior_has = prior.is_object() && prior.contains(it.key());
    if ((it->is_object() || it->is_array()) && it->empty() && !prior_has) {
      it = current.erase(it);
      continue;
    }
    if (it->is_object() && prior_has) prune_empty(*it, prior[it.key()]);
    ++it;
  }
}

// What undo will do to one object, decided from its current state.
struct UndoDecision {
  std::string status; // restore | delete | re-create | already-restored | conflict
  std::string message;
  nlohmann::json current;
  std::vector<FieldDelta> deltas;
};

std::string changed_fields_text(const std::vector<FieldDelta>& deltas, const nlohmann::json& current) {
  std::string text;
  for (const FieldDelta& delta : deltas) {
    if (!holds_after(delta, current)) text += (text.empty() ? "" : ", ") + path_text(delta.path);
  }
  return text;
}

UndoDecision decide_undo(const TouchedObject& object, const nlohmann::json& current) {
  UndoDecision decision;
  decision.current = current;
  if (object.prior.is_null()) { // created by the run
    if (current.is_null()) return {"already-restored", "absent, as before the run", current, {}};
    const std::vector<FieldDelta> since = object_deltas(object.written, current);
    const bool same_object = object.written.is_null() ||
                             current["metadata"].value("uid", "") == object.written["metadata"].value("uid", "") ||
                             !object.written_known;
    if (!same_object) return {"conflict", "created by the run, but a different object has that name now", current, {}};
    if (object.written_known && !since.empty()) {
      std::string fields;
      for (const FieldDelta& delta : since) fields += (fields.empty() ? "" : ", ") + path_text(delta.path);
      return {"conflict", "created by the run and changed since in: " + fields, current, {}};
    }
    return {"delete", "created by the run", current, {}};
  }
  if (current.is_null()) return {"re-create", "deleted by the run", current, {}};
  if (object.written.is_null()) { // deleted by the run, but there again
    if (object_deltas(object.prior, current).empty()) return {"already-restored", "exists as before", current, {}};
    return {"conflict", "deleted by the run and re-created differently since", current, {}};
  }
  decision.deltas = object_deltas(object.prior, object.written);
  const nlohmann::json now = comparable(current);
  bool all_before = true;
  bool all_after = true;
  for (const FieldDelta& delta : decision.deltas) {
    all_before = all_before && holds_before(delta, now);
    all_after = all_after && holds_after(delta, now);
  }
  if (all_before) {
    decision.status = "already-restored";
    decision.message = "already as before the run";
  } else if (all_after || !object.written_known) {
    decision.status = "restore";
    decision.message = fmt::format("reverting {} field(s)", decision.deltas.size());
  } else {
    decision.status = "conflict";
    decision.message = "changed since the run in: " + changed_fields_text(decision.deltas, now);
  }
  return decision;
}

nlohmann::json recreate_body(const nlohmann::json& prior) {
  nlohmann::json body = prior;
  body.erase("status");
  for (const char* key : {"resourceVersion", "uid", "creationTimestamp", "managedFields", "generation",
                          "deletionTimestamp", "deletionGracePeriodSeconds"}) {
    body["metadata"].erase(key);
  }
  return body;
}

// What an entry left on the object: the server's answer, or what was sent when no answer came.
nlohmann::json entry_written(const JournalEntry& entry) {
  if (entry.action == Action::remove) return nullptr;
  return entry.done ? entry.result : entry.intended;
}

// The object as it would be had the run not touched it: its last written state with each of
// the run's own writes reverted, newest first. A writer's change that landed between two of
// the run's writes to the object (apply labels a node, later taints it) is not the run's, and
// undo must leave it.
nlohmann::json without_the_runs_writes(const std::vector<const JournalEntry*>& entries, const nlohmann::json& first_prior) {
  nlohmann::json goal = entry_written(*entries.back());
  for (auto it = entries.rbegin(); it != entries.rend(); ++it) {
    const nlohmann::json written = entry_written(**it);
    if ((*it)->prior.is_null() || written.is_null()) return first_prior; // created or deleted on the way
    for (const FieldDelta& delta : object_deltas((*it)->prior, written)) revert(delta, goal);
  }
  prune_empty(goal, first_prior);
  return goal;
}

// Per object the run touched, in the journal's order, its goal and its last written state. An
// entry without an answer that a later entry for the same object follows was refused with a
// Conflict and retried (any other failure ends the run), so it never reached the object.
std::vector<TouchedObject> touched_objects(const JournalFile& journal) {
  std::vector<std::pair<TargetObject, std::vector<const JournalEntry*>>> groups;
  std::map<std::string, std::size_t> index;
  for (const JournalEntry& entry : journal.entries) {
    const auto [found, added] = index.try_emplace(entry.target.display(), groups.size());
    if (added) groups.push_back({entry.target, {}});
    std::vector<const JournalEntry*>& entries = groups[found->second].second;
    if (!entries.empty() && !entries.back()->done) entries.pop_back(); // refused, then retried
    entries.push_back(&entry);
  }
  std::vector<TouchedObject> out;
  for (const auto& [target, entries] : groups) {
    TouchedObject object{target, entries.front()->prior, entry_written(*entries.back()), entries.back()->done};
    if (entries.size() > 1 && !object.prior.is_null() && !object.written.is_null())
      object.prior = without_the_runs_writes(entries, object.prior);
    out.push_back(std::move(object));
  }
  std::reverse(out.begin(), out.end()); // newest first
  return out;
}

// Sends what the decision calls for; returns the outcome status.
std::string carry_out(kube::Client& client, const TouchedObject& object, const UndoDecision& decision) {
  if (decision.status == "delete") {
    kube::DeleteOptions options;
    options.propagation_policy = "Background";
    try {
      client.remove(object.target.ref(), options);
    } catch (const kube::ApiError& e) {
      if (!e.is_not_found()) throw;
    }
    return "deleted";
  }
  if (decision.status == "re-create") {
    client.create(object.target.type, object.target.ns, recreate_body(object.prior));
    return "re-created";
  }
  // restore: revert the run's fields on the freshest copy, retrying on conflict
  nlohmann::json current = decision.current;
  for (int attempt = 0;; ++attempt) {
    nlohmann::json restored = current;
    for (const FieldDelta& delta : decision.deltas) revert(delta, restored);
    prune_empty(restored, object.prior);
    if (restored == current) return "already-restored";
    try {
      client.update(object.target.ref(), restored);
      return "restored";
    } catch (const kube::ApiError& e) {
      if (!e.is_conflict() || attempt >= 5) throw;
      current = read_undo_current(client, object.target);
      if (current.is_null()) throw;
    }
  }
}

} // namespace

UndoResult undo(const JournalFile& journal, kube::Client& client, const UndoOptions& options) {
  UndoResult result;
  const std::vector<TouchedObject> objects = touched_objects(journal);
  std::vector<UndoDecision> decisions;
  for (const TouchedObject& object : objects) {
    decisions.push_back(decide_undo(object, read_undo_current(client, object.target)));
    if (decisions.back().status == "conflict") result.refused = !options.force;
  }
  for (std::size_t i = 0; i < objects.size(); ++i) {
    UndoOutcome outcome{objects[i].target, decisions[i].status, decisions[i].message};
    const bool act = decisions[i].status == "restore" || decisions[i].status == "delete" ||
                     decisions[i].status == "re-create" || (decisions[i].status == "conflict" && options.force);
    if (result.refused || options.dry_run || !act) {
      if (act && options.dry_run) outcome.status = "would-" + decisions[i].status;
      result.outcomes.push_back(std::move(outcome));
      continue;
    }
    if (options.stop_requested && options.stop_requested()) {
      result.interrupted = true;
      return result;
    }
    UndoDecision forced = decisions[i];
    if (forced.status == "conflict") {
      // --force: the run's goal state wins over the later writer's.
      forced.status = objects[i].prior.is_null() ? "delete"
                      : decisions[i].current.is_null() ? "re-create"
                                                       : "restore";
      if (forced.status == "restore" && objects[i].written.is_null()) {
        result.outcomes.push_back({objects[i].target, "conflict", decisions[i].message + " (left as it is)"});
        continue;
      }
      forced.deltas = object_deltas(objects[i].prior, objects[i].written);
    }
    try {
      outcome.status = carry_out(client, objects[i], forced);
    } catch (const kube::ApiError& e) {
      outcome.status = "failed";
      outcome.message = e.what();
      result.failure = fmt::format("{}: {}", objects[i].target.display(), e.what());
      result.outcomes.push_back(std::move(outcome));
      return result;
    }
    result.outcomes.push_back(std::move(outcome));
  }
  return result;
}

} // namespace gpuslice::remedy
