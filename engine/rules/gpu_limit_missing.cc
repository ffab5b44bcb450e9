// gpu-limit-missing: a CUDA container with no GPU limit sees every GPU on its
// node (incident 5: NVIDIA_VISIBLE_DEVICES=all is baked into CUDA images).
#include "engine/rules/hide_gpus.h"
#include "engine/rules/rule.h"
#include "engine/rules/rule_util.h"
#include "generated/rule_examples.h"

namespace gpulint {
namespace {

// The repair: hide the GPUs from a container that asks for none, as the
// webhook's hide-GPUs mutation does, where that hides them.
void AttachFix(const ContainerInfo& c, const Policy& policy, Finding& f) {
  if (!policy.mutations.hide_gpus) {
    f.no_fix =
        "the policy turns hiding GPUs off (spec.mutations.hideGpus: false); set a GPU "
        "limit, or NVIDIA_VISIBLE_DEVICES=void if it needs no GPU";
  } else if (std::string typo = MisspeltGpuResource(c, policy); !typo.empty()) {
    f.no_fix = "it asks for " + typo +
               ", most likely a misspelt GPU resource: hiding the node's GPUs from it would "
               "hide the GPU it meant to ask for once the name is corrected; correct the name "
               "(unknown-resource says to what)";
  } else if (c.Privileged()) {
    f.no_fix =
        "it is privileged: it sees every GPU device whatever NVIDIA_VISIBLE_DEVICES says; "
        "drop privileged, or set a GPU limit";
  } else {
    f.fix = FixIt{{}, "add env NVIDIA_VISIBLE_DEVICES=void (no GPU limit: it must see no GPU)", ""};
    AddHideGpusOp(*c.node, c.pointer, &f.fix->ops);
  }
}

// With an inventory whose candidates are all CPU nodes, the pod cannot reach a GPU.
bool OnlyCpuCandidates(const PodInfo& pod) {
  if (pod.candidates.empty()) return false;
  for (const Candidate& n : pod.candidates)
    if (n.node->has_gpu()) return false;
  return true;
}

// An init container that runs the image of a GPU container of its own pod,
// before it (downloading a model, warming a cache): it sees every GPU while it
// runs, but only that long, and most likely touches none.
bool InitOfGpuImage(const PodInfo& pod, const ContainerInfo& c, const Policy& policy) {
  if (c.role != ContainerRole::kInit) return false;
  for (const ContainerInfo& other : pod.containers)
    if (&other != &c && other.UsesGpus(policy) && other.image == c.image) return true;
  return false;
}

// Whether the pod is the CPU part of a workload whose other pods hold the
// GPUs, in the same image (an MPI launcher, a Ray head, a Spark driver): the
// author gave the GPUs to the others, and the image says nothing more.
bool CpuPartOfGpuWorkload(const ObjectContext& ctx, const PodInfo& pod, const ContainerInfo& c) {
  for (const ContainerInfo& mine : pod.containers)
    if (mine.UsesGpus(ctx.policy)) return false;
  for (const PodInfo& other : ctx.pods) {
    if (&other == &pod) continue;
    for (const ContainerInfo& theirs : other.containers)
      if (theirs.UsesGpus(ctx.policy) && theirs.image == c.image) return true;
  }
  return false;
}

void Check(const ObjectContext& ctx, Reporter& out) {
  const Policy& policy = ctx.policy;
  for (const PodInfo& pod : ctx.pods) {
    if (pod.partial) continue;  // a runtime's defaults, never run as written
    if (!pod.node_agent.empty() || OnlyCpuCandidates(pod) || pod.SchedulerAssignsGpus(policy))
      continue;
    for (const ContainerInfo& c : pod.containers) {
      // Setting NVIDIA_VISIBLE_DEVICES is opting out (void, none) or
      // gpu-visibility-bypass's to judge.
      if (c.UsesGpus(policy) || SetsVisibleDevices(*c.node) || !policy.MatchesCudaImage(c.image) ||
          policy.agent_images.Matches(c.image) || c.HasClaims() ||
          CpuPartOfGpuWorkload(ctx, pod, c))
        continue;
      std::string removed = c.Limit("alpha.kubernetes.io/nvidia-gpu")
                                ? " (alpha.kubernetes.io/nvidia-gpu was removed in Kubernetes 1.11)"
                                : "";
      std::string what = ContainerLabel(c) + " runs a CUDA image (" + c.image + ")";
      std::string gpu = ctx.policy.gpu_resources.empty() ? std::string("GPU")
                                                         : ctx.policy.gpu_resources.front();
      // Where the pod surely reaches a GPU node, it sees every GPU there: an
      // error. Where only its image says it might, a warning: on a cluster
      // whose GPU nodes are tainted it lands on none.
      Finding* f = nullptr;
      if (pod.can_reach_gpu_node && !InitOfGpuImage(pod, c, policy)) {
        f = &out.Report(c.node, c.path,
                        what + " and " + pod.gpu_reach_reason + removed + ", but sets no " + gpu +
                            " limit: on a GPU node it sees every GPU, including GPUs allocated to "
                            "other pods");
      } else if (pod.can_reach_gpu_node) {
        f = &out.Report(
            c.node, c.path,
            what + ", the image of a GPU container of its pod, and sets no " + gpu +
                " limit: while it runs, before the others start, it sees every GPU of the "
                "node, including GPUs allocated to other pods",
            Severity::kWarning);
      } else {
        f = &out.Report(
            c.node, c.path,
            what + removed + " and sets no " + gpu +
                " limit: if it lands on a GPU node (one that is not tainted), it sees "
                "every GPU there, including GPUs allocated to other pods; nothing in the "
                "pod says where it runs",
            Severity::kWarning);
      }
      if (out.fixes()) AttachFix(c, policy, *f);
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
     "request saw all 4 GPUs of its node while each was allocated to another pod. An error "
     "where the pod surely reaches a GPU node (it tolerates the GPU taint, selects GPU nodes, "
     "another of its containers holds GPUs, or a node of --nodes can run it); a warning where "
     "only the image name says so, or where it is an init container of the image of a GPU "
     "container of its pod. The CPU part of a workload whose other pods hold GPUs in the "
     "same image (an MPI launcher, a Ray head) and the templates of runtimes are not reported.",
     "Set resources.limits[\"nvidia.com/gpu\"] on the container, or, if it needs no GPU, set the "
     "env NVIDIA_VISIBLE_DEVICES=void (the mutating webhook does this for you).",
     RuleExample("gpu-limit-missing"), kGpuUse, kNoRepair},
    Check,
};

}  // namespace gpulint
