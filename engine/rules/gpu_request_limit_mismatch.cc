// gpu-request-limit-mismatch: extended resources (GPUs, the VRAM resource)
// cannot be overcommitted: requests must equal limits, and limits must be set.
#include "engine/rules/rule.h"
#include "engine/rules/rule_util.h"
#include "generated/rule_examples.h"

namespace gpulint {
namespace {

void CheckContainer(const ContainerInfo& c, Reporter& out) {
  for (const ResourceEntry& req : c.requests) {
    if (!req.valid || !IsExtendedResource(req.name)) continue;
    const ResourceEntry* lim = c.Limit(req.name);
    if (!lim) {
      out.Report(req.value, req.path,
                 ContainerLabel(c) + ": " + req.name + " is requested (" +
                     DescribeCount(req.quantity) +
                     ") with no limit; extended resources need limits equal to requests, "
                     "the API server rejects this pod");
    } else if (lim->valid && lim->quantity != req.quantity) {
      out.Report(req.value, req.path,
                 ContainerLabel(c) + ": " + req.name + " requests " + DescribeCount(req.quantity) +
                     " but limits " + DescribeCount(lim->quantity) +
                     "; extended resources cannot be overcommitted, the API server rejects this "
                     "pod");
    }
  }
}

void Check(const ObjectContext& ctx, Reporter& out) {
  for (const PodInfo& pod : ctx.pods)
    for (const ContainerInfo& c : pod.containers) CheckContainer(c, out);
}

}  // namespace

extern const Rule kGpuRequestLimitMismatchRule = {
    {"gpu-request-limit-mismatch", Severity::kError,
     "GPU (extended resource) requests differ from limits",
     "GPUs and other extended resources are allocated whole and cannot be overcommitted: the API "
     "server rejects a pod whose requests differ from its limits, after the mutating webhooks "
     "have run. A limit alone is fine: the request defaults to it.",
     "Set only limits (e.g. `nvidia.com/gpu: 2`), or set requests equal to limits.",
     RuleExample("gpu-request-limit-mismatch"), kWholeGpus},
    Check,
};

}  // namespace gpulint
