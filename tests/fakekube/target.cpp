// SPDX-License-Identifier: Apache-2.0
#include "target.hpp"

#include <vector>

#include "status_errors.hpp"

namespace fakekube {
namespace {

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start < path.size()) {
    std::size_t slash = path.find('/', start);
    if (slash == std::string::npos) {
      slash = path.size();
    }
    if (slash > start) {
      parts.push_back(path.substr(start, slash - start));
    }
    start = slash + 1;
  }
  return parts;
}

} // namespace

Target parse_target(const ResourceTable& resources, const std::string& path) {
  std::vector<std::string> parts = split_path(path);
  std::string group;
  std::string version;
  std::size_t at = 0;
  if (parts.size() >= 2 && parts[0] == "api") {
    version = parts[1];
    at = 2;
  } else if (parts.size() >= 3 && parts[0] == "apis") {
    group = parts[1];
    version = parts[2];
    at = 3;
  } else {
    throw path_not_found();
  }
  std::vector<std::string> rest(parts.begin() + static_cast<std::ptrdiff_t>(at), parts.end());
  Target target;
  // namespaces/<ns>/<resource>... unless the path is the namespace object itself.
  if (rest.size() >= 3 && rest[0] == "namespaces") {
    target.ns = rest[1];
    rest.erase(rest.begin(), rest.begin() + 2);
  }
  if (rest.empty() || rest.size() > 3) {
    throw path_not_found();
  }
  target.info = resources.find(group, version, rest[0]);
  if (target.info == nullptr || (!target.ns.empty() && !target.info->namespaced)) {
    throw path_not_found();
  }
  if (rest.size() >= 2) {
    target.name = rest[1];
  }
  if (rest.size() == 3) {
    target.subresource = rest[2];
    if (!target.info->has_subresource(target.subresource)) {
      throw path_not_found();
    }
  }
  return target;
}

} // namespace fakekube
