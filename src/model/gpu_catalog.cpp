// SPDX-License-Identifier: Apache-2.0
// AWS GPU instance types (shared/reference/nvidia.md §7.5, from Karpenter's EC2 data).
// Memory is EC2's nominal MiB per GPU; GFD's nvidia.com/gpu.memory (NVML) differs slightly
// and wins when present.
#include <algorithm>
#include <array>
#include <vector>

#include <gpuslice/model/gpu.hpp>

namespace gpuslice::model {
namespace {

struct SizeCount {
  std::string_view size;
  int gpus;
};

struct Family {
  std::string_view family;
  std::string_view gpu_model;
  int memory_mib;
  std::string_view gfd_family;
  bool mig_capable;
  std::vector<SizeCount> sizes;
};

// The common g5/g6/g6e size ladder.
const std::vector<SizeCount> k_g_sizes{{"xlarge", 1},   {"2xlarge", 1},  {"4xlarge", 1},
                                                     {"8xlarge", 1},  {"16xlarge", 1}, {"12xlarge", 4},
                                                     {"24xlarge", 4}, {"48xlarge", 8}};

const std::array<Family, 14> k_families{{
    {"g4dn", "T4", 16384, "turing", false,
     {{"xlarge", 1}, {"2xlarge", 1}, {"4xlarge", 1}, {"8xlarge", 1}, {"16xlarge", 1}, {"12xlarge", 4}, {"metal", 8}}},
    {"g5", "A10G", 22888, "ampere", false, k_g_sizes},
    {"g6", "L4", 22888, "ada-lovelace", false, k_g_sizes},
    {"gr6", "L4", 22888, "ada-lovelace", false, {{"4xlarge", 1}, {"8xlarge", 1}}},
    {"g6e", "L40S", 45776, "ada-lovelace", false, k_g_sizes},
    {"g7e", "RTX PRO 6000 Blackwell Server", 98304, "blackwell", true,
     {{"2xlarge", 1}, {"4xlarge", 1}, {"8xlarge", 1}, {"12xlarge", 2}, {"24xlarge", 4}, {"48xlarge", 8}}},
    {"p3", "V100", 16384, "volta", false, {{"2xlarge", 1}, {"8xlarge", 4}, {"16xlarge", 8}}},
    {"p3dn", "V100", 32768, "volta", false, {{"24xlarge", 8}}},
    {"p4d", "A100", 40960, "ampere", true, {{"24xlarge", 8}}},
    {"p4de", "A100", 81920, "ampere", true, {{"24xlarge", 8}}},
    {"p5", "H100", 81920, "hopper", true, {{"4xlarge", 1}, {"48xlarge", 8}}},
    {"p5e", "H200", 144384, "hopper", true, {{"48xlarge", 8}}},
    {"p5en", "H200", 144384, "hopper", true, {{"48xlarge", 8}}},
    {"p6-b200", "B200", 183359, "blackwell", true, {{"48xlarge", 8}}},
}};

const Family k_g5g{"g5g", "T4G", 16384, "turing", false,
                   {{"xlarge", 1}, {"2xlarge", 1}, {"4xlarge", 1}, {"8xlarge", 1}, {"16xlarge", 2}, {"metal", 2}}};

} // namespace

std::optional<InstanceGpus> lookup_instance_type(std::string_view instance_type) {
  std::size_t dot = instance_type.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  std::string_view family = instance_type.substr(0, dot);
  std::string_view size = instance_type.substr(dot + 1);
  const Family* match = family == k_g5g.family ? &k_g5g : nullptr;
  for (const Family& f : k_families)
    if (f.family == family) match = &f;
  if (!match) return std::nullopt;
  for (const SizeCount& s : match->sizes) {
    if (s.size == size)
      return InstanceGpus{instance_type, match->gpu_model, s.gpus, match->memory_mib, match->gfd_family,
                          match->mig_capable};
  }
  return std::nullopt;
}

} // namespace gpuslice::model
