// node-memory-limits: the memory limits of a node's pods past what the node
// has for pods, and how many pods set none.
#include "engine/rules/node_rules.h"
#include "engine/rules/rule_util.h"
#include "generated/rule_examples.h"

namespace gpulint {
namespace {

void Check(const NodeContext& ctx, NodeReporter& out) {
  auto it = ctx.usage.limits.find("memory");
  ReportMemoryOver("limits", it == ctx.usage.limits.end() ? Quantity() : it->second, ctx, out);
}

}  // namespace

extern const Rule kNodeMemoryLimitsRule = {
    {"node-memory-limits", Severity::kWarning,
     "The memory limits of the pods on a node add up past allocatable minus the reserved headroom",
     "Limits may exceed what the node has, and the kernel settles it when the pods use them: "
     "with memory outside the pods' cgroups (the driver's on a discrete GPU; an OpenGL/EGL "
     "renderer's, 31 GB on the T4 node of the field report; the GPU memory itself on a "
     "unified-memory GPU), the node runs out before any cgroup does, and hangs instead of "
     "OOM-killing (that T4 node, lost with its neighbours one after the other).",
     "Lower the limits of the largest pods on the node, or give GPU pods limits that leave the "
     "per-GPU headroom free (gpulint's mutation does it for new pods).",
     RuleExample("node-memory-limits"), /*gpus=*/nullptr, /*no_fix=*/nullptr,
     /*needs_nodes=*/false, /*not_cel=*/kNotCelNodeScope, RuleScope::kNode},
    nullptr,
    Check,
};

}  // namespace gpulint
