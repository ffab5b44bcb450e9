// gpu-visibility-bypass: ways around the device plugin's GPU assignment.
#include "engine/path.h"
#include "engine/rule.h"
#include "engine/rules/rule_util.h"

namespace gpulint {
namespace {

bool IsNvidiaDevicePath(std::string_view path) {
  return path == "/dev" || path == "/dev/" || path.rfind("/dev/nvidia", 0) == 0 ||
         path.rfind("/dev/dri", 0) == 0;
}

void CheckEnv(const ContainerInfo& c, Reporter& out) {
  const Value* env = c.node->Find("env");
  if (!env || !env->is_sequence()) return;
  for (size_t i = 0; i < env->items().size(); ++i) {
    const Value& e = env->items()[i];
    std::string_view name = e.StringAt("name");
    if (name != "NVIDIA_VISIBLE_DEVICES" && name != "CUDA_VISIBLE_DEVICES") continue;
    const Value* v = e.Find("value");
    if (!v || v->text() == "void" || v->text() == "none" || v->text().empty()) continue;
    out.Report(v, c.path + ".env[" + std::to_string(i) + "].value",
               ContainerLabel(c) + " sets " + std::string(name) + "=" + v->text() +
                   " by hand with no GPU limit: it chooses GPUs the scheduler did not give it");
  }
}

void CheckPrivileged(const PodInfo& pod, const ContainerInfo& c, Reporter& out) {
  const Value* sc = c.node->Find("securityContext");
  const Value* priv = sc ? sc->Find("privileged") : nullptr;
  if (!priv || priv->text() != "true" || !pod.can_reach_gpu_node) return;
  out.Report(priv, c.path + ".securityContext.privileged",
             ContainerLabel(c) + " is privileged and " + pod.gpu_reach_reason +
                 ": a privileged container sees every /dev/nvidia* device whatever its GPU limit");
}

void CheckHostPaths(const PodInfo& pod, Reporter& out) {
  const Value* volumes = pod.spec->Find("volumes");
  if (!volumes || !volumes->is_sequence()) return;
  for (size_t i = 0; i < volumes->items().size(); ++i) {
    const Value* host = volumes->items()[i].Find("hostPath");
    const Value* path = host ? host->Find("path") : nullptr;
    if (!path || !IsNvidiaDevicePath(path->text())) continue;
    out.Report(path, pod.path + ".volumes[" + std::to_string(i) + "].hostPath.path",
               "hostPath volume " + path->text() +
                   " mounts GPU device nodes directly, bypassing the device plugin");
  }
}

void Check(const ObjectContext& ctx, Reporter& out) {
  for (const PodInfo& pod : ctx.pods) {
    for (const ContainerInfo& c : pod.containers) {
      if (c.HasGpuLimit(ctx.policy)) continue;
      CheckEnv(c, out);
      CheckPrivileged(pod, c, out);
    }
    CheckHostPaths(pod, out);
  }
}

}  // namespace

extern const Rule kGpuVisibilityBypassRule = {
    {"gpu-visibility-bypass", Severity::kWarning, "GPUs reached around the device plugin",
     "The device plugin decides which GPUs a container sees. NVIDIA_VISIBLE_DEVICES or "
     "CUDA_VISIBLE_DEVICES set by hand, a privileged container on a GPU node, or a hostPath "
     "mount of /dev/nvidia* each hand a container GPUs that the scheduler counts as free or as "
     "another pod's (incident 5). Device plugins and monitoring agents do this on purpose.",
     "Request GPUs through resources.limits; for node agents that must see every GPU, add the "
     "annotation ignore.gpulint.io/gpu-visibility-bypass with the reason."},
    Check,
};

}  // namespace gpulint
