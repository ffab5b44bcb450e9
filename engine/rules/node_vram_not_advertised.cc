// node-vram-not-advertised: a GPU node the VRAM mutation cannot schedule
// VRAM on, as it does not advertise the VRAM resource.
#include <optional>

#include "engine/cluster/gpu_memory.h"
#include "engine/rules/node_rules.h"
#include "generated/rule_examples.h"

namespace gpulint {
namespace {

void Check(const NodeContext& ctx, NodeReporter& out) {
  const NodeClass& node = ctx.node;
  const Policy& policy = ctx.policy;
  if (!node.has_gpu() || !policy.mutations.vram || node.allocatable.count(policy.vram_resource))
    return;
  std::string gpus = std::to_string(node.gpu.count) + (node.gpu.count == 1 ? " GPU" : " GPUs") +
                     (node.gpu.model.empty() ? "" : " (" + node.gpu.model + ")");
  std::optional<Quantity> vram = AdvertisedVram(node, policy.vram_model);
  out.Report("its " + gpus + " hold " +
             (vram ? FormatBytes(*vram) + " of VRAM for pods"
                   : std::string("VRAM of no known size (no nvidia.com/gpu.memory label)")) +
             ", and it does not advertise " + policy.vram_resource +
             " while the policy's VRAM mutation is on: VRAM is not scheduled on it");
}

}  // namespace

extern const Rule kNodeVramNotAdvertisedRule = {
    {"node-vram-not-advertised", Severity::kWarning,
     "A GPU node does not advertise its VRAM while the policy's VRAM mutation is on",
     "The mutation gives GPU containers a VRAM request only toward nodes that advertise the VRAM "
     "resource, so on this node VRAM is not scheduled at all: five pods of 12 GB each can land on "
     "one 48 GB GPU, and the fifth crash-loops (the RTX 8000 of the field report).",
     "Run gpulint-webhook with --advertise-vram (the chart's vram.advertise), or patch the node's "
     "status once with 'gpulint node-patch'. A node with no nvidia.com/gpu.memory label needs GPU "
     "Feature Discovery, or the VRAM given by hand.",
     RuleExample("node-vram-not-advertised"), /*gpus=*/nullptr, /*no_fix=*/nullptr,
     /*needs_nodes=*/false, /*not_cel=*/kNotCelNodeScope, RuleScope::kNode},
    nullptr,
    Check,
};

}  // namespace gpulint
