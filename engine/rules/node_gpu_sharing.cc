// node-gpu-sharing: a node's shared GPUs (MPS, time-slicing) asked for more
// replicas, or more VRAM, than they have.
#include <optional>

#include "engine/cluster/gpu_memory.h"
#include "engine/rules/node_rules.h"
#include "generated/rule_examples.h"

namespace gpulint {
namespace {

void Check(const NodeContext& ctx, NodeReporter& out) {
  const NodeClass& node = ctx.node;
  const NodeUsage& usage = ctx.usage;
  if (node.gpu.sharing == GpuSharing::kNone || node.gpu.replicas <= 1) return;
  int64_t slices = node.gpu.count * node.gpu.replicas;
  std::string mode = GpuSharingName(node.gpu.sharing);
  if (usage.gpu_replicas > slices) {
    out.Report("its pods ask for " + std::to_string(usage.gpu_replicas) + " replicas of its " +
               std::to_string(node.gpu.count) + " GPUs shared by " + mode + " into " +
               std::to_string(node.gpu.replicas) + " replicas each (" + std::to_string(slices) +
               ")");
  }
  std::optional<Quantity> total = AdvertisedVram(node, ctx.policy.vram_model);
  if (total && usage.vram > *total) {
    out.Report("its pods declare " + FormatBytes(usage.vram) +
               " of VRAM (a replica's share where they declare none) on GPUs shared by " + mode +
               " that hold " + FormatBytes(*total) + ": " + FormatBytes(usage.vram - *total) +
               " over");
  }
}

}  // namespace

extern const Rule kNodeGpuSharingRule = {
    {"node-gpu-sharing", Severity::kError,
     "The pods on a node with shared GPUs (MPS or time-slicing) ask for more than its GPUs have",
     "A replica of a shared GPU is a slice of one card whose memory every replica shares. When "
     "the pods bound to the node ask for more replicas than its GPUs are cut into, or declare "
     "more VRAM than its GPUs hold, they run out of GPU memory at run time, not at scheduling.",
     "Lower the VRAM the pods declare, spread them over more nodes, or cut the GPUs into fewer, "
     "larger replicas.",
     RuleExample("node-gpu-sharing"), /*gpus=*/nullptr, /*no_fix=*/nullptr,
     /*needs_nodes=*/false, /*not_cel=*/kNotCelNodeScope, RuleScope::kNode},
    nullptr,
    Check,
};

}  // namespace gpulint
