// removed-annotation: annotations that once meant something and now do
// nothing (incident 5: scheduler.alpha.kubernetes.io/critical-pod).
#include "engine/base/path.h"
#include "engine/rules/rule.h"
#include "engine/rules/rule_util.h"
#include "generated/rule_examples.h"

namespace gpulint {
namespace {

struct RemovedAnnotation {
  const char* key;
  const char* removed_in;
  const char* replacement;
};

constexpr RemovedAnnotation kRemoved[] = {
    {"scheduler.alpha.kubernetes.io/critical-pod", "1.16",
     "priorityClassName: system-node-critical (or system-cluster-critical)"},
    {"scheduler.alpha.kubernetes.io/tolerations", "1.6", "spec.tolerations"},
    {"scheduler.alpha.kubernetes.io/affinity", "1.6", "spec.affinity"},
    {"pod.alpha.kubernetes.io/init-containers", "1.8", "spec.initContainers"},
    {"pod.beta.kubernetes.io/init-containers", "1.8", "spec.initContainers"},
    {"seccomp.security.alpha.kubernetes.io/pod", "1.27", "securityContext.seccompProfile"},
    {"container.seccomp.security.alpha.kubernetes.io/", "1.27",
     "the container's securityContext.seccompProfile"},
};

void CheckMetadata(const Value* metadata, const std::string& path, Reporter& out) {
  const Value* annotations = metadata ? metadata->Find("annotations") : nullptr;
  if (!annotations || !annotations->is_mapping()) return;
  for (const auto& [key, value] : annotations->members()) {
    for (const RemovedAnnotation& r : kRemoved) {
      std::string_view k = r.key;
      bool prefix = k.back() == '/';
      if (prefix ? key.rfind(k, 0) != 0 : key != k) continue;
      out.Report(&value, AppendKey(path + ".annotations", key),
                 "annotation " + key + " has had no effect since Kubernetes " + r.removed_in +
                     "; use " + r.replacement);
    }
  }
}

void Check(const ObjectContext& ctx, Reporter& out) {
  CheckMetadata(ctx.object.Find("metadata"), "metadata", out);
  for (const PodInfo& pod : ctx.pods)
    if (pod.metadata && pod.metadata != ctx.object.Find("metadata"))
      CheckMetadata(pod.metadata, MetadataPath(pod), out);
}

}  // namespace

extern const Rule kRemovedAnnotationRule = {
    {"removed-annotation", Severity::kWarning, "An annotation Kubernetes no longer reads",
     "Annotations such as scheduler.alpha.kubernetes.io/critical-pod were replaced by fields "
     "years ago; kept in a manifest they protect nothing (the device plugin is not treated as "
     "critical) while looking as if they do.",
     "Use the field shown instead and delete the annotation.",
     RuleExample("removed-annotation"), /*gpus=*/nullptr,
     /*no_fix=*/nullptr, /*needs_nodes=*/false, /*not_cel=*/
     "it reads the annotations of every object, whatever its kind: a policy matching every request "
     "in the cluster for one warning"},
    Check,
};

}  // namespace gpulint
