// memory-limit-missing: a GPU container with no memory limit (incident 3), and
// on a unified-memory GPU, with neither a memory limit nor declared VRAM.
#include "engine/base/objects.h"
#include "engine/base/path.h"
#include "engine/rules/rule.h"
#include "engine/rules/rule_util.h"
#include "generated/rule_examples.h"

namespace gpulint {
namespace {

// What escapes a discrete GPU's pod: measured on an H200 (testdata/gpu/h200,
// docs/incidents.md). The VAP export says the same (engine/vap/cel_rules_gpu.cc).
constexpr const char* kNoLimit = " but sets no memory limit";
constexpr const char* kDiscrete =
    ": nothing bounds its host memory, pinned and managed CUDA memory "
    "included (the cgroup charges those), and outside its cgroup a discrete NVIDIA GPU's driver "
    "adds about 120 MiB per CUDA context and 1.2% of what it pins; an unbounded container can "
    "hang the node";

// The pod's GPU candidates whose GPUs use the node's own memory: the first of
// them, and whether every GPU candidate is one.
struct Unified {
  const Candidate* first = nullptr;
  std::string why;  // "nvidia.com/gpu.product NVIDIA-GH200-480GB"
  bool all = false;
};

Unified UnifiedCandidates(const PodInfo& pod, const Policy& policy) {
  Unified u;
  bool all = true;
  for (const Candidate& c : pod.candidates) {
    if (!c.node->has_gpu()) continue;
    std::string why;
    if (!policy.UnifiedMemory(*c.node, &why)) {
      all = false;
      continue;
    }
    if (!u.first) u.first = &c, u.why = why;
  }
  u.all = u.first && all;
  return u;
}

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
    Unified unified = UnifiedCandidates(pod, ctx.policy);
    for (const ContainerInfo& c : pod.containers) {
      if (!c.UsesGpus(ctx.policy) || c.Limit("memory")) continue;
      const Value* at = c.node->Find(c.resources_field);
      std::string path = AppendKey(c.path, c.resources_field) + ".limits";
      std::string claims = DescribeGpuClaims(c);
      std::string uses = ContainerLabel(c) + " uses GPUs" + (claims.empty() ? "" : " (" + claims + ")");
      if (!unified.first) {
        std::string head = uses + kNoLimit;
        if (IsPredictorModel(ctx, c)) {
          // KServe merges the runtime's container in: its memory limit stands
          // when the predictor sets none.
          std::vector<const ServingRuntime*> runtimes =
              ctx.runtimes ? ctx.runtimes->For(ctx.ref.namespace_name, *c.node)
                           : std::vector<const ServingRuntime*>{};
          if (runtimes.empty()) {
            out.Report(at ? at : c.node, path,
                       head + "; its serving runtime, not in the input, may set one (KServe "
                              "merges the runtime's container into the predictor), and if it "
                              "sets none either" + kDiscrete,
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
        out.Report(at ? at : c.node, path, head + kDiscrete);
        continue;
      }
      std::string node = "unified-memory node \"" + std::string(unified.first->name) + "\" (" +
                         unified.why + ")";
      std::optional<VramDeclaration> vram = DeclaredVram(pod, c, ctx.policy);
      if (vram) {
        out.Report(at ? at : c.node, path,
                   uses + " and declares " + DescribeBytes(vram->declared) +
                       " of VRAM but sets no memory limit; on " + node +
                       " its GPU memory is the node's memory, which no memory cgroup counts: "
                       "the scheduler keeps the declared VRAM free there, and nothing bounds "
                       "its host memory",
                   Severity::kWarning);
        continue;
      }
      // Unbounded and undeclared: nothing keeps it from the node's memory.
      out.Report(at ? at : c.node, path,
                 uses + " but declares neither VRAM nor a memory limit, and " +
                     (unified.all ? "runs" : "can run") + " on " + node +
                     ": there its GPU allocations come out of the node's memory, which the "
                     "memory cgroup does not count, so nothing stops it and the node wedges "
                     "instead of OOM-killing the pod; declare its VRAM (" +
                     ctx.policy.vram_annotation + ") and set resources.limits.memory",
                 unified.all ? Severity::kError : Severity::kWarning);
    }
  }
}

}  // namespace

extern const Rule kMemoryLimitMissingRule = {
    {"memory-limit-missing", Severity::kWarning,
     "A GPU container without a memory limit, or on a unified-memory GPU without declared VRAM",
     "Without a memory limit nothing bounds a GPU container's host memory, and some of it "
     "escapes the cgroup that would: on a discrete NVIDIA GPU the driver's own, about 120 MiB "
     "per CUDA context and 1.2% of the memory a process pins (measured on an H200; pinned and "
     "managed memory themselves are charged to the pod), and through the OpenGL/EGL path far "
     "more (31.4 GB of nvidia_pte_cache on a T4 node running a renderer). The node runs out "
     "before any cgroup does and hangs instead of OOM-killing the pod, goes NotReady, and the "
     "pod moves on to the next GPU node. On a unified-memory GPU (Grace Hopper, Grace "
     "Blackwell, DGX Spark's GB10, AMD MI300A) the GPU's memory is the node's memory and no "
     "memory cgroup counts GPU allocations at all (a GB10 process allocated 12 GiB under an 8G "
     "limit; a Grace Hopper host wedged and needed a power cycle): there a GPU container that "
     "declares neither its VRAM nor a memory limit is an error. A KServe InferenceService's "
     "predictor is merged with its serving runtime's container: a memory limit of the "
     "ServingRuntime or ClusterServingRuntime in the input stands for it, and with the runtime "
     "not in the input the finding is an info (the runtime may set one).",
     "Set resources.limits.memory on every GPU container, or a pod-level limit "
     "(spec.resources.limits.memory, Kubernetes 1.34+) that bounds them all, leaving the "
     "policy's per-GPU headroom free on the node; on a unified-memory GPU also declare the "
     "container's VRAM (gpulint.io/vram), which counts against the node's memory.",
     RuleExample("memory-limit-missing"), kGpuUse},
    Check,
};

}  // namespace gpulint
