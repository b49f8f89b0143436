// SPDX-License-Identifier: Apache-2.0
// collect(): the live query plan as parallel reads on one queue. First the reads that need no
// other answer (nodes, pending and admission-failed pods, DaemonSets, workloads, the
// ClusterPolicy); each read that needs some of those is queued the moment they are in, while
// the rest still page: the pods on the GPU nodes as the node list's pages come in (or once it
// is read), the events about GPU nodes and pending GPU pods once both lists are, and the
// ConfigMaps and Helm releases of the GPU add-ons (and the autoscaler's status) once the
// DaemonSets, Deployments and ClusterPolicy are. Reads that begin a chain of pages go ahead of
// the short per-node lists still queued.
#include <algorithm>
#include <functional>
#include <optional>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <gpuslice/collect.hpp>
#include <gpuslice/kube/client.hpp>
#include <gpuslice/model/json_fields.hpp>

#include "collect/live_assemble.hpp"
#include "collect/live_reader.hpp"
#include "collect/live_tasks.hpp"
#include "collect/page_items.hpp"
#include "collect/query_plan.hpp"
#include "collect/recognise.hpp"
#include "collect/simdjson_access.hpp"
#include "model/decode.hpp"
#include "model/decode_dra.hpp"

namespace gpuslice::collect {
namespace {

using model::json_fields::object_at;
using model::json_fields::string_at;

using NamespacedName = std::pair<std::string, std::string>;
using Item = simdjson::dom::element;
using Turn = LiveParts::Turn;

// What every item of a list is kept for: the typed records of a Snapshot.
constexpr auto k_keep_all = [](const auto&) { return true; };

// decode::workload with the kind the List's items leave off.
auto decode_workload(std::string_view kind) {
  return [kind](Item item) { return model::decode::workload(item, kind); };
}

// The plan's stages, in the order their parts are assembled (as the rounds were before reads
// overlapped: an object read twice keeps its first stage's copy).
namespace stage {
enum : int { first, pods_on_gpu_nodes, events, addon_configs };
}

// The distinct node names: a node listed twice counts once, as assemble() keeps it once.
std::size_t distinct_nodes(const std::vector<model::Node>& nodes) {
  std::vector<std::string_view> names;
  names.reserve(nodes.size());
  for (const model::Node& node : nodes) names.push_back(node.name());
  std::sort(names.begin(), names.end());
  return static_cast<std::size_t>(std::unique(names.begin(), names.end()) - names.begin());
}

// The cluster-autoscaler writes its status to <its namespace>/cluster-autoscaler-status unless
// --status-config-map-name says otherwise.
NamespacedName autoscaler_status_ref(const std::vector<model::Workload>& deployments) {
  for (const model::Workload& w : deployments) {
    if (!is_cluster_autoscaler(w)) continue;
    std::string name(k_autoscaler_status_name);
    for (const model::Container& c : w.pod_template.spec.containers)
      for (const auto* args : {&c.command, &c.args})
        for (const std::string& arg : *args)
          if (arg.starts_with("--status-config-map-name=")) name = arg.substr(arg.find('=') + 1);
    return {w.meta.ns, name};
  }
  return {"kube-system", std::string(k_autoscaler_status_name)};
}

class LiveCollection {
public:
  LiveCollection(kube::Client& client, const Scope& scope) : m_client(client), m_scope(scope), m_reader(client, scope.page_size, scope.on_page) {}

  Snapshot run() {
    m_client.run_queue([this](kube::TaskQueue& queue) {
      m_parts.start(queue);
      add_first_reads();
    });
    std::vector<Snapshot> parts = m_parts.take();
    Snapshot snapshot = assemble(parts);
    snapshot.meta.context = m_client.endpoint().context_name;
    snapshot.meta.server = m_client.endpoint().server;
    snapshot.meta.collected_at = now_rfc3339();
    snapshot.meta.namespace_scope = m_scope.namespace_name;
    for (std::string& note : m_reader.notes()) snapshot.meta.notes.push_back(std::move(note));
    // The three event lists fail alike for a user without access to events: one note.
    std::sort(snapshot.meta.notes.begin(), snapshot.meta.notes.end());
    snapshot.meta.notes.erase(std::unique(snapshot.meta.notes.begin(), snapshot.meta.notes.end()), snapshot.meta.notes.end());
    return snapshot;
  }

private:
  kube::ListOptions in_scope(std::string field_selector = {}, std::string label_selector = {}) const {
    kube::ListOptions options;
    options.namespace_name = m_scope.namespace_name;
    options.field_selector = std::move(field_selector);
    options.label_selector = std::move(label_selector);
    return options;
  }

