// SPDX-License-Identifier: Apache-2.0
// The completion walk: which subcommand the words select, whether the word being completed is
// a flag, a flag's value or a positional, and the candidates for it — all read from the
// CLI11 tree, so the completion follows the CLI as it grows.
#include <algorithm>

#include <gpuslice/diagnose.hpp>

#include "cli/completion.hpp"

namespace gpuslice::cli {

namespace {

bool completion_starts_with(const std::string& text, const std::string& prefix) {
  return text.rfind(prefix, 0) == 0;
}

// The visible subcommand of app named `name` (CLI11 hides those with an empty group).
const CLI::App* find_completable_subcommand(const CLI::App& app, const std::string& name) {
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (sub->check_name(name)) return sub;
  }
  return nullptr;
}

// The option a flag word names in `app` or, as CLI11's fallthrough does, in its parents.
const CLI::Option* find_completable_option(const CLI::App& app, const std::string& word) {
  for (const CLI::App* a = &app; a != nullptr; a = a->get_parent()) {
    for (const CLI::Option* opt : a->get_options([](const CLI::Option* o) { return o->nonpositional(); })) {
      if (opt->check_name(word)) return opt;
    }
  }
  return nullptr;
}

bool takes_value(const CLI::Option& option) { return option.get_type_size_max() > 0; }

// Every flag spelling usable in `app`: its own, then the inherited ones.
std::vector<std::string> flag_candidates(const CLI::App& app) {
  std::vector<std::string> out;
  for (const CLI::App* a = &app; a != nullptr; a = a->get_parent()) {
    for (const CLI::Option* opt : a->get_options([](const CLI::Option* o) { return o->nonpositional(); })) {
      const std::string description = opt->get_description();
      for (const std::string& name : opt->get_lnames()) out.push_back("--" + name + "\t" + description);
      for (const std::string& name : opt->get_snames()) out.push_back("-" + name + "\t" + description);
    }
  }
  return out;
}

// The positional that the next bare word fills, counting those already given.
const CLI::Option* next_positional(const CLI::App& app, int given) {
  for (const CLI::Option* opt : app.get_options([](const CLI::Option* o) { return o->get_positional(); })) {
    const int room = opt->get_items_expected_max();
    if (given < room) return opt;
    given -= room;
  }
  return nullptr;
}

std::vector<std::string> values_for(const CLI::Option& option, const ValueLookup& lookup) {
  const ValueKind kind = value_kind_of(option);
  if (kind == ValueKind::choice) return fixed_choices(option);
  if (kind == ValueKind::finding_code) {
    std::vector<std::string> codes;
    for (const diagnose::CatalogEntry& e : diagnose::catalog()) {
      codes.push_back(diagnose::to_string(e.code) + "\t" + std::string(e.name));
    }
    return codes;
  }
  if (kind == ValueKind::none || kind == ValueKind::file || !lookup) return {};
  return lookup(kind);
}

Completion filtered(std::vector<std::string> candidates, const std::string& current, int directive,
                    const std::string& prefix = "") {
  Completion out;
  out.directive = directive;
  for (std::string& c : candidates) {
    if (completion_starts_with(c, current)) out.candidates.push_back(prefix + c);
  }
  return out;
}

} // namespace

std::vector<std::string> fixed_choices(const CLI::Option& option) {
  const std::string option_name = option.get_name();
  const std::string description = option.get_description();
  const std::string formats_prefix = "Output format: ";
  if (completion_starts_with(description, formats_prefix)) {
    // "Output format: table, json or yaml" → table, json, yaml
    std::vector<std::string> out;
    std::string list = description.substr(formats_prefix.size());
    for (std::size_t at = list.find(" or "); at != std::string::npos; at = list.find(" or ")) list.replace(at, 4, ", ");
    for (std::size_t start = 0; start <= list.size();) {
      const std::size_t end = std::min(list.find(", ", start), list.size());
      if (end > start) out.push_back(list.substr(start, end - start));
      start = end + 2;
    }
    return out;
  }
  if (option_name == "--fail-on") {
    std::vector<std::string> out;
    for (diagnose::Severity s : {diagnose::Severity::error, diagnose::Severity::warning, diagnose::Severity::info}) {
      out.emplace_back(diagnose::to_string(s));
    }
    out.emplace_back("never");
    return out;
  }
  if (option_name == "shell") return {"bash", "zsh", "fish"};
  return {};
}

