// SPDX-License-Identifier: Apache-2.0
// The kube room's door: kubeconfig and credentials (config.hpp), the REST client (client.hpp),
// its error type (api_error.hpp) and the seams tests substitute (seams.hpp).
#pragma once

#include <gpuslice/kube/api_error.hpp>
#include <gpuslice/kube/client.hpp>
#include <gpuslice/kube/config.hpp>
#include <gpuslice/kube/seams.hpp>
