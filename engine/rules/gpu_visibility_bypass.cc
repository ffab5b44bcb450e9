// gpu-visibility-bypass: ways around the device plugin's GPU assignment.
#include <re2/re2.h>

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

// A container given GPUs that sets NVIDIA_VISIBLE_DEVICES itself replaces
// the device plugin's choice (kubelet hands the runtime the plugin's variables
// first, the pod's after, and the last one wins): void, none or nothing hides
// the GPUs it was given, which stay allocated to it and idle; any other value
// names GPUs of the node, not its own. (The exported policies judge alike:
// engine/vap/cel_rules_gpu.cc.)
void CheckEnvWithGpus(const ContainerInfo& c, Reporter& out) {
  const Value* env = c.node->Find("env");
  if (!env || !env->is_sequence()) return;
  for (size_t i = 0; i < env->items().size(); ++i) {
    const Value& e = env->items()[i];
    if (!e.is_mapping() || e.StringAt("name") != "NVIDIA_VISIBLE_DEVICES") continue;
    const Value* v = e.Find("value");
    const Value* from = e.Find("valueFrom");
    bool has_value = v && !v->is_mapping() && !v->is_sequence();
    std::string at = c.path + ".env[" + std::to_string(i) + "]";
    if (!has_value && from && from->is_mapping() && !from->members().empty()) {
      out.Report(from, at + ".valueFrom",
                 ContainerLabel(c) + " holds GPUs and sets NVIDIA_VISIBLE_DEVICES from " +
                     from->members().front().first +
                     ": whatever it holds replaces the device plugin's choice of its GPUs",
                 Severity::kWarning);
      continue;
    }
    std::string value = has_value && !v->is_null() ? std::string(v->text()) : "";
    const Value* node = has_value ? v : &e;
    if (has_value) at += ".value";
    std::string head = ContainerLabel(c) + " holds GPUs and sets NVIDIA_VISIBLE_DEVICES=" + value;
    if (value.empty() || value == "void" || value == "none") {
      out.Report(node, at,
                 head + ": it sees none of them; they stay allocated to it and idle (remove the "
                        "variable, or the GPU limit if it needs no GPU)");
    } else {
      out.Report(node, at,
                 head + " by hand: that replaces the device plugin's choice, so it sees " +
                     (value == "all" ? std::string("every GPU of its node")
                                     : "the node's GPUs " + value + ", not the ones it was given") +
                     ", including GPUs allocated to other pods");
    }
  }
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
// Whether the container's capabilities add `name` (IPC_LOCK, CAP_IPC_LOCK).
bool AddsCapability(const ContainerInfo& c, std::string_view name) {
  const Value* security = c.node->Find("securityContext");
  const Value* caps = security ? security->Find("capabilities") : nullptr;
  const Value* add = caps ? caps->Find("add") : nullptr;
  if (!add || !add->is_sequence()) return false;
  for (const Value& cap : add->items())
    if (cap.text() == name || cap.text() == "CAP_" + std::string(name)) return true;
  return false;
}

// Whether every GPU node of the inventory the pod can land on has no more GPUs
// than the container holds: there it sees nothing more by being privileged
// (an 8-GPU NCCL worker on 8-GPU nodes). False with no such node in view.
bool HoldsEveryGpuOfItsNodes(const PodInfo& pod, const ContainerInfo& c, const Policy& policy) {
  int64_t held = c.GpuCount(policy).Value();
  bool any = false;
  for (const Candidate& n : pod.candidates) {
    if (!n.node->has_gpu()) continue;
    if (n.node->gpu.sharing != GpuSharing::kNone || n.node->gpu.count > held) return false;
    any = true;
  }
  return any;
}

void CheckPrivileged(const PodInfo& pod, const ContainerInfo& c, const Policy& policy,
                     Reporter& out) {
  if (!c.Privileged()) return;
  const Value* priv = c.node->Find("securityContext")->Find("privileged");
  std::string at = c.path + ".securityContext.privileged";
  if (c.UsesGpus(policy)) {
    if (HoldsEveryGpuOfItsNodes(pod, c, policy)) return;
    std::string instead = AddsCapability(c, "IPC_LOCK")
                              ? "drop privileged: its IPC_LOCK is what RDMA needs"
                              : "grant the capabilities it needs (IPC_LOCK for RDMA) instead";
    out.Report(priv, at,
               ContainerLabel(c) +
                   " holds GPUs and is privileged: it sees every GPU device of its node "
                   "(/dev/nvidia*, /dev/dri, /dev/kfd), not only the ones it was given, and can "
                   "use the other pods' GPUs; " + instead,
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

// GKE's NRI device injector gives container NAME the host devices that the
// pod annotation devices.gke.io/container.NAME lists (GPUDirect-TCPX's
// daemon takes /dev/nvidia0..7 so, beside its pod's GPU container). In a pod
// that holds no GPU, GPU device nodes so given reach GPUs around the device
// plugin.
void CheckDeviceAnnotations(const PodInfo& pod, const Policy& policy, Reporter& out) {
  const Value* annotations = pod.metadata ? pod.metadata->Find("annotations") : nullptr;
  if (!annotations || !annotations->is_mapping()) return;
  for (const ContainerInfo& c : pod.containers)
    if (c.UsesGpus(policy)) return;
  static const RE2 kGpuDevice("(/dev/(?:nvidia[0-9]+|dri(?:/[A-Za-z0-9_.-]+)?|kfd))");
  constexpr std::string_view kPrefix = "devices.gke.io/container.";
  for (const auto& [key, value] : annotations->members()) {
    if (key.rfind(kPrefix, 0) != 0 || !value.is_string()) continue;
    std::vector<std::string> gpus;
    std::string device;
    re2::StringPiece rest(value.text().data(), value.text().size());
    while (RE2::FindAndConsume(&rest, kGpuDevice, &device)) gpus.push_back(device);
    if (gpus.empty()) continue;
    std::string list;
    for (size_t i = 0; i < gpus.size() && i < 3; ++i) list += (i ? ", " : "") + gpus[i];
    if (gpus.size() > 3) list += ", ...";
    out.Report(&value, AppendKey(MetadataPath(pod) + ".annotations", key),
               "annotation " + key + " gives container \"" + key.substr(kPrefix.size()) + "\" " +
                   std::to_string(gpus.size()) + " GPU device node" +
                   (gpus.size() == 1 ? "" : "s") + " (" + list +
                   ") in a pod that holds no GPU: it reaches GPUs around the device plugin, "
                   "other pods' included",
               Severity::kWarning);
  }
}

void Check(const ObjectContext& ctx, Reporter& out) {
  for (const PodInfo& pod : ctx.pods) {
    if (!pod.node_agent.empty()) continue;  // agents must see every GPU
    for (const ContainerInfo& c : pod.containers) {
      CheckPrivileged(pod, c, ctx.policy, out);
      if (c.UsesGpus(ctx.policy))
        CheckEnvWithGpus(c, out);
      else
        CheckEnv(pod, c, ctx.policy, out);
    }
    CheckHostPaths(pod, out);
    CheckDeviceAnnotations(pod, ctx.policy, out);
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
     "whatever it holds. A container that holds GPUs and sets NVIDIA_VISIBLE_DEVICES replaces the "
     "device plugin's choice (the pod's variable comes after the plugin's): void, none or an "
     "empty value hides the GPUs it was given, which stay allocated and idle; any other value "
     "names the node's GPUs, not its own (both errors, as NVIDIA's container runtime honours "
     "the variable unless it is configured not to). A privileged container that "
     "holds GPUs sees every GPU device of its node, not only its own, unless the node list "
     "shows it holds every GPU of each node it can land on (a warning, as are privileged "
     "containers without GPUs on a GPU node, hostPath mounts of /dev/nvidia*, /dev/dri or "
     "/dev/kfd, GKE's devices.gke.io/container.NAME annotation naming GPU device nodes in a "
     "pod that holds no GPU, and the variable where no GPU node is in reach). GPU node agents (device plugins, GPU Feature Discovery, dcgm-exporter, "
     "MIG manager, the GPU Operator's operands: pods that mount the kubelet's device-plugin or "
     "pod-resources directory, privileged or /dev-mounting DaemonSet pods, the policy's "
     "gpuNodes.agentImages) are not reported: they must see every GPU.",
     "Request GPUs through resources.limits. A node agent that gpulint does not recognise can be "
     "named in the policy's gpuNodes.agentImages or agentHostPaths.",
     RuleExample("gpu-visibility-bypass"), kGpuUse},
    Check,
};

}  // namespace gpulint
