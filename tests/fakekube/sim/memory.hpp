// SPDX-License-Identifier: Apache-2.0
// What the controllers remember between ticks that a real controller keeps in its own
// process (event series, a plugin's loaded config, nodes being provisioned), and the context
// every controller runs with.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <fakekube/simulation.hpp>

#include "store_access.hpp"

namespace fakekube::sim {

// The config a device plugin process loaded when it started.
struct PluginRuntime {
  bool ok = true;              // false: the plugin (or its init container) exits at start
  std::string failure;         // "CrashLoopBackOff" | "Init:CrashLoopBackOff" | "ContainerCreating"
  std::string failure_message; // what the plugin logs, for the container status
  std::string resource = "nvidia.com/gpu";
  int replicas = 1;
  bool mps = false;
};

// An event this simulation wrote, to bump instead of duplicating.
struct EventRecord {
  std::string ns;
  std::string name;
  std::string message;
  std::uint64_t last_tick = 0;
};

// A node a scale-up asked for, joining at `ready_tick`.
struct ProvisioningNode {
  std::string group;
  std::string name;
  std::uint64_t ready_tick = 0;
};

} // namespace fakekube::sim

namespace fakekube {

struct Simulation::Memory {
  std::uint64_t tick = 0;
  std::uint64_t serial = 0; // for generated names
  std::map<std::string, sim::EventRecord> scheduler_events; // pod uid → its FailedScheduling series
  std::map<std::string, sim::EventRecord> autoscaler_events; // pod uid + "/" + reason
  std::map<std::string, sim::PluginRuntime> plugins;         // plugin pod uid → loaded config
  std::map<std::string, sim::PluginRuntime> gfds;            // GFD pod uid → the config GFD loaded
  std::map<std::string, long long> initial_gpus;             // node → GPU capacity at first sight
  std::map<std::string, std::uint64_t> crash_ticks;          // pod uid → tick of the last restart
  std::map<std::string, int> group_sizes;                    // node group → current target size
  std::vector<sim::ProvisioningNode> provisioning;
  std::uint64_t status_tick = 0; // last write of cluster-autoscaler-status
  nlohmann::json operator_base;  // the GPU Operator's device-plugin DaemonSet as first seen
  std::map<std::string, nlohmann::json> operator_written; // policy uid → {desired, stored} spec
  std::string last_error; // Simulation::last_error()
};

} // namespace fakekube

namespace fakekube::sim {

struct TickContext {
  StoreAccess store;
  Simulation::Memory& memory;
  const SimulationSettings& settings;
  int minor = 30; // Kubernetes minor version whose wording to use
};

void run_gpu_operator(TickContext& context);
void run_deployments(TickContext& context);
void run_replicasets(TickContext& context);
void run_daemonsets(TickContext& context);
void run_scheduler(TickContext& context);
void run_kubelet(TickContext& context);
void run_device_plugin(TickContext& context);
void run_autoscaler(TickContext& context);

} // namespace fakekube::sim
