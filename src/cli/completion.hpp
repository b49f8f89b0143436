// SPDX-License-Identifier: Apache-2.0
// Shell completion, generated from the CLI11 tree so that a new subcommand or flag completes
// without edits here. One protocol serves every shell and kubectl (1.26+): the program is run
// with the words typed so far and the word being completed, and prints one candidate a line
// ("value<TAB>description"), then ":<directive>" (cobra's ShellCompDirective bits).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include <gpuslice/error.hpp>

#include "cli/app.hpp"

namespace gpuslice::cli {

// cobra's ShellCompDirective values, which kubectl passes on to the shell.
inline constexpr int k_directive_default = 0;
inline constexpr int k_directive_no_space = 2;
inline constexpr int k_directive_no_file_completion = 4;

// What a flag's or positional's value is, so the caller can look values up.
enum class ValueKind { none, file, context, namespace_name, node, finding_code, choice };

// Looks up candidate values of a kind (contexts from the kubeconfig, namespaces and nodes from
// the cluster). Returns nothing on any error: completion is silent.
using ValueLookup = std::function<std::vector<std::string>(ValueKind)>;

struct Completion {
  std::vector<std::string> candidates; // "value" or "value\tdescription", filtered by prefix
  int directive = k_directive_default;
};

// The values a user types after a flag whose set is fixed by the program: --fail-on's
// severities, completion's shells, and any option described as "Output format: a, b or c"
// (read from the description, so each command's -o offers its own formats). Empty otherwise.
std::vector<std::string> fixed_choices(const CLI::Option& option);

// The kind of value an option (or positional) takes, from its name.
ValueKind value_kind_of(const CLI::Option& option);

// Completes `current` after `words` (the arguments before it, without the program name) by
// walking root's subcommands and options. Pure but for `lookup`, called at most once.
Completion complete_words(const CLI::App& root, const std::vector<std::string>& words,
                          const std::string& current, const ValueLookup& lookup);

// The option values given in `words` (after the program name), as "--long" → value, for
// options of the root app (the global connection flags), so lookups use the same cluster.
std::vector<std::pair<const CLI::Option*, std::string>>
root_option_values(const CLI::App& root, const std::vector<std::string>& words);

// True when argv asks for completions: argv[0] is kubectl_complete-gpuslice (kubectl's
// plugin completion executable) or argv[1] is "__complete" (the shell scripts).
bool is_completion_request(int argc, const char* const* argv);

// Answers a completion request on env.out; always exit 0, errors are silent.
ExitCode run_completion_request(int argc, const char* const* argv, Env& env);

// The script for `completion bash|zsh|fish`; the program name is the command it completes.
std::string completion_script(const std::string& shell, const std::string& command);

// The closest of `names` to `typed` (edit distance at most a third of its length, at least 1,
// or a unique prefix), or "" when nothing is close.
std::string nearest_name(const std::string& typed, const std::vector<std::string>& names);

// The names of root's visible subcommands.
std::vector<std::string> subcommand_names(const CLI::App& app);

// "Did you mean 'diagnose'?" for a mistyped first subcommand in argv, else "".
std::string subcommand_suggestion(const CLI::App& root, int argc, const char* const* argv);

} // namespace gpuslice::cli