  // Decodes each item straight from simdjson's DOM into its typed record (decode(item)) and
  // keeps the records `keep` accepts: no JSON value outlives its item, so at L (5,000 nodes,
  // ~17,000 kept pods) only the records stay. `records` holds this list only (each task has
  // its own part), so a restarted list can start it afresh.
  template <class Record, class Decode, class Keep>
  void list_into(std::vector<Record>& records, const kube::ResourceRef& type, const kube::ListOptions& options,
                 Decode decode, Keep keep, const RawPrefilter& prefilter = {}) {
    m_reader.list_each_item(
        type, options, prefilter,
        [&](Item item) {
          Record record = decode(item);
          if (keep(record)) records.push_back(std::move(record));
        },
        [&] { records.clear(); });
  }

  // The reads that need no other answer; each passes the gates of the reads that need it.
  void add_first_reads() {
    // Every node: the scheduler's "0/N nodes" counts them all, and selectors are judged against them.
    m_events_gate.expect();
    m_parts.add(stage::first, [this](Snapshot& part) {
      NodesSoFar so_far;
      m_reader.list_each_item(
          k_nodes, {}, {}, [&](Item item) { part.nodes.push_back(model::decode::node(item)); },
          [&] {
            part.nodes.clear();
            so_far = {};
          },
          [&](bool last) {
            find_gpu_nodes(part.nodes, so_far);
            if (!last) read_pods_ahead(part.nodes.size(), so_far);
          });
      m_gpu_nodes.insert(so_far.gpu.begin(), so_far.gpu.end());
      // Events first: their lists page one after another, the per-node lists side by side.
      m_events_gate.pass();
      add_pods_on_gpu_nodes(distinct_nodes(part.nodes));
    });
    m_events_gate.expect();
    m_parts.add(stage::first, [this](Snapshot& part) {
      list_into(part.pods, k_pods, in_scope(std::string(k_pending_pods_selector)), model::decode::pod<Item>,
                [](const model::Pod& pod) { return requests_gpu(pod.spec) || !pod.spec.resource_claims.empty(); });
      for (const model::Pod& pod : part.pods) m_pending_gpu_pods.emplace(pod.meta.ns, pod.meta.name);
      m_events_gate.pass();
    });
    // Kept: GPU pods the kubelet refused at admission; no event is read about them (their
    // status says why), so the events wait for nothing here.
    m_parts.add(stage::first, [this](Snapshot& part) {
      list_into(part.pods, k_pods, in_scope(std::string(k_failed_pods_selector)), model::decode::pod<Item>,
                [](const model::Pod& pod) { return pod.failed_admission() && requests_gpu(pod.spec); });
    });
    // Add-ons live in their own namespaces whatever the scope: one list of all DaemonSets.
    m_addons.push_back(&add_addon_source([this](Snapshot& part) {
      std::vector<nlohmann::json> kept = m_reader.list(k_daemonsets, {}, [](const nlohmann::json& ds) {
        return recognise_daemonset(model::daemonset_from_json(ds)) != GpuComponent::none;
      });
      for (const nlohmann::json& ds : kept)
        for (std::string& name : configmaps_used(ds))
          m_daemonset_configmaps.emplace(string_at(object_at(ds, "metadata"), "namespace"), std::move(name));
      merge_items(part, "DaemonSet", std::move(kept));
    }));
    auto gpu_workload = [](const model::Workload& w) { return requests_gpu(w.pod_template.spec); };
    m_addons.push_back(&add_addon_source([this, gpu_workload](Snapshot& part) {
      list_into(part.deployments, k_deployments, in_scope(), decode_workload("Deployment"),
                [gpu_workload](const model::Workload& d) { return gpu_workload(d) || is_cluster_autoscaler(d); });
    }));
    m_parts.add(stage::first, [this, gpu_workload](Snapshot& part) {
      list_into(part.statefulsets, k_statefulsets, in_scope(), decode_workload("StatefulSet"), gpu_workload);
    });
    // The autoscaler runs in kube-system; a namespaced scope elsewhere would not see it.
    if (!m_scope.namespace_name.empty() && m_scope.namespace_name != "kube-system") {
      m_addons.push_back(&add_addon_source([this](Snapshot& part) {
        kube::ListOptions options;
        options.namespace_name = "kube-system";
        list_into(part.deployments, k_deployments, options, decode_workload("Deployment"),
                  [](const model::Workload& d) { return is_cluster_autoscaler(d); });
      }));
    }
    // DRA at the most preferred version discovery serves (none before 1.32 or with the API off).
    m_parts.add(stage::first, [this](Snapshot& part) { read_dra(part); });
    // Discovery first: without the CRD the list would be a 404 we could not tell from a typo.
    m_addons.push_back(&add_addon_source([this](Snapshot& part) {
      if (m_reader.served(std::string(k_nvidia_group_path)))
        list_into(part.cluster_policies, k_cluster_policies, {}, model::decode::cluster_policy<Item>, k_keep_all);
    }));
  }

