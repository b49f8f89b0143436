// SPDX-License-Identifier: Apache-2.0
// Simulation: runs the enabled controllers in their fixed order under the Api's lock.
#include <fakekube/simulation.hpp>

#include <exception>

#include "../api_state.hpp"
#include "memory.hpp"
#include "node_fit.hpp"

namespace fakekube {
namespace {

struct Step {
  Controller controller;
  void (*run)(sim::TickContext&);
};

constexpr Step k_steps[] = {
    {Controller::gpu_operator, sim::run_gpu_operator},
    {Controller::deployments, sim::run_deployments},
    {Controller::replicasets, sim::run_replicasets},
    {Controller::daemonsets, sim::run_daemonsets},
    {Controller::scheduler, sim::run_scheduler},
    {Controller::kubelet, sim::run_kubelet},
    {Controller::device_plugin, sim::run_device_plugin},
    {Controller::autoscaler, sim::run_autoscaler},
};

} // namespace

Simulation::Simulation(std::mutex& api_mutex, ApiState& state)
    : m_mutex(api_mutex), m_state(state), m_memory(std::make_unique<Memory>()) {}

Simulation::~Simulation() = default;

void Simulation::configure(const SimulationSettings& settings) {
  std::lock_guard<std::mutex> lock(m_mutex);
  m_settings = settings;
  for (const NodeGroup& group : settings.node_groups) m_memory->group_sizes[group.name] = group.size;
}

SimulationSettings Simulation::settings() const {
  std::lock_guard<std::mutex> lock(m_mutex);
  return m_settings;
}

void Simulation::set_enabled(Controller controller, bool on) {
  std::lock_guard<std::mutex> lock(m_mutex);
  m_settings.enabled[controller] = on;
}

void Simulation::tick(int count) {
  for (int i = 0; i < count; ++i) {
    std::lock_guard<std::mutex> lock(m_mutex);
    ++m_memory->tick;
    const std::string version =
        m_settings.kubernetes_version.empty() ? m_state.git_version : m_settings.kubernetes_version;
    sim::TickContext context{sim::StoreAccess(m_state), *m_memory, m_settings, sim::kube_minor(version)};
    for (const Step& step : k_steps) {
      auto it = m_settings.enabled.find(step.controller);
      if (it != m_settings.enabled.end() && !it->second) continue;
      // One bad object must not take fakekube --simulate down (an escaping exception would
      // end its timer thread and the process): the step is skipped for this tick.
      try {
        step.run(context);
      } catch (const std::exception& error) {
        m_memory->last_error = controller_name(step.controller) + ": " + error.what();
      }
    }
  }
}

std::string Simulation::last_error() const {
  std::lock_guard<std::mutex> lock(m_mutex);
  return m_memory->last_error;
}

std::uint64_t Simulation::ticks() const {
  std::lock_guard<std::mutex> lock(m_mutex);
  return m_memory->tick;
}

} // namespace fakekube
