// SPDX-License-Identifier: Apache-2.0
// fakekube's cluster simulation: deterministic controllers (GPU Operator, Deployment,
// ReplicaSet, DaemonSet, scheduler, kubelet, NVIDIA device plugin + GFD, cluster-autoscaler)
// that reconcile the store when stepped with tick(). Nothing runs unless ticked: with no ticks
// fakekube is the plain object store it always was. Time inside is counted in ticks only.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace fakekube {

struct ApiState;

// The controllers, in the fixed order tick() runs them.
enum class Controller {
  gpu_operator,  // ClusterPolicy → its device plugin DaemonSet (edits and deletion reverted)
  deployments,   // Deployment → ReplicaSets (rolling update), status and conditions
  replicasets,   // ReplicaSet → pods, status
  daemonsets,    // DaemonSet → one pod per eligible node (rolling update), status
  scheduler,     // binds Pending pods or marks them Unschedulable with a FailedScheduling event
  kubelet,       // starts bound pods (Running/Ready, or crash-looping / image pull failures)
  device_plugin, // node GPU capacity/allocatable from Ready plugin pods; GFD labels
  autoscaler,    // NotTriggerScaleUp / TriggeredScaleUp, new nodes, the status ConfigMap
};

// The scenario name of a controller ("gpuOperator", "deployments", …) and back.
std::string controller_name(Controller controller);
bool parse_controller_name(const std::string& name, Controller& out);

// A cluster-autoscaler node group (an ASG): its size bounds and the template of its nodes.
struct NodeGroup {
  std::string name;
  int min_size = 0;
  int max_size = 0;
  int size = 0;                                 // current target size
  std::string instance_type;                    // sets capacity from the GPU catalog when known
  std::map<std::string, std::string> labels;    // template labels
  nlohmann::json taints = nlohmann::json::array(); // template taints (core/v1 Taint objects)
  std::map<std::string, std::string> resources; // template capacity, e.g. {cpu: "4", nvidia.com/gpu: "1"}
};

// How a DaemonSet's pods fail, as a scenario asks.
struct DaemonSetFailure {
  std::string ns;
  std::string name;
  std::string mode; // "crashLoop" | "imagePullBackOff"
};

struct SimulationSettings {
  std::map<Controller, bool> enabled;   // missing = on
  std::string kubernetes_version;        // whose scheduler wording; "" = the server's version
  int scheduler_event_every_ticks = 10;  // a pending pod's FailedScheduling series is bumped this often
  int autoscaler_event_every_ticks = 30; // CA's spam filter: one event per (pod, reason) per period
  int autoscaler_status_every_ticks = 10;
  int node_provision_ticks = 3;          // ticks from TriggeredScaleUp until the new node joins
  bool autoscaler_adds_nodes = true;
  std::string autoscaler_namespace = "kube-system";
  std::vector<NodeGroup> node_groups;    // no groups: the autoscaler stand-in does nothing
  std::vector<DaemonSetFailure> daemonset_failures;
};

// Parses the scenario's `simulation:` mapping (tests/fixtures/scenarios/README.md); throws
// std::runtime_error naming the bad key.
SimulationSettings parse_simulation_settings(const nlohmann::json& node);

// The handle Api::simulation() returns. Thread-safe: tick() takes the Api's lock, so it
// interleaves with request handling. tick() does not throw for malformed objects.
class Simulation {
public:
  Simulation(std::mutex& api_mutex, ApiState& state);
  ~Simulation();
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  // Replaces the settings (controllers on/off, node groups, failure modes, wording version).
  void configure(const SimulationSettings& settings);
  SimulationSettings settings() const;
  // Switches one controller on or off.
  void set_enabled(Controller controller, bool on);
  // Runs every enabled controller once, in Controller order, `count` times.
  void tick(int count = 1);
  // Ticks run so far.
  std::uint64_t ticks() const;
  // "<controller>: <what>" of the last exception a controller threw on an object it could not
  // handle (the controller's step is skipped for that tick, as a real one requeues); "" if none.
  std::string last_error() const;

  struct Memory; // what controllers remember between ticks (not in the store)

private:
  std::mutex& m_mutex;
  ApiState& m_state;
  SimulationSettings m_settings;
  std::unique_ptr<Memory> m_memory;
};

} // namespace fakekube
