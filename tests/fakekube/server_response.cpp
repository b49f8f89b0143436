// SPDX-License-Identifier: Apache-2.0
#include "server_response.hpp"

#include <chrono>
#include <stdexcept>

#include <zlib.h>

#include <nlohmann/json.hpp>

namespace fakekube {

std::string status_body(int code, const std::string& reason, const std::string& message) {
  nlohmann::json status = {{"kind", "Status"},     {"apiVersion", "v1"},
                           {"metadata", nlohmann::json::object()},
                           {"status", "Failure"},  {"message", message},
                           {"reason", reason},     {"code", code}};
  return status.dump();
}

std::string gzip(const std::string& data) {
  z_stream stream{};
  // windowBits 15 + 16 selects the gzip wrapper rather than zlib's.
  if (deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
      Z_OK)
    throw std::runtime_error("fakekube: deflateInit2 failed");
  std::string out(deflateBound(&stream, data.size()), '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  stream.avail_in = static_cast<uInt>(data.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  int result = deflate(&stream, Z_FINISH);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  if (result != Z_STREAM_END) throw std::runtime_error("fakekube: gzip failed");
  return out;
}

void add_priority_and_fairness_headers(ApiResponse& answer) {
  answer.headers.emplace_back("X-Kubernetes-PF-FlowSchema-UID", k_flow_schema_uid);
  answer.headers.emplace_back("X-Kubernetes-PF-PriorityLevel-UID", k_priority_level_uid);
}

void write_whole(const ApiResponse& answer, bool accepts_gzip, httplib::Response& response) {
  response.status = answer.status;
  for (const auto& [name, value] : answer.headers) response.set_header(name, value);
  if (accepts_gzip && answer.body.size() > k_gzip_threshold) {
    response.set_header("Content-Encoding", "gzip");
    response.set_content(gzip(answer.body), answer.content_type);
  } else {
    response.set_content(answer.body, answer.content_type);
  }
}

void write_cut_off(const ApiResponse& answer, httplib::Response& response) {
  response.status = answer.status;
  for (const auto& [name, value] : answer.headers) response.set_header(name, value);
  std::string body = answer.body.empty() ? std::string(64, ' ') : answer.body;
  std::size_t promised = body.size() + 1; // even a 1-byte body is then visibly short
  response.set_content_provider(
      promised, answer.content_type,
      [body](std::size_t offset, std::size_t, httplib::DataSink& sink) {
        if (offset == 0) sink.write(body.data(), body.size() / 2);
        return false; // httplib drops the connection when a provider gives up
      });
}

void write_watch(const ApiResponse& answer, std::shared_ptr<WatchStream> stream,
                 httplib::Response& response) {
  response.status = answer.status;
  for (const auto& [name, value] : answer.headers) response.set_header(name, value);
  response.set_chunked_content_provider(
      answer.content_type, [stream](std::size_t, httplib::DataSink& sink) {
        // Short waits let httplib notice a server stop between calls.
        std::optional<std::string> line = stream->next(std::chrono::milliseconds(200));
        if (line) {
          if (!sink.is_writable()) return false;
          return sink.write(line->data(), line->size());
        }
        if (stream->finished()) sink.done();
        return true;
      });
}

} // namespace fakekube
