// SPDX-License-Identifier: Apache-2.0
#include "cli/snapshot_source.hpp"

#include <gpuslice/collect.hpp>

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
  return collect::collect(*client, live_scope(all_namespaces, global));
}

} // namespace gpuslice::cli
