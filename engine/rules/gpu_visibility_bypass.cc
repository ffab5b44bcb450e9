// gpu-visibility-bypass: ways around the device plugin's GPU assignment.
#include "engine/base/path.h"
#include "engine/rules/rule.h"
#include "engine/rules/rule_util.h"
#include "generated/rule_examples.h"

namespace gpulint {
namespace {

// The host's GPU device nodes: NVIDIA's, the DRM render nodes (Intel, AMD)
// and AMD's compute interface.
bool IsGpuDevicePath(std::string_view path) {
  return path == "/dev" || path == "/dev/" || path.rfind("/dev/nvidia", 0) == 0 ||
         path.rfind("/dev/dri", 0) == 0 || path.rfind("/dev/kfd", 0) == 0;
}

// An error when the pod can reach a GPU node: there the container picks GPUs
// that are another pod's (incident 5). Elsewhere it sees none: a warning. A
// container of an agent image in a pod that is no agent (a sidecar) must see
// every GPU: a warning too.
void CheckEnv(const PodInfo& pod, const ContainerInfo& c, const Policy& policy, Reporter& out) {
  const Value* env = c.node->Find("env");
  if (!env || !env->is_sequence()) return;
  for (size_t i = 0; i < env->items().size(); ++i) {
    const Value& e = env->items()[i];
    std::string_view name = e.StringAt("name");
    if (name != "NVIDIA_VISIBLE_DEVICES" && name != "CUDA_VISIBLE_DEVICES") continue;
    const Value* v = e.Find("value");
    const Value* from = e.Find("valueFrom");
    std::string set, at = c.path + ".env[" + std::to_string(i) + "]";
    if (v && v->is_scalar() && !v->text().empty()) {
      if (v->text() == "void" || v->text() == "none") continue;
      set = "=" + v->text();
      at += ".value";
    } else if (from && from->is_mapping() && !from->members().empty()) {
      // Whatever the ConfigMap, Secret or field holds, the container chose
      // it: nothing proves it empty.
      set = " from " + from->members().front().first;
      at += ".valueFrom";
      v = from;
    } else {
      continue;
    }
    std::string msg = ContainerLabel(c) + " sets " + std::string(name) + set +
                      " by hand with no GPU limit: it chooses GPUs the scheduler did not give it";
    if (pod.can_reach_gpu_node && !policy.agent_images.Matches(c.image))
      out.Report(v, at, msg + ", and " + pod.gpu_reach_reason);
    else
      out.Report(v, at, msg, Severity::kWarning);
  }
}

// A privileged container sees every device of its node: with GPUs of its own
// it also sees the other pods' (the device plugin's choice is lost); with
// none, it sees all of them where it can reach a GPU node.
void CheckPrivileged(const PodInfo& pod, const ContainerInfo& c, const Policy& policy,
                     Reporter& out) {
  if (!c.Privileged()) return;
  const Value* priv = c.node->Find("securityContext")->Find("privileged");
  std::string at = c.path + ".securityContext.privileged";
  if (c.UsesGpus(policy)) {
    out.Report(priv, at,
               ContainerLabel(c) +
                   " holds GPUs and is privileged: it sees every GPU device of its node "
                   "(/dev/nvidia*, /dev/dri, /dev/kfd), not only the ones it was given, and can "
                   "use the other pods' GPUs; grant the capabilities it needs (IPC_LOCK for "
                   "RDMA) instead",
               Severity::kWarning);
  } else if (pod.can_reach_gpu_node) {
    out.Report(priv, at,
               ContainerLabel(c) + " is privileged and " + pod.gpu_reach_reason +
                   ": a privileged container sees every /dev/nvidia* device whatever its GPU "
                   "limit",
               Severity::kWarning);
  }
}

void CheckHostPaths(const PodInfo& pod, Reporter& out) {
  const Value* volumes = pod.spec->Find("volumes");
  if (!volumes || !volumes->is_sequence()) return;
  for (size_t i = 0; i < volumes->items().size(); ++i) {
    const Value* host = volumes->items()[i].Find("hostPath");
    const Value* path = host ? host->Find("path") : nullptr;
    if (!path || !IsGpuDevicePath(path->text())) continue;
    out.Report(path, pod.path + ".volumes[" + std::to_string(i) + "].hostPath.path",
               "hostPath volume " + path->text() +
                   " mounts GPU device nodes directly, bypassing the device plugin",
               Severity::kWarning);
  }
}

void Check(const ObjectContext& ctx, Reporter& out) {
  for (const PodInfo& pod : ctx.pods) {
    if (!pod.node_agent.empty()) continue;  // agents must see every GPU
    for (const ContainerInfo& c : pod.containers) {
      CheckPrivileged(pod, c, ctx.policy, out);
      if (!c.UsesGpus(ctx.policy)) CheckEnv(pod, c, ctx.policy, out);
    }
    CheckHostPaths(pod, out);
  }
}

}  // namespace

extern const Rule kGpuVisibilityBypassRule = {
    {"gpu-visibility-bypass", Severity::kError, "GPUs reached around the device plugin",
     "The device plugin decides which GPUs a container sees. NVIDIA_VISIBLE_DEVICES or "
     "CUDA_VISIBLE_DEVICES set by hand, a privileged container on a GPU node, or a hostPath "
     "mount of /dev/nvidia* each hand a container GPUs that the scheduler counts as free or as "
     "another pod's. The variable set by hand (other than void or none) in a "
     "container with no GPU limit whose pod can land on a GPU node is an error: that is the "
     "breach itself; so is a value taken from a ConfigMap, a Secret or a field (valueFrom), "
     "whatever it holds. A privileged container that holds GPUs sees every GPU device of its "
     "node, not only its own (a warning, as are privileged containers without GPUs on a GPU "
     "node, hostPath mounts of /dev/nvidia*, /dev/dri or /dev/kfd, and the variable where no GPU "
     "node is in reach). GPU node agents (device plugins, GPU Feature Discovery, dcgm-exporter, "
     "MIG manager, the GPU Operator's operands: pods that mount the kubelet's device-plugin or "
     "pod-resources directory, privileged or /dev-mounting DaemonSet pods, the policy's "
     "gpuNodes.agentImages) are not reported: they must see every GPU.",
     "Request GPUs through resources.limits. A node agent that gpulint does not recognise can be "
     "named in the policy's gpuNodes.agentImages or agentHostPaths.",
     RuleExample("gpu-visibility-bypass"), kGpuUse},
    Check,
};

}  // namespace gpulint