ValueKind value_kind_of(const CLI::Option& option) {
  const std::string name = option.get_name(); // "--context", or "code" for positionals
  if (name == "--context" || name == "--contexts") return ValueKind::context;
  if (name == "--namespace") return ValueKind::namespace_name;
  if (name == "--node" || name == "node" || name == "nodes") return ValueKind::node;
  if (name == "code" || name == "--ignore") return ValueKind::finding_code;
  if (!fixed_choices(option).empty()) return ValueKind::choice;
  if (name == "--kubeconfig" || name == "--from-file" || name == "--certificate-authority" ||
      name == "--client-certificate" || name == "--client-key" || name == "--journal" || name == "file") {
    return ValueKind::file;
  }
  return ValueKind::none;
}

Completion complete_words(const CLI::App& root, const std::vector<std::string>& words,
                          const std::string& current, const ValueLookup& lookup) {
  const CLI::App* app = &root;
  const CLI::Option* awaiting = nullptr; // the flag whose value the next word is
  int positionals = 0;
  bool only_positionals = false; // after "--"
  for (const std::string& word : words) {
    if (awaiting != nullptr) {
      awaiting = nullptr;
    } else if (!only_positionals && word == "--") {
      only_positionals = true;
    } else if (!only_positionals && completion_starts_with(word, "-") && word.size() > 1) {
      const std::string flag = word.substr(0, word.find('='));
      const CLI::Option* opt = find_completable_option(*app, flag);
      if (opt != nullptr && takes_value(*opt) && flag == word) awaiting = opt;
    } else if (const CLI::App* sub = positionals == 0 ? find_completable_subcommand(*app, word) : nullptr) {
      app = sub;
    } else {
      ++positionals;
    }
  }

  if (awaiting != nullptr) {
    const ValueKind kind = value_kind_of(*awaiting);
    return filtered(values_for(*awaiting, lookup), current,
                    kind == ValueKind::file ? k_directive_default : k_directive_no_file_completion);
  }
  if (!only_positionals && completion_starts_with(current, "--") && current.find('=') != std::string::npos) {
    const std::string flag = current.substr(0, current.find('='));
    const CLI::Option* opt = find_completable_option(*app, flag);
    if (opt == nullptr) return {{}, k_directive_no_file_completion};
    const ValueKind kind = value_kind_of(*opt);
    return filtered(values_for(*opt, lookup), current.substr(flag.size() + 1),
                    kind == ValueKind::file ? k_directive_default : k_directive_no_file_completion, flag + "=");
  }
  if (!only_positionals && completion_starts_with(current, "-")) {
    return filtered(flag_candidates(*app), current, k_directive_no_file_completion);
  }
  std::vector<std::string> candidates;
  if (positionals == 0) {
    for (const CLI::App* sub : app->get_subcommands([](const CLI::App* s) { return !s->get_group().empty(); })) {
      candidates.push_back(sub->get_name() + "\t" + sub->get_description());
    }
  }
  int directive = k_directive_no_file_completion;
  if (const CLI::Option* positional = next_positional(*app, positionals)) {
    const std::vector<std::string> values = values_for(*positional, lookup);
    candidates.insert(candidates.end(), values.begin(), values.end());
    if (value_kind_of(*positional) == ValueKind::file) directive = k_directive_default;
  }
  return filtered(std::move(candidates), current, directive);
}

std::vector<std::pair<const CLI::Option*, std::string>>
root_option_values(const CLI::App& root, const std::vector<std::string>& words) {
  std::vector<std::pair<const CLI::Option*, std::string>> out;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string& word = words[i];
    if (word == "--") break;
    if (!completion_starts_with(word, "-")) continue;
    const std::size_t equals = word.find('=');
    const CLI::Option* opt = find_completable_option(root, word.substr(0, equals));
    if (opt == nullptr || !takes_value(*opt)) continue;
    if (equals != std::string::npos) {
      out.emplace_back(opt, word.substr(equals + 1));
    } else if (i + 1 < words.size()) {
      out.emplace_back(opt, words[++i]);
    }
  }
  return out;
}

std::vector<std::string> subcommand_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App* s) { return !s->get_group().empty(); })) {
    names.push_back(sub->get_name());
  }
  return names;
}

} // namespace gpuslice::cli