  void read_dra(Snapshot& part) {
    // One request: the group's APIGroup document lists the versions served (404: no DRA API).
    const std::optional<nlohmann::json> group = m_reader.discovery("/apis/resource.k8s.io");
    if (!group) return;
    std::vector<std::string> served;
    if (const auto versions = group->find("versions"); versions != group->end() && versions->is_array()) {
      for (const nlohmann::json& v : *versions) {
        if (v.is_object() && v.contains("version") && v["version"].is_string()) served.push_back(v["version"]);
      }
    }
    std::string_view version;
    for (std::string_view v : k_dra_versions) {
      if (std::find(served.begin(), served.end(), v) != served.end()) {
        version = v;
        break;
      }
    }
    if (version.empty()) return;
    namespace decode = model::decode;
    list_into(part.device_classes, dra_resource(version, "deviceclasses"), {}, decode::device_class<Item>, k_keep_all);
    list_into(part.resource_slices, dra_resource(version, "resourceslices"), {}, decode::resource_slice<Item>,
              k_keep_all);
    list_into(part.resource_claims, dra_resource(version, "resourceclaims"), in_scope(), decode::resource_claim<Item>,
              k_keep_all);
    list_into(part.resource_claim_templates, dra_resource(version, "resourceclaimtemplates"), in_scope(),
              decode::resource_claim_template<Item>, k_keep_all);
  }

  // A first read that the add-ons' ConfigMaps and Helm releases wait for.
  Snapshot& add_addon_source(std::function<void(Snapshot&)> read) {
    m_addons_gate.expect();
    return m_parts.add(stage::first, [this, read = std::move(read)](Snapshot& part) {
      read(part);
      m_addons_gate.pass();
    });
  }

  void add_events() {
    for (std::string_view reason : k_event_reasons) {
      m_parts.add(
          stage::events,
          [this, reason](Snapshot& part) {
            list_into(part.events, k_events, in_scope(event_reason_selector(reason)), model::decode::event<Item>,
                      [this](const model::Event& e) { return about_gpu(e); });
          },
          Turn::ahead);
    }
  }

