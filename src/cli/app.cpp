// SPDX-License-Identifier: Apache-2.0
#include "cli/app.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <gpuslice/version.hpp>

#include "cli/commands.hpp"
#include "cli/completion.hpp"

namespace gpuslice::cli {

std::string program_name(const std::string& argv0) {
  const std::string base = argv0.substr(argv0.find_last_of('/') + 1);
  if (base.rfind("kubectl-", 0) == 0) {
    return "kubectl " + base.substr(8);
  }
  return base.empty() ? "kubectl-gpuslice" : base;
}

void build_app(CLI::App& app, Commands& commands, Env& env) {
  app.name(env.program);
  app.description("Explain why GPU pods are Pending, and enable NVIDIA GPU time-slicing.");
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string(k_version));
  add_global_flags(app, commands.global); // first: subcommands inherit fallthrough
  add_commands(app, commands, env);
}

ExitCode run(int argc, const char* const* argv, Env& env) {
  if (is_completion_request(argc, argv)) return run_completion_request(argc, argv, env);
  CLI::App app;
  Commands commands;
  build_app(app, commands, env);
  try {
    const std::vector<std::string> args = split_short_equals(argc, argv);
    std::vector<const char*> arg_pointers;
    for (const std::string& arg : args) {
      arg_pointers.push_back(arg.c_str());
    }
    app.parse(static_cast<int>(arg_pointers.size()), arg_pointers.data());
    return commands.run();
  } catch (const CLI::CallForHelp&) {
    env.out << app.help();
    return ExitCode::ok;
  } catch (const CLI::CallForAllHelp&) {
    env.out << app.help("", CLI::AppFormatMode::All);
    return ExitCode::ok;
  } catch (const CLI::CallForVersion&) {
    env.out << k_version << "\n";
    return ExitCode::ok;
  } catch (const CLI::ParseError& e) {
    env.err << fmt::format("{}: error: {}\n", env.program, e.what());
    if (const std::string hint = subcommand_suggestion(app, argc, argv); !hint.empty()) env.err << hint << "\n";
    env.err << fmt::format("Run '{} --help' for usage.\n", env.program);
    return ExitCode::usage;
  } catch (const UsageError& e) {
    env.err << fmt::format("{}: error: {}\n", env.program, e.what());
    return ExitCode::usage;
  } catch (const ApplyIncomplete& e) {
    env.err << fmt::format("{}: error: {}\n", env.program, e.what());
    env.err << fmt::format("To restore the cluster, run: {} undo --journal {}\n", env.program,
                           e.journal_path);
    return ExitCode::incomplete;
  } catch (const std::exception& e) {
    env.err << fmt::format("{}: error: {}\n", env.program, e.what());
    return ExitCode::runtime;
  }
}

} // namespace gpuslice::cli
