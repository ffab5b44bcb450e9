// limits-missing-on-gpu-node (off by default): every container of a pod that
// can land on a GPU node sets memory and CPU limits, GPU or not. A CPU-only
// pod without a memory limit takes a GPU node down as surely as a GPU pod
// (incident 3: part of the driver's memory is outside every cgroup, so the
// node has less than it shows).
#include "engine/base/path.h"
#include "engine/rules/rule.h"
#include "engine/rules/rule_util.h"
#include "generated/rule_examples.h"

namespace gpulint {
namespace {

void Check(const ObjectContext& ctx, Reporter& out) {
  for (const PodInfo& pod : ctx.pods) {
    if (pod.partial || !pod.node_agent.empty() || !pod.can_reach_gpu_node) continue;
    for (const ContainerInfo& c : pod.containers) {
      std::vector<std::string> missing;
      // A GPU container's memory limit is memory-limit-missing's to ask for.
      if (!c.Limit("memory") && !pod.PodLimit("memory") && !c.UsesGpus(ctx.policy))
        missing.push_back("memory");
      if (!c.Limit("cpu") && !pod.PodLimit("cpu")) missing.push_back("CPU");
      if (missing.empty()) continue;
      const Value* at = c.node->Find(c.resources_field);
      out.Report(at ? at : c.node, AppendKey(c.path, c.resources_field) + ".limits",
                 ContainerLabel(c) + " sets no " + missing[0] +
                     (missing.size() > 1 ? " or " + missing[1] : "") + " limit, and " +
                     pod.gpu_reach_reason +
                     ": an unbounded container on a GPU node takes what the GPU pods and their "
                     "driver need");
    }
  }
}

}  // namespace

extern const Rule kLimitsMissingOnGpuNodeRule = {
    {"limits-missing-on-gpu-node", Severity::kWarning,
     "A container that can land on a GPU node without memory and CPU limits",
     "Off by default: turn it on in the policy (rules: {limits-missing-on-gpu-node: {enabled: "
     "true}}). GPU nodes are the most expensive nodes to lose, and part of the NVIDIA driver's "
     "host memory is charged to no cgroup (on a discrete GPU about 120 MiB per CUDA context and "
     "1.2% of what a process pins, measured on an H200; far more through OpenGL/EGL), so a node "
     "has less memory than it shows. A CPU-only "
     "container without a memory limit on a GPU node (a sidecar, a log agent, a notebook's "
     "helper) can push it into reclaim as surely as a GPU container, and one without a CPU "
     "limit can starve the GPU pods' data loaders. kube-linter, Polaris and kube-score check "
     "limits on every pod; this checks them where it matters most: on every pod that can reach "
     "a GPU node.",
     "Set resources.limits.memory and resources.limits.cpu on every container, or pod-level "
     "limits (spec.resources.limits, Kubernetes 1.34+).",
     RuleExample("limits-missing-on-gpu-node"), kGpuUse},
    Check,
};

}  // namespace gpulint
