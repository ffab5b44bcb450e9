// no-matching-node: with a node inventory, a pod that can land on none of it
// stays Pending (or its selectors are wrong).
#include "engine/rules/rule.h"
#include "engine/rules/rule_util.h"
#include "generated/rule_examples.h"

namespace gpulint {
namespace {

void Check(const ObjectContext& ctx, Reporter& out) {
  if (ctx.inventory.empty()) return;
  // A DaemonSet puts a pod on each node that can run one, and none where
  // none can: nothing stays Pending. Worth knowing, not a fault.
  bool daemon_set = ctx.ref.kind == "DaemonSet";
  for (const PodInfo& pod : ctx.pods) {
    if (pod.partial) continue;  // a runtime's defaults, never run as written
    if (!pod.candidates.empty()) continue;
    size_t n = ctx.inventory.size();
    std::string head = "0/" + std::to_string(n) + " node" + (n == 1 ? "" : "s") +
                       " in the inventory can run the pod: " +
                       ExclusionSummary(pod.placement, ctx.inventory);
    if (daemon_set)
      out.Report(pod.spec, pod.path, head + "; the DaemonSet runs no pod on these nodes",
                 Severity::kInfo);
    else
      out.Report(pod.spec, pod.path, head + "; it would stay Pending");
  }
}

}  // namespace

extern const Rule kNoMatchingNodeRule = {
    {"no-matching-node", Severity::kWarning, "No known node can run the pod",
     "With node classes in the policy or --nodes, gpulint knows where pods can land. A pod whose "
     "selectors, affinity or missing tolerations rule out every node stays Pending; often a "
     "label value is misspelt or the GPU taint is not tolerated. A DaemonSet that matches no "
     "node only runs no pod there (info).",
     "Check nodeSelector / affinity values against the node labels, and tolerate the GPU taint "
     "(nvidia.com/gpu: NoSchedule) on GPU pods.",
     RuleExample("no-matching-node"), /*gpus=*/nullptr, /*no_fix=*/nullptr,
     /*needs_nodes=*/true},
    Check,
};

}  // namespace gpulint
