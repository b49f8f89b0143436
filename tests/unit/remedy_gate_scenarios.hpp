// SPDX-License-Identifier: Apache-2.0
// The clusters of issue 20, on which diagnose once offered a fix that would not place the pods,
// each with a healthy twin: built from real API JSON (builders.hpp). Shared by the diagnose
// tests of the remedy gate and the table test over every fixture.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <gpuslice/snapshot.hpp>

#include "unit/builders.hpp"

namespace gate {

using namespace gpuslice::testing;
using gpuslice::Snapshot;

inline constexpr const char* k_plugin_image = "nvcr.io/nvidia/k8s-device-plugin:v0.17.4";

inline DaemonSetBuilder plugin_daemonset(int nodes) {
  DaemonSetBuilder ds("nvidia", "nvdp-nvidia-device-plugin");
  ds.label("app.kubernetes.io/managed-by", "Helm").container("nvidia-device-plugin-ctr", k_plugin_image)
      .toleration("nvidia.com/gpu").toleration("dedicated").status(nodes, nodes);
  return ds;
}

inline PodBuilder plugin_pod(const std::string& node) {
  PodBuilder p("nvidia", "nvdp-nvidia-device-plugin-" + node);
  p.owner("DaemonSet", "nvdp-nvidia-device-plugin").container("nvidia-device-plugin-ctr", k_plugin_image)
      .toleration("nvidia.com/gpu").running_on(node);
  return p;
}

// Deployment ml/trainer (1 GPU per pod, tolerating nvidia.com/gpu) and its pending pods.
inline void add_trainer(Snapshot& s, int pending, const std::string& message, const std::string& resource,
                        bool tolerate_dedicated) {
  DeploymentBuilder d("ml", "trainer");
  d.replicas(pending).container("job", "trainer:1").gpus(1, resource).toleration("nvidia.com/gpu");
  if (tolerate_dedicated) d.toleration("dedicated");
  s.deployments.push_back(d.build());
  for (int i = 0; i < pending; ++i) {
    PodBuilder p("ml", "trainer-6b9-" + std::to_string(i));
    p.label("app", "trainer").owner("ReplicaSet", "trainer-6b9").container("job", "trainer:1").gpus(1, resource)
        .toleration("nvidia.com/gpu");
    if (tolerate_dedicated) p.toleration("dedicated");
    s.pods.push_back(p.unschedulable(message).build());
  }
}

inline void add_cpu_nodes(Snapshot& s, int count) {
  for (int i = 1; i <= count; ++i) s.nodes.push_back(NodeBuilder("cpu-" + std::to_string(i)).instance_type("m5.large").build());
}

// Idle GPUs behind a taint: two g4dn nodes with free GPUs tainted dedicated=ml:NoSchedule, three
// CPU nodes; the pods do not tolerate `dedicated`, so the CPU nodes say Insufficient
// nvidia.com/gpu (they have none). Twin: the pods tolerate it, and the GPUs are taken.
inline Snapshot idle_gpus_behind_taint(bool twin) {
  Snapshot s;
  for (const char* name : {"gpu-1", "gpu-2"}) {
    s.nodes.push_back(NodeBuilder(name).instance_type("g4dn.xlarge").gpus(1).gfd("Tesla-T4", 1)
                          .taint("nvidia.com/gpu", "present", "NoSchedule").taint("dedicated", "ml", "NoSchedule").build());
    s.pods.push_back(plugin_pod(name).build());
    if (twin) {
      s.pods.push_back(PodBuilder("ml", std::string("busy-") + name).container("job", "trainer:1").gpus(1)
                           .toleration("nvidia.com/gpu").toleration("dedicated").running_on(name).build());
    }
  }
  add_cpu_nodes(s, 3);
  s.daemonsets.push_back(plugin_daemonset(2).build());
  add_trainer(s, 2,
              twin ? "0/5 nodes are available: 2 Insufficient nvidia.com/gpu, 3 Insufficient nvidia.com/gpu."
                   : "0/5 nodes are available: 2 node(s) had untolerated taint {dedicated: ml}, 3 Insufficient "
                     "nvidia.com/gpu. preemption: 0/5 nodes are available: 5 Preemption is not helpful for scheduling.",
              "nvidia.com/gpu", twin);
  return s;
}

// MIG mixed strategy: one p4d node advertising 56 × nvidia.com/mig-1g.5gb and 0 nvidia.com/gpu;
// the pods ask for whole GPUs. Twin: the pods ask for nvidia.com/mig-1g.5gb and fit.
inline Snapshot mig_partitioned(bool twin) {
  Snapshot s;
  s.nodes.push_back(NodeBuilder("a100-1").instance_type("p4d.24xlarge").gfd("NVIDIA-A100-SXM4-40GB", 8, 1, 40960)
                        .gpus(0).resource("nvidia.com/mig-1g.5gb", "56").label("nvidia.com/mig.strategy", "mixed")
                        .label("nvidia.com/mig.config", "all-1g.5gb").taint("nvidia.com/gpu", "present", "NoSchedule")
                        .build());
  s.pods.push_back(plugin_pod("a100-1").build());
  add_cpu_nodes(s, 1);
  s.daemonsets.push_back(plugin_daemonset(1).build());
  const std::string resource = twin ? "nvidia.com/mig-1g.5gb" : "nvidia.com/gpu";
  add_trainer(s, 1, "0/2 nodes are available: 2 Insufficient " + resource + ".", resource, false);
  if (twin) s.pods.back() = PodBuilder("ml", "trainer-6b9-0").label("app", "trainer").owner("ReplicaSet", "trainer-6b9")
                                .container("job", "trainer:1").gpus(1, resource).toleration("nvidia.com/gpu")
                                .running_on("a100-1").build();
  return s;
}

// The device plugin crash-loops on both GPU nodes, which advertise nothing. Twin: no device
// plugin at all (apply installs one, and the GPUs appear).
inline Snapshot crashing_plugin(bool twin) {
  Snapshot s;
  for (const char* name : {"gpu-1", "gpu-2"}) {
    s.nodes.push_back(NodeBuilder(name).instance_type("g4dn.xlarge").label("nvidia.com/gpu.present", "true")
                          .taint("nvidia.com/gpu", "present", "NoSchedule").build());
    if (!twin) {
      s.pods.push_back(PodBuilder("nvidia", std::string("nvdp-nvidia-device-plugin-") + name)
                           .owner("DaemonSet", "nvdp-nvidia-device-plugin")
                           .container("nvidia-device-plugin-ctr", k_plugin_image).toleration("nvidia.com/gpu")
                           .running_on(name).waiting("CrashLoopBackOff", 7).build());
    }
  }
  add_cpu_nodes(s, 2);
  if (!twin) s.daemonsets.push_back(plugin_daemonset(2).status(2, 0).build());
  add_trainer(s, 2, "0/4 nodes are available: 4 Insufficient nvidia.com/gpu.", "nvidia.com/gpu", false);
  return s;
}

// Time-sliced nodes advertise nvidia.com/gpu.shared (renameByDefault) with free shares; the pods
// ask for nvidia.com/gpu, which no node has: not exhaustion. Twin: the pods ask for the shared
// name and every share is taken.
inline Snapshot shared_slots_under_other_name(bool twin) {
  Snapshot s;
  for (const char* name : {"gpu-1", "gpu-2"}) {
    s.nodes.push_back(NodeBuilder(name).instance_type("g4dn.xlarge").gpus(4, "nvidia.com/gpu.shared")
                          .gfd("Tesla-T4-SHARED", 1, 4).taint("nvidia.com/gpu", "present", "NoSchedule").build());
    s.pods.push_back(plugin_pod(name).build());
    for (int i = 0; i < (twin ? 4 : 1); ++i) {
      s.pods.push_back(PodBuilder("ml", std::string("busy-") + name + "-" + std::to_string(i)).container("job", "t:1")
                           .gpus(1, "nvidia.com/gpu.shared").toleration("nvidia.com/gpu").running_on(name).build());
    }
  }
  add_cpu_nodes(s, 1);
  s.daemonsets.push_back(plugin_daemonset(2).build());
  const std::string resource = twin ? "nvidia.com/gpu.shared" : "nvidia.com/gpu";
  add_trainer(s, 2, "0/3 nodes are available: 3 Insufficient " + resource + ".", resource, false);
  return s;
}

// Every scenario above, broken and healthy, by name.
inline std::vector<std::pair<std::string, Snapshot>> all() {
  std::vector<std::pair<std::string, Snapshot>> out;
  for (bool twin : {false, true}) {
    const std::string suffix = twin ? " (twin)" : "";
    out.emplace_back("idle GPUs behind a taint" + suffix, idle_gpus_behind_taint(twin));
    out.emplace_back("MIG-partitioned" + suffix, mig_partitioned(twin));
    out.emplace_back("crash-looping plugin" + suffix, crashing_plugin(twin));
    out.emplace_back("shared slots under another name" + suffix, shared_slots_under_other_name(twin));
  }
  return out;
}

} // namespace gate
