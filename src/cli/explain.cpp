// SPDX-License-Identifier: Apache-2.0
// `explain GS300`: a finding code's catalog entry — what it means, why it matters, how to fix
// it and the reference it rests on. Without a code, the whole catalog as a table.
#include <cctype>

#include <fmt/format.h>

#include <gpuslice/diagnose.hpp>
#include <gpuslice/report.hpp>

#include "cli/commands.hpp"
#include "cli/completion.hpp"

namespace gpuslice::cli {

namespace {

// Word-wraps text at `width` columns, each line indented by `indent`.
std::string wrap_explanation(std::string_view text, std::size_t width, const std::string& indent) {
  std::string out;
  std::string line;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find(' ', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view word = text.substr(start, end - start);
    if (!line.empty() && indent.size() + line.size() + 1 + word.size() > width) {
      out += indent + line + "\n";
      line.clear();
    }
    if (!line.empty()) line += ' ';
    line += word;
    start = end + 1;
  }
  if (!line.empty()) out += indent + line + "\n";
  return out;
}

std::string render_explanation(const diagnose::CatalogEntry& e) {
  constexpr std::size_t k_width = 90;
  std::string out = fmt::format("{} {} ({})\n\n", diagnose::to_string(e.code), e.name, diagnose::to_string(e.severity));
  out += "What it means\n" + wrap_explanation(fmt::format("Fires when {}.", e.summary), k_width, "  ");
  out += "\nWhy it matters\n" + wrap_explanation(e.why, k_width, "  ");
  out += "\nHow to fix it\n" + wrap_explanation(e.fix, k_width, "  ");
  out += "\nReference\n" + wrap_explanation(e.reference, k_width, "  ");
  return out;
}

std::string render_catalog_table(const report::Style& style) {
  report::TextTable table({"CODE", "SEVERITY", "NAME", "FIRES WHEN"});
  for (const diagnose::CatalogEntry& e : diagnose::catalog()) {
    table.add_row({diagnose::to_string(e.code), std::string(diagnose::to_string(e.severity)), std::string(e.name),
                   std::string(e.summary)});
  }
  return table.render(style);
}

ExitCode run_explain(const std::string& code, Env& env) {
  if (code.empty()) {
    env.out << render_catalog_table(report::Style{false, env.out_width});
    return ExitCode::ok;
  }
  const std::optional<diagnose::FindingCode> parsed = diagnose::parse_finding_code(code);
  if (!parsed) {
    std::vector<std::string> codes;
    for (const diagnose::CatalogEntry& e : diagnose::catalog()) codes.push_back(diagnose::to_string(e.code));
    std::string upper = code;
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    const std::string near = nearest_name(upper, codes);
    throw UsageError(fmt::format("explain \"{}\": no such finding code{}; '{} explain' lists them all", code,
                                 near.empty() ? "" : fmt::format(" (did you mean {}?)", near), env.program));
  }
  env.out << render_explanation(diagnose::catalog_entry(*parsed));
  return ExitCode::ok;
}

} // namespace

void add_explain(CLI::App& app, Commands& commands, Env& env) {
  CLI::App* sub = app.add_subcommand(
      "explain", "Explain a finding code: what it means, why it matters, how to fix it, and its reference.");
  sub->footer(fmt::format("Examples:\n"
                          "  # What does GS300 mean, and what do I do about it?\n"
                          "  {0} explain GS300\n\n"
                          "  # Every finding code, its default severity and when it fires\n"
                          "  {0} explain",
                          env.program));
  auto code = std::make_shared<std::string>();
  sub->add_option("code", *code, "A finding code such as GS300 (case-insensitive); none lists the catalog");
  sub->callback([&commands, &env, code] {
    commands.chosen = [&env, code] { return run_explain(*code, env); };
  });
}

} // namespace gpuslice::cli
