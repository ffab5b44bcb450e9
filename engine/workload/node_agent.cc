#include "engine/workload/node_agent.h"

#include <string_view>

#include "engine/workload/workload.h"

namespace gpulint {
namespace {

// `path` is `dir` or lies under it ("/var/lib/kubelet/device-plugins/" too).
bool Under(std::string_view path, std::string_view dir) {
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  while (dir.size() > 1 && dir.back() == '/') dir.remove_suffix(1);
  if (path.compare(0, dir.size(), dir) != 0) return false;
  return path.size() == dir.size() || dir == "/" || path[dir.size()] == '/';
}

// Calls fn(path) for each hostPath volume of the pod; stops when fn returns true.
template <typename Fn>
bool AnyHostPath(const PodInfo& pod, Fn fn) {
  const Value* volumes = pod.spec->Find("volumes");
  if (!volumes || !volumes->is_sequence()) return false;
  for (const Value& volume : volumes->items()) {
    const Value* host = volume.Find("hostPath");
    const Value* path = host ? host->Find("path") : nullptr;
    if (path && path->is_string() && fn(path->text())) return true;
  }
  return false;
}

// A DaemonSet's pods, and pods a DaemonSet made (its controller owner).
bool IsDaemonSetPod(const Value& object) {
  if (object.StringAt("kind") == "DaemonSet") return true;
  if (object.StringAt("kind") != "Pod") return false;
  const Value* metadata = object.Find("metadata");
  const Value* owners = metadata ? metadata->Find("ownerReferences") : nullptr;
  if (!owners || !owners->is_sequence()) return false;
  for (const Value& owner : owners->items())
    if (owner.StringAt("kind") == "DaemonSet") return true;
  return false;
}

}  // namespace

std::string NodeAgentReason(const Value& object, const PodInfo& pod, const Policy& policy) {
  for (const ContainerInfo& c : pod.containers)
    if (c.UsesGpus(policy)) return "";
  std::string mounted;
  AnyHostPath(pod, [&](std::string_view path) {
    for (const std::string& dir : policy.agent_host_paths) {
      if (Under(path, dir)) {
        mounted = std::string(path);
        return true;
      }
    }
    return false;
  });
  if (!mounted.empty()) return "it mounts the kubelet's " + mounted;
  // A DaemonSet runs on every node it may, GPU nodes included unless it says
  // otherwise: privileged or with host devices, it is a node agent of some
  // kind (a driver installer, a config manager; or a CNI or CSI plugin, which
  // gpulint has nothing to say about either).
  if (IsDaemonSetPod(object)) {
    for (const ContainerInfo& c : pod.containers)
      if (c.Privileged()) return "it is a privileged DaemonSet pod";
    std::string device;
    AnyHostPath(pod, [&](std::string_view path) {
      if (!Under(path, "/dev")) return false;
      device = std::string(path);
      return true;
    });
    if (!device.empty()) return "it is a DaemonSet pod that mounts " + device;
  }
  for (const ContainerInfo& c : pod.containers)
    if (policy.agent_images.Matches(c.image))
      return "its image " + c.image + " is a node agent's (gpuNodes.agentImages)";
  return "";
}

}  // namespace gpulint
