// SPDX-License-Identifier: Apache-2.0
// Fluent fixture builders that produce real API JSON (what `kubectl get -o Json` shows), so
// tests read like the object: NodeBuilder("gpu-1").instance_type("g4dn.xlarge").gpus(1)
// .taint("nvidia.com/gpu", "true", "NoSchedule"). json() gives the API object, build() the
// model view parsed from it (so every test also exercises the readers).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <gpuslice/model.hpp>

namespace gpuslice::testing {

using Json = nlohmann::json;

// Fixed times keep fixtures deterministic.
inline constexpr const char* k_created = "2026-01-01T12:00:00Z";
inline constexpr const char* k_later = "2026-01-01T12:05:00Z";

// Everything that edits a pod spec, shared by PodBuilder and the workload builders. Edits go
// to the first container unless a container was added explicitly (then to the last one added).
template <class Self> class PodSpecBuilder {
public:
  Self& container(const std::string& name, const std::string& image) {
    spec()["containers"].push_back({{"name", name}, {"image", image}, {"resources", Json::object()}});
    return self();
  }
  Self& init_container(const std::string& name, const std::string& image) {
    spec()["initContainers"].push_back({{"name", name}, {"image", image}, {"resources", Json::object()}});
    m_edit_init = true;
    return self();
  }
  Self& image(const std::string& image) { return set_container("image", image); }
  Self& args(std::vector<std::string> args) { return set_container("args", Json(std::move(args))); }
  Self& command(std::vector<std::string> command) { return set_container("command", Json(std::move(command))); }
  Self& env(const std::string& name, const std::string& value) {
    current_container()["env"].push_back({{"name", name}, {"value", value}});
    return self();
  }
  Self& request(const std::string& resource, const std::string& quantity) {
    current_container()["resources"]["requests"][resource] = quantity;
    return self();
  }
  Self& limit(const std::string& resource, const std::string& quantity) {
    current_container()["resources"]["limits"][resource] = quantity;
    return self();
  }
  // A GPU ask as users write it: limits only (requests default to limits).
  Self& gpus(int count, const std::string& resource = "nvidia.com/gpu") {
    return limit(resource, std::to_string(count));
  }
  Self& node_selector(const std::string& key, const std::string& value) {
    spec()["nodeSelector"][key] = value;
    return self();
  }
  // Adds a requiredDuringScheduling term with one expression (call again for more terms).
  Self& affinity(const std::string& key, const std::string& op, std::vector<std::string> values = {}) {
    Json expression = {{"key", key}, {"operator", op}};
    if (!values.empty()) expression["values"] = values;
    spec()["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
        .push_back({{"matchExpressions", Json::array({expression})}});
    return self();
  }
  Self& toleration(const std::string& key, const std::string& op = "Exists", const std::string& value = "",
                   const std::string& effect = "NoSchedule") {
    Json toleration = {{"operator", op}};
    if (!key.empty()) toleration["key"] = key;
    if (!value.empty()) toleration["value"] = value;
    if (!effect.empty()) toleration["effect"] = effect;
    spec()["tolerations"].push_back(toleration);
    return self();
  }
  Self& scheduler_name(const std::string& name) {
    spec()["schedulerName"] = name;
    return self();
  }
  // A ConfigMap volume mounted into the current container.
  Self& config_map_volume(const std::string& volume, const std::string& config_map, const std::string& mount_path) {
    spec()["volumes"].push_back({{"name", volume}, {"configMap", {{"name", config_map}}}});
    current_container()["volumeMounts"].push_back({{"name", volume}, {"mountPath", mount_path}});
    return self();
  }

protected:
  ~PodSpecBuilder() = default;

private:
  Self& self() { return static_cast<Self&>(*this); }
  Json& spec() { return self().spec_json(); }
  Json& current_container() {
    Json& list = spec()[m_edit_init ? "initContainers" : "containers"];
    if (list.empty()) list.push_back({{"name", "main"}, {"image", "busybox"}, {"resources", Json::object()}});
    return list.back();
  }
  Self& set_container(const char* field, Json value) {
    current_container()[field] = std::move(value);
    return self();
  }
  bool m_edit_init = false;
};

// Metadata edits shared by every builder.
template <class Self> class MetaBuilder {
public:
  Self& label(const std::string& key, const std::string& value) {
    metadata()["labels"][key] = value;
    return static_cast<Self&>(*this);
  }
  Self& annotation(const std::string& key, const std::string& value) {
    metadata()["annotations"][key] = value;
    return static_cast<Self&>(*this);
  }
  Self& created(const std::string& time) {
    metadata()["creationTimestamp"] = time;
    return static_cast<Self&>(*this);
  }
  Self& owner(const std::string& kind, const std::string& name, bool controller = true,
              const std::string& api_version = "apps/v1") {
    metadata()["ownerReferences"].push_back({{"apiVersion", api_version}, {"kind", kind}, {"name", name},
                                             {"uid", "uid-" + name}, {"controller", controller}});
    return static_cast<Self&>(*this);
  }
  const Json& json_value() const { return m_object; }

protected:
  MetaBuilder(const std::string& api_version, const std::string& kind, const std::string& ns, const std::string& name) {
    m_object = {{"apiVersion", api_version}, {"kind", kind},
                {"metadata", {{"name", name}, {"uid", "uid-" + name}, {"resourceVersion", "1"},
                              {"creationTimestamp", k_created}}}};
    if (!ns.empty()) m_object["metadata"]["namespace"] = ns;
  }
  ~MetaBuilder() = default;
  Json& metadata() { return m_object["metadata"]; }
  Json m_object;
};

class NodeBuilder : public MetaBuilder<NodeBuilder> {
public:
  explicit NodeBuilder(const std::string& name) : MetaBuilder("v1", "Node", "", name) {
    m_object["spec"] = Json::object();
    m_object["status"] = {{"capacity", {{"cpu", "4"}, {"memory", "16203652Ki"}, {"pods", "110"}}},
                          {"allocatable", {{"cpu", "3920m"}, {"memory", "15186820Ki"}, {"pods", "110"}}},
                          {"conditions", Json::array({ready_condition("True")})},
                          {"nodeInfo", {{"osImage", "Amazon Linux 2023"}, {"kubeletVersion", "v1.30.4-eks-a737599"}}}};
    label("kubernetes.io/hostname", name);
  }
  NodeBuilder& instance_type(const std::string& type) { return label("node.kubernetes.io/instance-type", type); }
  // Sets capacity and allocatable of a resource.
  NodeBuilder& resource(const std::string& name, const std::string& quantity) {
    m_object["status"]["capacity"][name] = quantity;
    m_object["status"]["allocatable"][name] = quantity;
    return *this;
  }
  NodeBuilder& gpus(int count, const std::string& resource_name = "nvidia.com/gpu") {
    return resource(resource_name, std::to_string(count));
  }
  NodeBuilder& taint(const std::string& key, const std::string& value, const std::string& effect) {
    Json taint = {{"key", key}, {"effect", effect}};
    if (!value.empty()) taint["value"] = value;
    m_object["spec"]["taints"].push_back(taint);
    return *this;
  }
  NodeBuilder& unschedulable() {
    m_object["spec"]["unschedulable"] = true;
    return taint("node.kubernetes.io/unschedulable", "", "NoSchedule");
  }
  NodeBuilder& not_ready() {
    m_object["status"]["conditions"] = Json::array({ready_condition("False")});
    return taint("node.kubernetes.io/not-ready", "", "NoSchedule");
  }
  // The labels GPU feature discovery writes.
  NodeBuilder& gfd(const std::string& product, int count, int replicas = 1, int memory_mib = 15360) {
    label("nvidia.com/gpu.product", product);
    label("nvidia.com/gpu.count", std::to_string(count));
    label("nvidia.com/gpu.replicas", std::to_string(replicas));
    label("nvidia.com/gpu.memory", std::to_string(memory_mib));
    return label("nvidia.com/gpu.sharing-strategy", replicas > 1 ? "time-slicing" : "none");
  }
  NodeBuilder& os_image(const std::string& image) {
    m_object["status"]["nodeInfo"]["osImage"] = image;
    return *this;
  }
  Json json() const { return m_object; }
  model::Node build() const { return model::node_from_json(m_object); }

private:
  static Json ready_condition(const std::string& status) {
    return {{"type", "Ready"}, {"status", status}, {"reason", status == "True" ? "KubeletReady" : "KubeletNotReady"},
            {"lastTransitionTime", k_created}};
  }
};

class PodBuilder : public MetaBuilder<PodBuilder>, public PodSpecBuilder<PodBuilder> {
public:
  PodBuilder(const std::string& ns, const std::string& name) : MetaBuilder("v1", "Pod", ns, name) {
    m_object["spec"] = {{"schedulerName", "default-scheduler"}, {"containers", Json::array()}};
    m_object["status"] = {{"phase", "Pending"}};
  }
  // Pending with PodScheduled=False/Unschedulable and the scheduler's message.
  PodBuilder& unschedulable(const std::string& message) {
    m_object["status"]["phase"] = "Pending";
    m_object["status"]["conditions"] = Json::array(
        {{{"type", "PodScheduled"}, {"status", "False"}, {"reason", "Unschedulable"}, {"message", message},
          {"lastProbeTime", nullptr}, {"lastTransitionTime", k_created}}});
    return *this;
  }
  // Bound to `node` and Running with every container ready.
  PodBuilder& running_on(const std::string& node, const std::string& started_at = k_created) {
    m_object["spec"]["nodeName"] = node;
    m_object["status"]["phase"] = "Running";
    m_object["status"]["startTime"] = started_at;
    m_object["status"]["conditions"] = Json::array(
        {{{"type", "PodScheduled"}, {"status", "True"}, {"lastTransitionTime", started_at}},
         {{"type", "Ready"}, {"status", "True"}, {"lastTransitionTime", started_at}}});
    Json statuses = Json::array();
    for (const auto& c : m_object["spec"]["containers"])
      statuses.push_back({{"name", c["name"]}, {"image", c["image"]}, {"ready", true}, {"started", true},
                          {"restartCount", 0}, {"state", {{"running", {{"startedAt", started_at}}}}}});
    m_object["status"]["containerStatuses"] = statuses;
    return *this;
  }
  // The first container waiting with `reason` (e.g. CrashLoopBackOff) after `restarts` restarts.
  PodBuilder& waiting(const std::string& reason, int restarts = 0) {
    Json& statuses = m_object["status"]["containerStatuses"];
    if (statuses.empty())
      statuses.push_back({{"name", "main"}, {"image", "busybox"}, {"started", false}});
    statuses[0]["ready"] = false;
    statuses[0]["restartCount"] = restarts;
    statuses[0]["state"] = {{"waiting", {{"reason", reason}, {"message", "back-off restarting failed container"}}}};
    return *this;
  }
  PodBuilder& phase(const std::string& phase) {
    m_object["status"]["phase"] = phase;
    return *this;
  }
  PodBuilder& node_name(const std::string& node) {
    m_object["spec"]["nodeName"] = node;
    return *this;
  }
  Json json() const { return m_object; }
  model::Pod build() const { return model::pod_from_json(m_object); }

  // The pod spec PodSpecBuilder edits.
  Json& spec_json() { return m_object["spec"]; }
};

// core/v1 Event by default; events_v1() writes the events.k8s.io/v1 shape instead.
class EventBuilder : public MetaBuilder<EventBuilder> {
public:
  explicit EventBuilder(const std::string& reason, const std::string& ns = "default")
      : MetaBuilder("v1", "Event", ns, "event-" + reason) {
    m_object["reason"] = reason;
    m_object["type"] = reason == "TriggeredScaleUp" ? "Normal" : "Warning";
    m_object["source"] = {{"component", "default-scheduler"}};
    m_object["count"] = 1;
    m_object["firstTimestamp"] = k_created;
    m_object["lastTimestamp"] = k_created;
  }
  EventBuilder& regarding(const std::string& kind, const std::string& ns, const std::string& name) {
    m_object["involvedObject"] = {{"kind", kind}, {"name", name}, {"uid", "uid-" + name}, {"apiVersion", "v1"}};
    if (!ns.empty()) m_object["involvedObject"]["namespace"] = ns;
    metadata()["name"] = name + "." + m_object["reason"].get<std::string>();
    return *this;
  }
  EventBuilder& pod(const std::string& ns, const std::string& name) { return regarding("Pod", ns, name); }
  EventBuilder& message(const std::string& text) {
    m_object["message"] = text;
    return *this;
  }
  EventBuilder& type(const std::string& type) {
    m_object["type"] = type;
    return *this;
  }
  // source.component, e.g. "cluster-autoscaler" or "karpenter".
  EventBuilder& source(const std::string& component) {
    m_object["source"]["component"] = component;
    return *this;
  }
  EventBuilder& count(int count) {
    m_object["count"] = count;
    return *this;
  }
  EventBuilder& last_timestamp(const std::string& time) {
    m_object["lastTimestamp"] = time;
    return *this;
  }
  // The same event as the scheduler writes it through events.k8s.io/v1 (note, regarding,
  // reportingController, eventTime, series; deprecated* fields empty).
  EventBuilder& events_v1(int series_count = 0) { m_v1 = true; m_series = series_count; return *this; }

  Json json() const {
    if (!m_v1) return m_object;
    Json out = {{"apiVersion", "events.k8s.io/v1"}, {"kind", "Event"}, {"metadata", m_object["metadata"]},
                          {"reason", m_object["reason"]}, {"type", m_object["type"]},
                          {"note", m_object.value("message", "")}, {"action", "Scheduling"},
                          {"regarding", m_object.value("involvedObject", Json::object())},
                          {"reportingController", m_object["source"]["component"]},
                          {"reportingInstance", m_object["source"]["component"].get<std::string>() + "-host"},
                          {"eventTime", "2026-01-01T12:00:00.000000Z"}};
    if (m_series > 0) out["series"] = {{"count", m_series}, {"lastObservedTime", "2026-01-01T12:05:00.000000Z"}};
    return out;
  }
  model::Event build() const { return model::event_from_json(json()); }

private:
  bool m_v1 = false;
  int m_series = 0;
};

class DaemonSetBuilder : public MetaBuilder<DaemonSetBuilder>, public PodSpecBuilder<DaemonSetBuilder> {
public:
  DaemonSetBuilder(const std::string& ns, const std::string& name) : MetaBuilder("apps/v1", "DaemonSet", ns, name) {
    m_object["metadata"]["generation"] = 1;
    m_object["spec"] = {{"selector", {{"matchLabels", {{"app", name}}}}},
                        {"template", {{"metadata", {{"labels", {{"app", name}}}}},
                                      {"spec", {{"containers", Json::array()}}}}},
                        {"updateStrategy", {{"type", "RollingUpdate"}}}};
    status(0, 0);
  }
  // desired / ready (available = ready, all updated).
  DaemonSetBuilder& status(int desired, int ready) {
    m_object["status"] = {{"desiredNumberScheduled", desired}, {"currentNumberScheduled", desired},
                          {"numberReady", ready}, {"numberMisscheduled", 0}, {"observedGeneration", 1},
                          {"updatedNumberScheduled", desired}};
    if (ready > 0) m_object["status"]["numberAvailable"] = ready;
    if (desired > ready) m_object["status"]["numberUnavailable"] = desired - ready;
    return *this;
  }
  DaemonSetBuilder& template_label(const std::string& key, const std::string& value) {
    m_object["spec"]["template"]["metadata"]["labels"][key] = value;
    return *this;
  }
  Json json() const { return m_object; }
  model::DaemonSet build() const { return model::daemonset_from_json(m_object); }

  // The pod spec PodSpecBuilder edits.
  Json& spec_json() { return m_object["spec"]["template"]["spec"]; }
};

// Deployment by default; kind("StatefulSet") for a StatefulSet.
class DeploymentBuilder : public MetaBuilder<DeploymentBuilder>, public PodSpecBuilder<DeploymentBuilder> {
public:
  DeploymentBuilder(const std::string& ns, const std::string& name) : MetaBuilder("apps/v1", "Deployment", ns, name) {
    m_object["metadata"]["generation"] = 1;
    m_object["spec"] = {{"replicas", 1}, {"selector", {{"matchLabels", {{"app", name}}}}},
                        {"template", {{"metadata", {{"labels", {{"app", name}}}}},
                                      {"spec", {{"containers", Json::array()}}}}}};
    m_object["status"] = {{"observedGeneration", 1}};
  }
  DeploymentBuilder& kind(const std::string& kind) {
    m_object["kind"] = kind;
    return *this;
  }
  DeploymentBuilder& replicas(int count) {
    m_object["spec"]["replicas"] = count;
    return *this;
  }
  DeploymentBuilder& ready(int count) {
    m_object["status"]["replicas"] = m_object["spec"]["replicas"];
    m_object["status"]["readyReplicas"] = count;
    m_object["status"]["availableReplicas"] = count;
    m_object["status"]["updatedReplicas"] = m_object["spec"]["replicas"];
    return *this;
  }
  Json json() const { return m_object; }
  model::Workload build() const { return model::workload_from_json(m_object); }

  // The pod spec PodSpecBuilder edits.
  Json& spec_json() { return m_object["spec"]["template"]["spec"]; }
};

class ConfigMapBuilder : public MetaBuilder<ConfigMapBuilder> {
public:
  ConfigMapBuilder(const std::string& ns, const std::string& name) : MetaBuilder("v1", "ConfigMap", ns, name) {
    m_object["data"] = Json::object();
  }
  ConfigMapBuilder& data(const std::string& key, const std::string& value) {
    m_object["data"][key] = value;
    return *this;
  }
  ConfigMapBuilder& resource_version(const std::string& version) {
    metadata()["resourceVersion"] = version;
    return *this;
  }
  Json json() const { return m_object; }
  model::ConfigMap build() const { return model::configmap_from_json(m_object); }
};

// A kubectl `List` of the given objects.
inline Json list_of(std::vector<Json> items) {
  return {{"apiVersion", "v1"}, {"kind", "List"}, {"metadata", {{"resourceVersion", ""}}}, {"items", std::move(items)}};
}

} // namespace gpuslice::testing
