// SPDX-License-Identifier: Apache-2.0
#include "server_faults.hpp"

#include <string>

#include "server_response.hpp"

namespace fakekube {
namespace {

bool due(int every_nth, long n) { return every_nth > 0 && n % every_nth == 0; }

} // namespace

FaultAction fault_for(const TransportFaults& faults, long n) {
  if (due(faults.too_many_every_nth, n)) return FaultAction::too_many_requests;
  if (due(faults.server_error_every_nth, n)) return FaultAction::server_error;
  if (due(faults.drop_mid_body_every_nth, n)) return FaultAction::cut_off_body;
  return FaultAction::none;
}

ApiResponse too_many_requests_response(const TransportFaults& faults) {
  ApiResponse response;
  response.status = 429;
  response.content_type = "text/plain; charset=utf-8";
  response.body = "Too many requests, please try again later.\n";
  response.headers.emplace_back("Retry-After", std::to_string(faults.retry_after_seconds));
  return response;
}

ApiResponse server_error_response(const TransportFaults& faults) {
  ApiResponse response;
  if (faults.server_error_is_503) {
    response.status = 503;
    response.body = status_body(503, "ServiceUnavailable",
                                "the server is currently unable to handle the request");
  } else {
    response.status = 500;
    response.body = status_body(500, "InternalError",
                                "Internal error occurred: fakekube injected a server error");
  }
  return response;
}

} // namespace fakekube
