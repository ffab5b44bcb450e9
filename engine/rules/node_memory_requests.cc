// node-memory-requests: the memory a node's pods request past what the node
// has for pods (allocatable less the policy's reserve).
#include "engine/rules/node_rules.h"
#include "engine/rules/rule_util.h"
#include "generated/rule_examples.h"

namespace gpulint {
namespace {

Quantity Sum(const ResourceList& list) {
  auto it = list.find("memory");
  return it == list.end() ? Quantity() : it->second;
}

void Check(const NodeContext& ctx, NodeReporter& out) {
  ReportMemoryOver("requests", Sum(ctx.usage.requests), ctx, out);
}

}  // namespace

extern const Rule kNodeMemoryRequestsRule = {
    {"node-memory-requests", Severity::kError,
     "The memory the pods on a node request exceeds allocatable minus the reserved headroom",
     "The scheduler fits requests to allocatable; it knows nothing of the policy's headroom, nor "
     "of the host memory outside the pods' cgroups: on a discrete GPU the driver's (about 120 "
     "MiB per CUDA context and 1.2% of what a process pins, measured on an H200), on a "
     "unified-memory GPU (Grace Hopper, GB10, MI300A) all the GPU memory the pods use, which "
     "the sum here counts. On the V100 node of the field report, requests stood at 99% of "
     "allocatable with 3.3 GiB left for the system, kubelet and ten daemon pods, and the node "
     "hung when the job used its request.",
     "Move or shrink the pods named on the node (their requests are in the workloads' findings), "
     "or size requests in G rather than Gi (500Gi is 536.9 GB), so that the sum stays under the "
     "available figure shown.",
     RuleExample("node-memory-requests"), /*gpus=*/nullptr, /*no_fix=*/nullptr,
     /*needs_nodes=*/false, /*not_cel=*/kNotCelNodeScope, RuleScope::kNode},
    nullptr,
    Check,
};

}  // namespace gpulint
