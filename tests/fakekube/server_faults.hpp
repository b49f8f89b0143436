// SPDX-License-Identifier: Apache-2.0
// Which transport fault, if any, hits the Nth request, and the answers faults produce.
#pragma once

#include <fakekube/api.hpp>
#include <fakekube/server.hpp>

namespace fakekube {

enum class FaultAction { none, too_many_requests, server_error, cut_off_body };

// The fault for request number `n` (1-based). When several are due on the same request the
// earliest in the pipeline wins: 429 (priority and fairness), then 5xx, then a cut-off body.
FaultAction fault_for(const TransportFaults& faults, long n);

// APF's plain-text 429 with Retry-After (not a Status: see priority-and-fairness.go).
ApiResponse too_many_requests_response(const TransportFaults& faults);

// A Status 500 InternalError, or 503 ServiceUnavailable when configured.
ApiResponse server_error_response(const TransportFaults& faults);

} // namespace fakekube
