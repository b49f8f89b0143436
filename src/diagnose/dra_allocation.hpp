// SPDX-License-Identifier: Apache-2.0
// The claims a pending pod waits on and why the scheduler's DRA allocator cannot satisfy them,
// replayed on the snapshot: each pod claim resolved to its ResourceClaim (by name, or made from
// a template), each request of an unallocated claim checked per node against the devices its
// ResourceSlices publish, minus those already allocated to other claims.
#pragma once

#include <string>
#include <vector>

#include <gpuslice/model.hpp>
#include <gpuslice/snapshot.hpp>

namespace gpuslice::diagnose {

// A pod claim whose ResourceClaim does not exist (yet).
struct MissingClaim {
  std::string pod_claim;      // spec.resourceClaims[].name
  std::string claim;          // the ResourceClaim's name, "" when none was made from the template
  std::string template_name;  // resourceClaimTemplateName, "" for a claim named directly
  bool template_missing = false;
};

// One node's devices for one way of satisfying a request.
struct NodeDevices {
  std::string node;
  int devices = 0;   // devices of the node's slices (of any driver)
  int matching = 0;  // devices the class and request selectors select
  int free = 0;      // matching and allocated to no claim
  std::vector<std::string> held_by;  // ns/name of claims holding matching devices here
  bool cel_error = false;  // a selector fails at run time on a device here: the allocator gives up on the node
};

// One request (or firstAvailable alternative) of an unallocated claim, checked on every node.
struct RequestCheck {
  std::string claim;         // ns/name
  std::string request;       // "gpu", or "gpu/large" for a firstAvailable alternative
  std::string device_class;
  bool class_missing = false;
  bool all = false;          // allocationMode All
  long long count = 1;       // ExactCount
  std::string unsupported;   // a selector part beyond the CEL evaluator: the counts are not decisive
  std::string cel_error;     // the first selector runtime error on some device, for evidence
  std::vector<NodeDevices> nodes;  // nodes with at least one slice, by name
  // Nodes where the request can be satisfied by free devices.
  int nodes_with_room() const;
};

struct PodClaims {
  const model::Pod* pod = nullptr;
  std::vector<MissingClaim> missing;
  // Per unallocated claim request: its alternatives (one entry for an `exactly` request).
  std::vector<std::vector<RequestCheck>> requests;
};

// Pods not yet scheduled that use ResourceClaims, by ns/name, with what stands in their way.
std::vector<PodClaims> check_pending_claims(const Snapshot& snapshot);

// The requests of a claim (ns/name, made or to be made) replayed on every node as
// check_pending_claims does: per request, its alternatives.
std::vector<std::vector<RequestCheck>> replay_requests(const Snapshot& snapshot, const std::string& claim,
                                                       const std::vector<model::DeviceRequest>& requests);

// The snapshot's node of that name, nullptr when there is none.
const model::Node* node_named(const Snapshot& snapshot, const std::string& name);

// The request can be satisfied on some node by one of its alternatives, or the evaluator could
// not tell. A node where a selector fails at run time has no room (the allocator gives up there).
bool request_fits_somewhere(const std::vector<RequestCheck>& alternatives);

} // namespace gpuslice::diagnose
