// SPDX-License-Identifier: Apache-2.0
// Writing fakekube answers onto httplib responses: whole bodies (gzip above 128 KiB, as the
// real server does), bodies cut off mid-way, watch streams, and Status errors.
#pragma once

#include <memory>
#include <string>

#include <httplib.h>

#include <fakekube/api.hpp>

namespace fakekube {

// The apiserver compresses only bodies larger than this (responsewriters/writers.go).
inline constexpr std::size_t k_gzip_threshold = 128 * 1024;

// A metav1.Status failure body.
std::string status_body(int code, const std::string& reason, const std::string& message);

// The UIDs fakekube's one FlowSchema and priority level report (made up, stable per build).
inline constexpr const char* k_flow_schema_uid = "5f1c0a52-7e1d-4b8e-9a3c-2d6f0e4b7a11";
inline constexpr const char* k_priority_level_uid = "8b2e4d90-3c5a-4f17-b6d8-1a9e7c0f3e22";

// Adds the X-Kubernetes-PF-FlowSchema-UID and X-Kubernetes-PF-PriorityLevel-UID headers a
// server enforcing API Priority and Fairness sends on every response it classified.
void add_priority_and_fairness_headers(ApiResponse& answer);

// Copies status, headers and body; gzips when `accepts_gzip` and the body is large.
void write_whole(const ApiResponse& answer, bool accepts_gzip, httplib::Response& response);

// Promises the full Content-Length but sends only the first half, then closes the connection.
void write_cut_off(const ApiResponse& answer, httplib::Response& response);

// Streams the watch's event lines with chunked encoding until it finishes, the server stops
// or the client goes away.
void write_watch(const ApiResponse& answer, std::shared_ptr<WatchStream> stream,
                 httplib::Response& response);

// gzip (RFC 1952) of `data`. Throws std::runtime_error if zlib fails.
std::string gzip(const std::string& data);

} // namespace fakekube
