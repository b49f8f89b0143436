// SPDX-License-Identifier: Apache-2.0
#include "cli/snapshot_source.hpp"

#include <mutex>

#include <fmt/format.h>

#include <gpuslice/collect.hpp>

#include "cli/progress.hpp"

namespace gpuslice::cli {

collect::Scope live_scope(bool all_namespaces, const GlobalFlags& global) {
  collect::Scope scope;
  if (!all_namespaces && !global.kube.namespace_name.empty()) {
    scope.namespace_name = global.kube.namespace_name;
  }
  return scope;
}

Snapshot read_snapshot(const std::vector<std::string>& from_files, bool all_namespaces,
                       const GlobalFlags& global, Env& env) {
  if (!from_files.empty()) {
    return collect::load_snapshot_files(from_files);
  }
  std::unique_ptr<kube::Client> client = open_client(global, env.err);
  collect::Scope scope = live_scope(all_namespaces, global);
  // -v logs go to stderr too: a progress line would be torn by them.
  Progress progress(env, global);
  std::mutex progress_mutex;
  if (progress.active() && global.kube.verbosity == 0) {
    scope.on_page = [&](const collect::PageRead& read) {
      const std::lock_guard lock(progress_mutex);
      progress.update(fmt::format("reading {}: page {}, {} items", read.what, read.page, read.items));
    };
  }
  Snapshot snapshot = collect::collect(*client, scope);
  progress.clear();
  return snapshot;
}

} // namespace gpuslice::cli
