// dra-claim-unresolved: a container uses a DRA claim whose ResourceClaim or
// ResourceClaimTemplate is not in view, so gpulint cannot tell whether it
// brings GPUs (and the GPU rules do not count it).
#include "engine/rules/rule.h"
#include "generated/rule_examples.h"

namespace gpulint {
namespace {

void Check(const ObjectContext& ctx, Reporter& out) {
  for (const PodInfo& pod : ctx.pods)
    for (const PodInfo::UnresolvedClaim& claim : pod.unresolved_claims)
      out.Report(claim.node, claim.path,
                 "claim \"" + claim.name + "\" comes from " + claim.source +
                     ", which is not given before this object: gpulint cannot tell whether it "
                     "brings GPUs, so no GPU rule counts it; put the " +
                     claim.source.substr(0, claim.source.find(' ')) +
                     " before it, in the same file or stream");
}

}  // namespace

extern const Rule kDraClaimUnresolvedRule = {
    {"dra-claim-unresolved", Severity::kInfo,
     "A DRA claim whose devices gpulint cannot see",
     "With Dynamic Resource Allocation (resource.k8s.io, GA in Kubernetes 1.34) a pod names its "
     "devices through spec.resourceClaims, and the device class, count and capacity live in a "
     "ResourceClaimTemplate or ResourceClaim. A GPU reached that way needs a memory limit like "
     "any other (a DRA GPU container with none was among the problems gpulint used to miss), "
     "but a pod alone does not say whether its claim holds GPUs, and gpulint does not guess "
     "from names: such a claim is counted as no GPU, and this finding says so. The webhook sees "
     "one object at a time and reports every claim this way.",
     "Lint the ResourceClaimTemplate or ResourceClaim with the workload, before it in the same "
     "file or stream (e.g. `cat claims.yaml job.yaml | gpulint check -`).",
     RuleExample("dra-claim-unresolved"), /*gpus=*/nullptr,
     /*no_fix=*/nullptr, /*needs_nodes=*/false, /*not_cel=*/
     "it needs other objects: the ResourceClaims and ResourceClaimTemplates a pod's claims name, "
     "which admission of the pod does not see"},
    Check,
};

}  // namespace gpulint
