// SPDX-License-Identifier: Apache-2.0
// GS7xx: what the operators can see and what the hardware offers — GPU metrics under
// time-slicing, and MIG as the isolated alternative.
#include <algorithm>

#include <fmt/format.h>

#include "analyzers.hpp"

namespace gpuslice::diagnose {

namespace {

void metrics_missing(const Context& ctx, std::vector<Finding>& out) {
  if (!ctx.time_slicing_on() || !ctx.addons_of(AddonKind::dcgm_exporter).empty()) return;
  Finding f = make_finding(FindingCode::GS700,
                           "time-slicing is on but no DCGM exporter runs: GPU memory per share is invisible");
  for (const GpuNode& n : ctx.gpu_nodes) {
    if (n.gpus.replicas > 1) f.objects.push_back(object_ref("Node", n.node->meta));
  }
  f.evidence.push_back("no DaemonSet runs dcgm-exporter");
  f.remedy = {"Install NVIDIA's DCGM exporter (helm repo add gpu-helm-charts https://nvidia.github.io/dcgm-exporter/helm-charts).",
              "helm upgrade -i dcgm-exporter gpu-helm-charts/dcgm-exporter -n gpu-monitoring --create-namespace"};
  out.push_back(std::move(f));
}

void mig_capable(const Context& ctx, std::vector<Finding>& out) {
  std::vector<const GpuNode*> nodes;
  for (const GpuNode& n : ctx.gpu_nodes) {
    const bool uses_mig = std::any_of(n.node->allocatable.begin(), n.node->allocatable.end(), [](const auto& r) {
      return model::gpu_resource_kind(r.first) == model::GpuResourceKind::mig;
    });
    if (n.gpus.mig_capable && !uses_mig) nodes.push_back(&n);
  }
  if (nodes.empty()) return;
  Finding f = make_finding(FindingCode::GS701,
                           fmt::format("{} GPU node(s) have MIG-capable GPUs ({})", nodes.size(),
                                       nodes.front()->gpus.product.empty() ? "by instance type" : nodes.front()->gpus.product));
  for (const GpuNode* n : nodes) {
    f.objects.push_back(object_ref("Node", n->node->meta));
    if (f.evidence.size() < 8) {
      f.evidence.push_back(fmt::format("node {} ({}): MIG capable, no nvidia.com/mig-* resource advertised",
                                       n->node->name(), n->inventory.instance_type));
    }
  }
  f.remedy = {"MIG partitions give each pod its own memory and fault isolation, which time-slicing lacks; "
              "consider it for memory-hungry or untrusted workloads (GPU Operator MIG manager).",
              ""};
  out.push_back(std::move(f));
}

} // namespace

void find_observability(const Context& ctx, std::vector<Finding>& out) {
  metrics_missing(ctx, out);
  mig_capable(ctx, out);
}

} // namespace gpuslice::diagnose