  // Once the DaemonSets, Deployments and ClusterPolicy are read: what they point at.
  void add_addon_configs() {
    std::vector<Snapshot> sources;
    for (const Snapshot* part : m_addons) {
      Snapshot& copy = sources.emplace_back();
      copy.daemonsets = part->daemonsets;
      copy.deployments = part->deployments;
      copy.cluster_policies = part->cluster_policies;
    }
    m_addon_sources = assemble(sources); // sorted as a whole snapshot is: the first autoscaler wins
    const Snapshot& found = m_addon_sources;
    std::set<NamespacedName> configmaps = m_daemonset_configmaps;
    std::set<std::string> helm_namespaces;
    for (const model::DaemonSet& ds : found.daemonsets) helm_namespaces.insert(ds.meta.ns);
    for (const model::ClusterPolicy& policy : found.cluster_policies) {
      if (policy.operator_namespace.empty()) continue;
      helm_namespaces.insert(policy.operator_namespace);
      if (!policy.config_name.empty()) configmaps.emplace(policy.operator_namespace, policy.config_name);
    }
    for (const NamespacedName& ref : configmaps) {
      m_parts.add(stage::addon_configs, [this, ref](Snapshot& part) { read_configmap(part, ref); }, Turn::ahead);
    }
    const NamespacedName status = autoscaler_status_ref(found.deployments);
    if (!configmaps.contains(status)) {
      m_parts.add(stage::addon_configs, [this, status](Snapshot& part) { read_configmap(part, status); }, Turn::ahead);
    }
    for (const std::string& ns : helm_namespaces)
      m_parts.add(
          stage::addon_configs,
          [this, ns](Snapshot& part) { read_helm_releases(part, ns, m_addon_sources.daemonsets); }, Turn::ahead);
  }

  // The node list's pages so far (one pass of the list: a restart after 410 Expired starts a
  // new one).
  struct NodesSoFar {
    std::size_t judged = 0;       // of the nodes listed, those looked at
    std::vector<std::string> gpu; // the GPU nodes among them, in list order
    std::size_t started = 0;      // of those, the first `started` have had their pod lists started
  };

  // The GPU nodes of the pages listed since the last call, each judged once.
  static void find_gpu_nodes(const std::vector<model::Node>& listed, NodesSoFar& so_far) {
    for (; so_far.judged < listed.size(); ++so_far.judged)
      if (model::is_gpu_node(listed[so_far.judged])) so_far.gpu.push_back(listed[so_far.judged].name());
  }

  // While the node list still pages: starts the per-node pod lists of the GPU nodes listed so
  // far when the rule would choose per-node lists were the list to end here (it picks a
  // cluster-wide list for a large share of GPU nodes). At L the 500 lists then run beside the
  // node, pending-pod and Deployment pages instead of after them: against a distant API server
  // their round trips overlap the node list's 10; on the bench's loopback, where both sides
  // share 2 cores, the wall time stays (1.61 -> 1.57 s, noise). A node's list starts once;
  // choose_pod_listing weighs only the rest once every node is in. (A node read ahead that a
  // list restarted after 410 no longer shows keeps the pods read for it.)
  void read_pods_ahead(std::size_t listed, NodesSoFar& so_far) {
    if (choose_pod_listing(so_far.gpu.size(), listed) != PodListing::per_node) return;
    for (; so_far.started < so_far.gpu.size(); ++so_far.started)
      if (m_pods_read_ahead.insert(so_far.gpu[so_far.started]).second) add_pods_of_node(so_far.gpu[so_far.started]);
  }

  void add_pods_of_node(const std::string& node) {
    m_parts.add(stage::pods_on_gpu_nodes, [this, node](Snapshot& part) {
      kube::ListOptions options;
      options.field_selector = pods_on_node_selector(node);
      options.resource_version = std::string(k_per_node_resource_version);
      list_into(part.pods, k_pods, options, model::decode::pod<Item>, k_keep_all);
    });
  }

