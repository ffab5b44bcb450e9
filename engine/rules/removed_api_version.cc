// removed-api-version: API versions no server serves any more, Kubernetes'
// own (incident 5: extensions/v1beta1 DaemonSet) and the GPU operators' CRDs
// (engine/workload/removed_apis.h).
#include "engine/rules/rule.h"
#include "engine/workload/removed_apis.h"
#include "generated/rule_examples.h"

namespace gpulint {
namespace {

void Check(const ObjectContext& ctx, Reporter& out) {
  const std::string& version = ctx.ref.api_version;
  const std::string& kind = ctx.ref.kind;
  const RemovedApi* r = FindRemovedApi(version, kind);
  if (!r) return;
  std::string when = std::string(r->server) == "Kubernetes"
                         ? " was removed in Kubernetes " + std::string(r->removed_in)
                         : " is not served by " + std::string(r->server) + " since " +
                               r->removed_in;
  out.Report(ctx.object.Find("apiVersion"), "apiVersion",
             version + " " + kind + when + " (kubectl: no matches for kind \"" + kind +
                 "\" in version \"" + version + "\"); use " + r->replacement);
}

}  // namespace

extern const Rule kRemovedApiVersionRule = {
    {"removed-api-version", Severity::kError, "An API version Kubernetes no longer serves",
     "Old device-plugin manifests still use extensions/v1beta1 DaemonSets, which every cluster "
     "since 1.16 rejects with `no matches for kind \"DaemonSet\" in version "
     "\"extensions/v1beta1\"`. Operators drop versions of their custom resources the same way: "
     "MPIJob kubeflow.org/v1alpha1 and v1alpha2 (the MPI Operator serves v2beta1 since v0.4.0) "
     "and KFServing's serving.kubeflow.org (KServe's group is serving.kserve.io).",
     "Move to the version shown (apps/v1 for workloads; add spec.selector matching the template's "
     "labels).",
     RuleExample("removed-api-version"), /*gpus=*/nullptr,
     /*no_fix=*/nullptr, /*needs_nodes=*/false, /*not_cel=*/
     "an API version Kubernetes no longer serves is refused by the API server (404) before "
     "admission"},
    Check,
};

}  // namespace gpulint
