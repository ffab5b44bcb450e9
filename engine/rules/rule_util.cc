#include "engine/rules/rule_util.h"

#include "engine/base/path.h"
#include "engine/base/resource_names.h"
#include "engine/workload/vram.h"

namespace gpulint {

bool IsByteResource(std::string_view name, const Policy& policy) {
  return name == "memory" || name == "ephemeral-storage" || name == "storage" ||
         IsHugePages(name) || name == policy.vram_resource;
}

bool IsGpuResource(const Policy& policy, std::string_view name) {
  for (const std::string& g : policy.gpu_resources)
    if (g == name) return true;
  return false;
}

std::string Describe(std::string_view resource, const Quantity& q, const Policy& policy) {
  return IsByteResource(resource, policy) ? DescribeBytes(q) : DescribeCount(q);
}

std::string MetadataPath(const PodInfo& pod) {
  // Pod specs found through a template path end in ".spec" (or are "spec").
  std::string_view spec = pod.path;
  if (spec.size() >= 4 && spec.substr(spec.size() - 4) == "spec")
    return std::string(spec.substr(0, spec.size() - 4)) + "metadata";
  return JoinPath(spec, "metadata");
}

std::string ContainerLabel(const ContainerInfo& c) {
  return std::string(ContainerRoleName(c.role)) + " \"" + c.name + "\"";
}

bool DeclaredVram(const PodInfo& pod, const ContainerInfo& c, const Policy& policy, Quantity* out,
                  const Value** where, std::string* path) {
  if (const ResourceEntry* l = c.Limit(policy.vram_resource); l && l->valid) {
    *out = l->quantity;
    *where = l->value;
    *path = l->path;
    return true;
  }
  std::optional<VramAnnotation> declared =
      AnnotatedVram(pod, c, policy, c.GpuCount(policy).Value());
  if (!declared || !declared->valid) return false;
  *out = declared->quantity;
  *where = declared->value;
  *path = AppendKey(MetadataPath(pod) + ".annotations", declared->key);
  return true;
}

std::string DescribeGpuClaims(const ContainerInfo& c) {
  std::string out;
  for (const ContainerInfo::GpuClaim& g : c.gpu_claims) {
    const DeviceRequest& r = g.request;
    out += out.empty() ? "DRA claim \"" : "; DRA claim \"";
    out += g.claim + "\": ";
    if (!r.count)
      out += "all matching " + r.device_class + " devices";
    else
      out += std::to_string(*r.count) + " " + r.device_class +
             (*r.count == 1 ? " device" : " devices");
    for (const auto& [resource, quantity] : r.capacity)
      out += ", " + resource + " " + quantity + (r.count == 1 ? "" : " each");
  }
  return out;
}

}  // namespace gpulint
