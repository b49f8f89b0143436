// SPDX-License-Identifier: Apache-2.0
// `plugin install` and `plugin uninstall`: the device-plugin steps as their own subcommands.
#include <cstdlib>
#include <filesystem>

#include <spawn.h>
#include <sys/wait.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/apply_run.hpp"
#include "cli/step_flags.hpp"

extern char** environ;

namespace gpuslice::cli {

namespace {

struct PluginInstallCommand {
  remedy::ConfigApplyOptions config;
  PluginFlags plugin;
  RemedyFlags remedy;
};

struct PluginUninstallCommand {
  RemedyFlags remedy;
};

} // namespace

bool helm_on_path() {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return false;
  std::string dirs(path);
  for (std::size_t start = 0; start <= dirs.size();) {
    const std::size_t end = std::min(dirs.find(':', start), dirs.size());
    const std::filesystem::path candidate = std::filesystem::path(dirs.substr(start, end - start)) / "helm";
    if (::access(candidate.c_str(), X_OK) == 0) return true;
    start = end + 1;
  }
  return false;
}

void run_helm(std::vector<std::string> argv, const GlobalFlags& global, Env& env) {
  if (argv.empty()) return;
  // helm reads $KUBECONFIG and its current context by itself; flags given to us must reach it,
  // or it would install into whatever cluster the kubeconfig points at by default.
  if (!global.kube.kubeconfig.empty()) argv.insert(argv.end(), {"--kubeconfig", global.kube.kubeconfig});
  if (!global.kube.context.empty()) argv.insert(argv.end(), {"--kube-context", global.kube.context});
  env.err << "Running: " << fmt::format("{}", fmt::join(argv, " ")) << "\n";
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  if (::posix_spawnp(&pid, args[0], nullptr, nullptr, args.data(), environ) != 0)
    throw RuntimeError("helm: cannot be started (is it on PATH?)");
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw RuntimeError("helm: lost track of the process");
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw RuntimeError(fmt::format("helm upgrade --install failed (exit {})", WIFEXITED(status) ? WEXITSTATUS(status) : -1));
}

void add_plugin_commands(CLI::App& app, Commands& commands, Env& env) {
  CLI::App* plugin = app.add_subcommand("plugin", "The NVIDIA device plugin: install it wired to the config, or uninstall it.");
  plugin->require_subcommand(1);

  CLI::App* install = plugin->add_subcommand(
      "install", "Make the device plugin read the time-slicing config: re-point it, patch the ClusterPolicy, or install it.");
  install->footer(fmt::format("Examples:\n"
                              "  # Re-point the installed plugin (or install one) at 4 replicas, shown as a diff\n"
                              "  {0} plugin install --replicas 4 --dry-run=client\n\n"
                              "  # Replace an eksctl/Helm plugin by a native install of a pinned version\n"
                              "  {0} plugin install --replicas 4 --strategy replace --plugin-version v0.20.0 --yes\n\n"
                              "  # Install with the helm CLI and the corrected chart name and values\n"
                              "  {0} plugin install --replicas 4 --installer helm --yes",
                              env.program));
  auto install_options = std::make_shared<PluginInstallCommand>();
  add_config_flags(*install, install_options->config);
  add_plugin_flags(*install, install_options->plugin);
  add_remedy_flags(*install, install_options->remedy);
  install->callback([&commands, &env, install_options] {
    commands.chosen = [&commands, &env, install_options] {
      auto run = std::make_shared<PluginInstallCommand>(*install_options);
      load_config_file(run->config);
      validate_config_flags(run->config);
      const remedy::PluginStepOptions options = resolve_plugin_flags(run->plugin);
      if (options.helm_installer && parse_dry_run(run->remedy.dry_run) == remedy::DryRun::none && !helm_on_path())
        throw RuntimeError("--installer helm: no helm on PATH; nothing was changed");
      return run_remedy(
          "plugin install", run->remedy, commands.global, env,
          [run, options](const Snapshot& s) {
            return plugin_step_plan(s, run->config.replicas, [&] { return remedy::plan_plugin_install(s, run->config, options); });
          },
          [run](kube::Client& client, Snapshot& s) { remedy::read_config_target(client, s, run->config); }, nullptr,
          [run, options, &commands, &env](const Snapshot& s) {
            run_helm(remedy::helm_install_argv(s, run->config, options), commands.global, env);
          });
    };
  });

  CLI::App* uninstall = plugin->add_subcommand(
      "uninstall", "Remove the device plugin the way it was installed (Helm release, static DaemonSet); journaled for undo.");
  uninstall->footer(fmt::format("Examples:\n"
                                "  # What would be deleted, in Helm's uninstall order\n"
                                "  {0} plugin uninstall --dry-run=client\n\n"
                                "  # Remove it (undo re-creates everything from the journal)\n"
                                "  {0} plugin uninstall --yes",
                                env.program));
  auto uninstall_options = std::make_shared<PluginUninstallCommand>();
  add_remedy_flags(*uninstall, uninstall_options->remedy);
  uninstall->callback([&commands, &env, uninstall_options] {
    commands.chosen = [&commands, &env, uninstall_options] {
      return run_remedy("plugin uninstall", uninstall_options->remedy, commands.global, env,
                        [](const Snapshot& s) {
                          return plugin_step_plan(s, 0, [&] { return remedy::plan_plugin_uninstall(s); });
                        });
    };
  });
}

} // namespace gpuslice::cli
