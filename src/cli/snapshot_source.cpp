// SPDX-License-Identifier: Apache-2.0
#include "cli/snapshot_source.hpp"

#include <gpuslice/collect.hpp>

namespace gpuslice::cli {

Snapshot read_snapshot(const std::vector<std::string>& from_files, bool all_namespaces,
                       const GlobalFlags& global, Env& env) {
  if (!from_files.empty()) {
    return collect::load_snapshot_files(from_files);
  }
  std::unique_ptr<kube::Client> client = open_client(global, env.err);
  collect::Scope scope;
  if (!all_namespaces && !global.kube.namespace_name.empty()) {
    scope.namespace_name = global.kube.namespace_name;
  }
  return collect::collect(*client, scope);
}

} // namespace gpuslice::cli
