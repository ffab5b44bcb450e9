// removed-api-version: API versions the API server no longer serves
// (incident 5: extensions/v1beta1 DaemonSet).
#include "engine/rule.h"
#include "generated/rule_examples.h"

namespace gpulint {
namespace {

struct Removed {
  const char* api_version;
  const char* kind;  // "*" for every kind of the version
  const char* removed_in;
  const char* replacement;
};

constexpr Removed kRemoved[] = {
    {"extensions/v1beta1", "DaemonSet", "1.16", "apps/v1 (which also requires spec.selector)"},
    {"extensions/v1beta1", "Deployment", "1.16", "apps/v1 (which also requires spec.selector)"},
    {"extensions/v1beta1", "ReplicaSet", "1.16", "apps/v1 (which also requires spec.selector)"},
    {"extensions/v1beta1", "NetworkPolicy", "1.16", "networking.k8s.io/v1"},
    {"extensions/v1beta1", "PodSecurityPolicy", "1.16",
     "nothing (PodSecurityPolicy is gone since 1.25)"},
    {"extensions/v1beta1", "Ingress", "1.22", "networking.k8s.io/v1"},
    {"apps/v1beta1", "*", "1.16", "apps/v1"},
    {"apps/v1beta2", "*", "1.16", "apps/v1"},
    {"batch/v1beta1", "CronJob", "1.25", "batch/v1"},
    {"batch/v2alpha1", "CronJob", "1.21", "batch/v1"},
    {"policy/v1beta1", "PodDisruptionBudget", "1.25", "policy/v1"},
    {"policy/v1beta1", "PodSecurityPolicy", "1.25", "Pod Security admission"},
    {"networking.k8s.io/v1beta1", "Ingress", "1.22", "networking.k8s.io/v1"},
    {"scheduling.k8s.io/v1beta1", "PriorityClass", "1.22", "scheduling.k8s.io/v1"},
    {"rbac.authorization.k8s.io/v1beta1", "*", "1.22", "rbac.authorization.k8s.io/v1"},
    {"node.k8s.io/v1beta1", "RuntimeClass", "1.25", "node.k8s.io/v1"},
    {"autoscaling/v2beta1", "HorizontalPodAutoscaler", "1.25", "autoscaling/v2"},
    {"autoscaling/v2beta2", "HorizontalPodAutoscaler", "1.26", "autoscaling/v2"},
    {"flowcontrol.apiserver.k8s.io/v1beta2", "*", "1.29", "flowcontrol.apiserver.k8s.io/v1"},
    {"resource.k8s.io/v1alpha2", "*", "1.31", "resource.k8s.io/v1"},
};

void Check(const ObjectContext& ctx, Reporter& out) {
  const std::string& version = ctx.ref.api_version;
  const std::string& kind = ctx.ref.kind;
  for (const Removed& r : kRemoved) {
    if (version != r.api_version || (std::string_view(r.kind) != "*" && kind != r.kind)) continue;
    out.Report(ctx.object.Find("apiVersion"), "apiVersion",
               version + " " + kind + " was removed in Kubernetes " + r.removed_in +
                   " (kubectl: no matches for kind \"" + kind + "\" in version \"" + version +
                   "\"); use " + r.replacement);
    return;
  }
}

}  // namespace

extern const Rule kRemovedApiVersionRule = {
    {"removed-api-version", Severity::kError, "An API version Kubernetes no longer serves",
     "Old device-plugin manifests still use extensions/v1beta1 DaemonSets, which every cluster "
     "since 1.16 rejects with `no matches for kind \"DaemonSet\" in version "
     "\"extensions/v1beta1\"`.",
     "Move to the version shown (apps/v1 for workloads; add spec.selector matching the template's "
     "labels).",
     RuleExample("removed-api-version")},
    Check,
};

}  // namespace gpulint
