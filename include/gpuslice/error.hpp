// SPDX-License-Identifier: Apache-2.0
// The tool's error model: exceptions for "this command cannot go on", one type per exit
// code of DESIGN §4.1. Expected absence inside parsers uses std::optional, not these.
#pragma once

#include <stdexcept>
#include <string>

namespace gpuslice {

// Process exit codes; public contract (DESIGN §4.1), never renumbered.
enum class ExitCode : int {
  ok = 0,
  findings = 1,   // diagnose/verify found problems at or above --fail-on
  usage = 2,      // bad flag or value; nothing was sent to the cluster
  runtime = 3,    // unreachable API, TLS, auth, RBAC, timeout, a step failed
  incomplete = 4, // apply interrupted or partly failed; the journal names what to undo
};

// A bad flag, value or input file detected before any request. Exit 2.
class UsageError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// The command could not go on at run time (network, TLS, auth, file I/O). Exit 3.
class RuntimeError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// apply stopped part-way; journal_path names the journal that `undo` restores from. Exit 4.
class ApplyIncomplete : public std::runtime_error {
public:
  ApplyIncomplete(const std::string& what, std::string journal)
      : std::runtime_error(what), journal_path(std::move(journal)) {}
  std::string journal_path;
};

} // namespace gpuslice
