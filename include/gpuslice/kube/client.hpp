// SPDX-License-Identifier: Apache-2.0
// The REST client: typed verbs over any group/version/resource, paging streamed to a callback,
// watch, retries, client-side rate limiting, -v logging. Thread-safe: the collectors call it
// from many threads (or through parallel()), each request borrowing one pooled connection.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include <gpuslice/kube/config.hpp>
#include <gpuslice/kube/seams.hpp>
#include <gpuslice/kube/task_queue.hpp>

namespace gpuslice::kube {

// A resource type: group "" is the core group (/api/v1).
struct ResourceRef {
  std::string group;
  std::string version;
  std::string resource; // plural, e.g. "pods", "daemonsets"
  bool namespaced = true;
};

// One object (or a subresource of it).
struct ObjectRef {
  ResourceRef type;
  std::string namespace_name;
  std::string name;
  std::string subresource; // e.g. "status"
};

// The URL path of a collection ("" namespace = all namespaces / cluster scope) or an object.
std::string collection_path(const ResourceRef& type, const std::string& namespace_name);
std::string object_path(const ObjectRef& ref);

struct ListOptions {
  std::string namespace_name; // "" = all namespaces
  std::string label_selector;
  std::string field_selector;
  std::int64_t limit = 500; // page size (kubectl's --chunk-size); 0 = one unpaged list
  std::string resource_version;
};

// One page of a list, as the server sent it (a kind: XList JSON body).
struct ListPage {
  std::string_view body;
  int index = 0;          // 0 for the first page (of each restart)
  bool restarted = false; // true on the first page after a 410 Expired: drop earlier pages
  bool last = false;      // no page follows (the server gave no continue token)
};
using PageCallback = std::function<void(const ListPage&)>;

struct WriteOptions {
  bool dry_run = false;    // ?dryRun=All
  std::string field_manager; // empty = "kubectl-gpuslice"
  bool force = false;        // server-side apply only
};

enum class PatchType { json, merge, strategic, apply };

struct DeleteOptions {
  bool dry_run = false;
  std::string propagation_policy; // Foreground | Background | Orphan; "" = server default
  std::optional<int> grace_period_seconds;
};

struct WatchOptions {
  std::string namespace_name;
  std::string label_selector;
  std::string field_selector;
  std::string resource_version;
  int timeout_seconds = 0; // 0 = server default
  bool allow_bookmarks = false;
};

struct WatchEvent {
  std::string type; // ADDED MODIFIED DELETED BOOKMARK ERROR
  nlohmann::json object;
};
// Return false to stop watching.
using WatchCallback = std::function<bool(const WatchEvent&)>;

// GETs have a bucket of their own, at kubectl's discovery limits (50 QPS, burst 300): a
// diagnosis is a few hundred small reads at cluster scale, and reads cost the server no etcd
// write or watch fan-out. API Priority and Fairness on the server is what protects it; its
// 429s are retried with their Retry-After. Once a response shows the server enforces APF
// (X-Kubernetes-PF-* headers), the read limit is lifted altogether, as SIG API Machinery
// intends (kubernetes#111880), unless read_limit_yields_to_apf is false. Writes keep
// k_default_qps / k_default_burst whatever the server does.
inline constexpr double k_default_read_qps = 50.0;
inline constexpr int k_default_read_burst = 300;

struct ClientOptions {
  int verbosity = 0;          // -v: 6 request lines, 7 request headers, 8 bodies (1024 chars)
  std::ostream* log = nullptr; // where -v logs go (stderr); nullptr = nowhere
  double qps = k_default_qps;  // writes (and everything but GET); < 0 disables rate limiting
  int burst = k_default_burst;
  double read_qps = k_default_read_qps; // GETs: reads, lists, watches, discovery
  int read_burst = k_default_read_burst;
  bool read_limit_yields_to_apf = true; // false: the read limit holds even under server APF
  int max_parallel = 8;        // parallel(): requests in flight at once
  int max_retries = 10;        // as client-go
  std::chrono::seconds max_retry_after{10}; // a longer Retry-After is capped to this
  std::string user_agent;      // empty = kubectl-gpuslice/<version> (linux/amd64)
  Clock* clock = nullptr;      // nullptr = system
  ProcessRunner* processes = nullptr; // exec plugins; nullptr = system
  FileReader* files = nullptr; // token files; nullptr = system
  bool stdin_is_tty = false;   // exec interactiveMode decisions
};

class Client {
public:
  // Throws UsageError for configurations no request can use (http:// with credentials, both
  // CA and insecure, unknown exec apiVersion).
  Client(ClusterEndpoint endpoint, ClientOptions options = {});
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  const ClusterEndpoint& endpoint() const;

  // GET an object; throws ApiError (is_not_found() for 404).
  nlohmann::json get(const ObjectRef& ref);
  // GET any path (e.g. "/version"); returns the body.
  std::string get_raw(const std::string& path);
  // The server's /version gitVersion, e.g. "v1.30.4".
  std::string server_version();

  // Lists page by page (limit/continue), calling on_page for each page as it arrives, so a
  // huge list never sits in memory whole. A 410 Expired continue token restarts the list
  // (page.restarted), and if that expires too, falls back to one unpaged list, as client-go's
  // pager does.
  void list(const ResourceRef& type, const ListOptions& options, const PageCallback& on_page);
  // Convenience for small lists: every page's items in one array.
  nlohmann::json list_items(const ResourceRef& type, const ListOptions& options);

  nlohmann::json create(const ResourceRef& type, const std::string& namespace_name,
                        const nlohmann::json& object, const WriteOptions& options = {});
  // PUT; the object's metadata.resourceVersion makes it conditional (409 on a stale one).
  nlohmann::json update(const ObjectRef& ref, const nlohmann::json& object,
                        const WriteOptions& options = {});
  // PATCH with the given type; apply adds fieldManager (default kubectl-gpuslice).
  nlohmann::json patch(const ObjectRef& ref, PatchType type, const std::string& body,
                       const WriteOptions& options = {});
  // DELETE; returns the server's answer (a Status or the object being deleted).
  nlohmann::json remove(const ObjectRef& ref, const DeleteOptions& options = {});

  // Streams watch events until on_event returns false, the server ends the stream, or an
  // ERROR event arrives (delivered, then the watch stops).
  void watch(const ResourceRef& type, const WatchOptions& options, const WatchCallback& on_event);

  // Runs tasks with at most options.max_parallel at once; waits for all; rethrows the first
  // failure (by task order) after every task has finished.
  void parallel(const std::vector<std::function<void()>>& tasks);
  // Runs the tasks `seed` submits and those they submit in turn (a read queued the moment the
  // read it depends on is in), at most options.max_parallel at once; see run_task_queue. After
  // a failure no queued task starts; the first failure by submission order is rethrown.
  void run_queue(const std::function<void(TaskQueue&)>& seed);

  struct Impl;

private:
  std::unique_ptr<Impl> m_impl;
};

// "kubectl-gpuslice/<version> (linux/amd64)".
std::string default_user_agent();

} // namespace gpuslice::kube
