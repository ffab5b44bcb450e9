// gpu-limit-missing: a CUDA container with no GPU limit sees every GPU on its
// node (incident 5: NVIDIA_VISIBLE_DEVICES=all is baked into CUDA images).
#include "engine/rule.h"
#include "engine/rules/rule_util.h"
#include "generated/rule_examples.h"

namespace gpulint {
namespace {

// NVIDIA_VISIBLE_DEVICES=void|none hides the GPUs: the container opted out.
bool HidesGpus(const ContainerInfo& c) {
  const Value* v = c.Env("NVIDIA_VISIBLE_DEVICES");
  return v && (v->text() == "void" || v->text() == "none" || v->text().empty());
}

// With an inventory whose candidates are all CPU nodes, the pod cannot reach a GPU.
bool OnlyCpuCandidates(const PodInfo& pod) {
  if (pod.candidates.empty()) return false;
  for (const Candidate& n : pod.candidates)
    if (n.node->has_gpu()) return false;
  return true;
}

void Check(const ObjectContext& ctx, Reporter& out) {
  const Policy& policy = ctx.policy;
  for (const PodInfo& pod : ctx.pods) {
    if (!pod.node_agent.empty() || OnlyCpuCandidates(pod) || pod.SchedulerAssignsGpus(policy))
      continue;
    for (const ContainerInfo& c : pod.containers) {
      if (c.UsesGpus(policy) || HidesGpus(c) || !policy.MatchesCudaImage(c.image) ||
          policy.agent_images.Matches(c.image) || c.HasClaims())
        continue;
      std::string why = pod.can_reach_gpu_node ? " and " + pod.gpu_reach_reason : "";
      if (c.Limit("alpha.kubernetes.io/nvidia-gpu"))
        why += " (alpha.kubernetes.io/nvidia-gpu was removed in Kubernetes 1.11)";
      out.Report(c.node, c.path,
                 ContainerLabel(c) + " runs a CUDA image (" + c.image + ")" + why +
                     ", but sets no " +
                     (ctx.policy.gpu_resources.empty() ? std::string("GPU")
                                                       : ctx.policy.gpu_resources.front()) +
                     " limit: on a GPU node it sees every GPU, including GPUs allocated to "
                     "other pods");
    }
  }
}

}  // namespace

extern const Rule kGpuLimitMissingRule = {
    {"gpu-limit-missing", Severity::kError,
     "A CUDA container without a GPU limit sees every GPU on the node",
     "CUDA images set NVIDIA_VISIBLE_DEVICES=all. A container that runs one without a GPU limit "
     "is not given GPUs by the device plugin, so the NVIDIA runtime exposes all of them: it can "
     "use, and exhaust the memory of, GPUs the scheduler gave to other pods: a pod with no GPU "
     "request saw all 4 GPUs of its node while each was allocated to another pod.",
     "Set resources.limits[\"nvidia.com/gpu\"] on the container, or, if it needs no GPU, set the "
     "env NVIDIA_VISIBLE_DEVICES=void (the mutating webhook does this for you).",
     RuleExample("gpu-limit-missing")},
    Check,
};

}  // namespace gpulint
