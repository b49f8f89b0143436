// SPDX-License-Identifier: Apache-2.0
#include "cli/commands.hpp"

namespace gpuslice::cli {

void add_commands(CLI::App& app, Commands& commands, Env& env) {
  add_diagnose(app, commands, env);
  add_snapshot(app, commands, env);
  add_status(app, commands, env);
  add_version(app, commands, env);
  add_apply(app, commands, env);
  add_steps(app, commands, env);
  add_undo(app, commands, env);
  add_verify(app, commands, env);
  add_completion(app, commands, env);
  add_explain(app, commands, env);
  add_alerts(app, commands, env);
}

} // namespace gpuslice::cli
