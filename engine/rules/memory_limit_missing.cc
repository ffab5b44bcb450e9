// memory-limit-missing: a GPU container with no memory limit (incident 3).
#include "engine/base/objects.h"
#include "engine/base/path.h"
#include "engine/rules/rule.h"
#include "engine/rules/rule_util.h"
#include "generated/rule_examples.h"

namespace gpulint {
namespace {

// An InferenceService's predictor model (spec.predictor.model, or a
// framework's shorthand such as spec.predictor.pytorch), which KServe merges
// with its serving runtime's container.
bool IsPredictorModel(const ObjectContext& ctx, const ContainerInfo& c) {
  if (ctx.ref.kind != "InferenceService" || ApiGroupOf(ctx.ref.api_version) != "serving.kserve.io")
    return false;
  constexpr std::string_view kPredictor = "spec.predictor.";
  if (c.path.rfind(kPredictor, 0) != 0) return false;
  std::string_view field = std::string_view(c.path).substr(kPredictor.size());
  return field.find_first_of(".[") == std::string_view::npos;
}

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
      std::string head = ContainerLabel(c) + " uses GPUs" +
                         (claims.empty() ? "" : " (" + claims + ")") + " but sets no memory limit";
      constexpr std::string_view kWhy =
          "; the driver's host memory is not charged to the pod, so an unbounded container can "
          "hang the node";
      if (IsPredictorModel(ctx, c)) {
        // KServe merges the runtime's container in: its memory limit stands
        // when the predictor sets none.
        std::vector<const ServingRuntime*> runtimes =
            ctx.runtimes ? ctx.runtimes->For(ctx.ref.namespace_name, *c.node)
                         : std::vector<const ServingRuntime*>{};
        if (runtimes.empty()) {
          out.Report(at ? at : c.node, path,
                     head + "; its serving runtime, not in the input, may set one (KServe "
                            "merges the runtime's container into the predictor): if it sets none "
                            "either, the driver's host memory is not charged to the pod, so an "
                            "unbounded container can hang the node",
                     Severity::kInfo);
          continue;
        }
        bool all_set = true;
        std::string unset;
        for (const ServingRuntime* r : runtimes) {
          all_set = all_set && !r->memory_limit.empty();
          if (r->memory_limit.empty() && unset.empty()) unset = r->kind + " \"" + r->name + "\"";
        }
        if (all_set) continue;
        head += ", nor does its " + unset;
      }
      out.Report(at ? at : c.node, path, head + std::string(kWhy));
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
     "goes NotReady, and the pod moves on to the next GPU node. A KServe InferenceService's "
     "predictor is merged with its serving runtime's container: a memory limit of the "
     "ServingRuntime or ClusterServingRuntime in the input stands for it, and with the runtime "
     "not in the input the finding is an info (the runtime may set one).",
     "Set resources.limits.memory on every GPU container, or a pod-level limit "
     "(spec.resources.limits.memory, Kubernetes 1.34+) that bounds them all, leaving the "
     "policy's per-GPU headroom free on the node.",
     RuleExample("memory-limit-missing"), kGpuUse},
    Check,
};

}  // namespace gpulint
