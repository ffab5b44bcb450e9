// memory-limit-missing: a GPU container with no memory limit (incident 3).
#include "engine/base/path.h"
#include "engine/rules/rule.h"
#include "engine/rules/rule_util.h"
#include "generated/rule_examples.h"

namespace gpulint {
namespace {

void Check(const ObjectContext& ctx, Reporter& out) {
  for (const PodInfo& pod : ctx.pods) {
    if (pod.partial) continue;  // a runtime's defaults, never run as written
    // A pod-level memory limit bounds every container that sets none.
    if (pod.PodLimit("memory")) continue;
    for (const ContainerInfo& c : pod.containers) {
      if (!c.UsesGpus(ctx.policy) || c.Limit("memory")) continue;
      const Value* at = c.node->Find(c.resources_field);
      std::string path = AppendKey(c.path, c.resources_field) + ".limits";
      std::string claims = DescribeGpuClaims(c);
      out.Report(
          at ? at : c.node, path,
          ContainerLabel(c) + " uses GPUs" + (claims.empty() ? "" : " (" + claims + ")") +
              " but sets no memory limit; the driver's host "
              "memory is not charged to the pod, so an unbounded container can hang the node");
    }
  }
}

}  // namespace

extern const Rule kMemoryLimitMissingRule = {
    {"memory-limit-missing", Severity::kWarning, "A GPU container without a memory limit",
     "The NVIDIA driver allocates host memory on behalf of GPU processes that no cgroup charges to "
     "the pod (31.4 GB of nvidia_pte_cache on a T4 node running an OpenGL renderer). Without a "
     "memory limit the container and "
     "the driver together push the node into reclaim; it hangs instead of OOM-killing the pod, "
     "goes NotReady, and the pod moves on to the next GPU node.",
     "Set resources.limits.memory on every GPU container, or a pod-level limit "
     "(spec.resources.limits.memory, Kubernetes 1.34+) that bounds them all, leaving the "
     "policy's per-GPU headroom free on the node.",
     RuleExample("memory-limit-missing"), kGpuUse},
    Check,
};

}  // namespace gpulint
