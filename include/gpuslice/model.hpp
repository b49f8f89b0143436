// SPDX-License-Identifier: Apache-2.0
// The model room's door: read-only typed views over Kubernetes API objects (compact structs
// filled from JSON with defaults, unknown fields ignored), quantities, selectors, taints and
// the GPU catalog. Everything here is pure: no I/O.
#pragma once

#include <gpuslice/model/addons.hpp>
#include <gpuslice/model/config.hpp>
#include <gpuslice/model/dra.hpp>
#include <gpuslice/model/event.hpp>
#include <gpuslice/model/gpu.hpp>
#include <gpuslice/model/labels.hpp>
#include <gpuslice/model/meta.hpp>
#include <gpuslice/model/node.hpp>
#include <gpuslice/model/pod.hpp>
#include <gpuslice/model/quantity.hpp>
#include <gpuslice/model/taints.hpp>
#include <gpuslice/model/workload.hpp>
