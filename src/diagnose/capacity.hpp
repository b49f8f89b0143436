// SPDX-License-Identifier: Apache-2.0
// GPU slot arithmetic shared by the analyzers: what demand there is, how many replicas to
// recommend, and how many pending pods a given replica count would place.
#pragma once

#include "context.hpp"

namespace gpuslice::diagnose {

// NVIDIA's sample value; we never recommend fewer, so one apply leaves headroom.
inline constexpr int k_min_recommended_replicas = 4;
// Beyond this each share of even an 80 GB GPU gets little memory: say how many fit instead.
inline constexpr int k_max_recommended_replicas = 16;
// A share below this much GPU memory is a risk for typical inference containers (GS304):
// a T4 split 4 ways (3840 MiB) is below it, split 2 ways (7680 MiB) is not.
inline constexpr int k_small_share_mib = 4096;

// Physical GPUs on GPU nodes that can take pods (ready, schedulable, advertising GPUs).
int usable_physical_gpus(const Context& ctx);
// The replicas to recommend: options.replicas when set, else enough for every slot in use
// plus every pending request, at least k_min_recommended_replicas, at most the max.
int recommended_replicas(const Context& ctx);
// Pending GPU pods that would be placed if every usable GPU node offered physical × replicas
// slots: first fit, honouring selectors, affinity and taints. Pods asking for MIG slices are
// never counted (time-slicing does not create them).
int pods_that_fit(const Context& ctx, int replicas);
// Pending pods whose scheduler verdict says a GPU resource is insufficient.
std::vector<const PendingGpuPod*> pods_short_of_gpus(const Context& ctx);

} // namespace gpuslice::diagnose
