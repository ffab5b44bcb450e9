// limit-below-request: a container's request above its limit, which the API
// server refuses (ValidateResourceRequirements); for hugepages, which cannot
// be overcommitted, any request that differs from the limit or has none.
// Extended resources (GPUs) are gpu-request-limit-mismatch's.
#include "engine/base/resource_names.h"
#include "engine/cluster/inventory.h"
#include "engine/rules/rule.h"
#include "engine/rules/rule_util.h"
#include "generated/rule_examples.h"

namespace gpulint {
namespace {

void CheckRequest(const ContainerInfo& c, const ResourceEntry& req, const Policy& policy,
                  Reporter& out) {
  if (!req.valid || IsExtendedResource(req.name)) return;
  const ResourceEntry* lim = c.Limit(req.name);
  const std::string who =
      ContainerLabel(c) + ": " + req.name + " request " + Describe(req.name, req.quantity, policy);
  if (!lim) {
    if (IsHugePages(req.name))
      out.Report(req.value, req.path,
                 who +
                     " has no limit; hugepages cannot be overcommitted, the API server refuses "
                     "it (\"Limit must be set for non overcommitable resources\")");
    return;
  }
  if (!lim->valid) return;
  const std::string limit = Describe(req.name, lim->quantity, policy);
  const std::string quoted = req.name + " limit of " + lim->quantity.Canonical();
  if (IsHugePages(req.name) && req.quantity != lim->quantity) {
    out.Report(req.value, req.path,
               who + " differs from its limit " + limit +
                   "; hugepages cannot be overcommitted, the API server refuses it (\"must be "
                   "equal to " +
                   quoted + "\")");
  } else if (req.quantity > lim->quantity) {
    out.Report(req.value, req.path,
               who + " is more than its limit " + limit +
                   "; the API server refuses it (\"must be less than or equal to " + quoted +
                   "\")");
  }
}

void Check(const ObjectContext& ctx, Reporter& out) {
  for (const PodInfo& pod : ctx.pods)
    for (const ContainerInfo& c : pod.containers)
      for (const ResourceEntry& req : c.requests) CheckRequest(c, req, ctx.policy, out);
}

}  // namespace

extern const Rule kLimitBelowRequestRule = {
    {"limit-below-request", Severity::kError, "A resource limit below its request",
     "A limit caps what a container may use and a request is what the scheduler sets aside, so "
     "a request above its limit means nothing: the API server refuses the pod (\"spec.containers"
     "[0].resources.requests: Invalid value: \\\"2Gi\\\": must be less than or equal to memory "
     "limit of 1Gi\"), and a workload's pods are never created. Hugepages cannot be "
     "overcommitted at all: their request must equal their limit (\"must be equal to "
     "hugepages-2Mi limit of ...\").",
     "Raise the limit to at least the request, or lower the request; for hugepages set the "
     "request equal to the limit (or set only the limit: the request defaults to it).",
     RuleExample("limit-below-request"), /*gpus=*/nullptr,
     /*no_fix=*/nullptr, /*needs_nodes=*/false, /*not_cel=*/
     "for the kinds Kubernetes knows, the API server's validation refuses a request above its "
     "limit before admission; for custom resources, its messages quote quantities in Kubernetes' "
     "canonical form (2048Mi as 2Gi), which CEL cannot print"},
    Check,
};

}  // namespace gpulint
