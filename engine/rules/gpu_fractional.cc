// gpu-fractional: nvidia.com/gpu: 0.5 arrives as "500m" and is refused.
#include "engine/rules/rule.h"
#include "engine/rules/rule_text.h"
#include "engine/rules/rule_util.h"
#include "generated/rule_examples.h"

namespace gpulint {
namespace {

void CheckEntry(const ContainerInfo& c, const ResourceEntry& e, const Policy& policy,
                Reporter& out) {
  if (!e.valid || e.quantity.is_whole() || !IsGpuResource(policy, e.name)) return;
  out.Report(e.value, e.path,
             ContainerLabel(c) + ": " + e.name + " " + DescribeCount(e.quantity) +
                 std::string(rule_text::kGpuNotWhole) + policy.vram_resource + ")");
}

void Check(const ObjectContext& ctx, Reporter& out) {
  for (const PodInfo& pod : ctx.pods)
    for (const ContainerInfo& c : pod.containers) {
      for (const ResourceEntry& e : c.requests) CheckEntry(c, e, ctx.policy, out);
      for (const ResourceEntry& e : c.limits) CheckEntry(c, e, ctx.policy, out);
    }
}

}  // namespace

extern const Rule kGpuFractionalRule = {
    {"gpu-fractional", Severity::kError, "A fractional GPU count",
     "The device plugin hands out whole GPUs: `nvidia.com/gpu: 0.5` is stored as 500m and the "
     "API server rejects it. Sharing a GPU takes MPS or time-slicing, which the device plugin "
     "exposes as whole replicas (one T4 shared by MPS is advertised as nvidia.com/gpu: 10).",
     "Request a whole number of GPUs, or configure MPS / time-slicing replicas on the node and "
     "request one replica.",
     RuleExample("gpu-fractional"), kWholeGpus},
    Check,
};

}  // namespace gpulint