  // The GPU nodes whose pods are still to read once the node list is in. See choose_pod_listing
  // for the rule. Either way every namespace is read: all pods on a node share its GPUs,
  // whatever the scope.
  void add_pods_on_gpu_nodes(std::size_t all_nodes) {
    const auto started = static_cast<std::size_t>(std::count_if(
        m_gpu_nodes.begin(), m_gpu_nodes.end(), [this](const std::string& node) { return m_pods_read_ahead.contains(node); }));
    switch (choose_pod_listing(m_gpu_nodes.size(), all_nodes, started)) {
    case PodListing::none:
      return;
    case PodListing::per_node:
      for (const std::string& node : m_gpu_nodes)
        if (!m_pods_read_ahead.contains(node)) add_pods_of_node(node);
      return;
    case PodListing::cluster_wide:
      m_parts.add(
          stage::pods_on_gpu_nodes,
          [this](Snapshot& part) {
            kube::ListOptions options;
            options.field_selector = std::string(k_unfinished_pods_selector);
            // Nine pods in ten are on other nodes: judged from the raw JSON, never parsed. The
            // nodes read ahead have their pods already.
            auto wanted = [this](std::string_view node) {
              return m_gpu_nodes.contains(node) && !m_pods_read_ahead.contains(node);
            };
            list_into(
                part.pods, k_pods, options, model::decode::pod<Item>,
                [wanted](const model::Pod& pod) { return wanted(pod.spec.node_name); },
                [wanted](std::string_view raw) { return wanted(raw_pod_node_name(raw)); });
          },
          Turn::ahead);
      return;
    }
  }

  // Got by name: a ConfigMap that is not there yet (404) is what diagnose reports, not an error.
  void read_configmap(Snapshot& part, const NamespacedName& ref) {
    std::optional<nlohmann::json> map = m_reader.get({k_configmaps, ref.first, ref.second, {}});
    if (map) merge_items(part, "ConfigMap", {std::move(*map)});
  }

  bool about_gpu(const model::Event& event) const {
    if (event.regarding.kind == "Pod") return m_pending_gpu_pods.contains({event.regarding.ns, event.regarding.name});
    if (event.regarding.kind == "Node") return m_gpu_nodes.contains(event.regarding.name);
    return false;
  }

  // Helm release Secrets of a namespace holding GPU DaemonSets, decoded at once: only the
  // summaries of GPU releases stay (by release or chart name, or because the release made one
  // of the DaemonSets); no Secret data outlives the page it came in.
  void read_helm_releases(Snapshot& part, const std::string& ns, const std::vector<model::DaemonSet>& daemonsets) {
    std::set<std::string> owners;
    for (const model::DaemonSet& ds : daemonsets)
      if (ds.meta.ns == ns)
        if (std::optional<std::string_view> release = ds.meta.annotation("meta.helm.sh/release-name"))
          owners.emplace(*release);
    kube::ListOptions options;
    options.namespace_name = ns;
    options.label_selector = std::string(k_helm_release_selector);
    m_reader.list(k_secrets, options, [&](const nlohmann::json& secret) {
      const std::string release_label = string_at(object_at(object_at(secret, "metadata"), "labels"), "name");
      model::Parsed<model::HelmRelease> release = helm_release_from_secret(secret);
      const bool ours = owners.contains(release_label) || is_gpu_component_name(release_label);
      if (!release) {
        if (ours) m_reader.note(fmt::format("Helm release Secret {}/{}: {}", ns, string_at(object_at(secret, "metadata"), "name"), release.error));
        return false;
      }
      if (ours || owners.contains(release.value->name) || is_gpu_component_name(release.value->name) ||
          is_gpu_component_name(release.value->chart_name))
        part.helm_releases.push_back(std::move(*release.value));
      return false;
    });
  }

  kube::Client& m_client;
  const Scope& m_scope;
  LiveReader m_reader;
  LiveParts m_parts;
  // Each written by one read, before it passes the gates (or queues the reads) that read it;
  // never changed after.
  std::set<std::string, std::less<>> m_gpu_nodes;      // the node list's
  std::set<std::string, std::less<>> m_pods_read_ahead; // the node list's as it pages: nodes whose pod list started
  std::set<NamespacedName> m_pending_gpu_pods;     // the pending pod list's
  std::set<NamespacedName> m_daemonset_configmaps; // the DaemonSet list's
  Gate m_events_gate{[this] { add_events(); }};    // nodes and pending pods: what events are about
  std::vector<const Snapshot*> m_addons;           // the parts the add-ons' configs are found from
  Gate m_addons_gate{[this] { add_addon_configs(); }};
  Snapshot m_addon_sources; // their DaemonSets, Deployments and ClusterPolicy, assembled once all are in
};

} // namespace

Snapshot collect(kube::Client& client, const Scope& scope) {
  return LiveCollection(client, scope).run();
}

} // namespace gpuslice::collect
