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

namespace {

// "1Gi fixed + 5% of allocatable + 4 GPUs × 1Gi"
std::string ReserveTerms(const Policy& policy, const std::string& resource, const NodeClass& node) {
  auto it = policy.reserved.find(resource);
  if (it == policy.reserved.end()) return "";
  const Reserve& r = it->second;
  std::string terms;
  auto add = [&](const std::string& t) { terms += (terms.empty() ? "" : " + ") + t; };
  if (!r.fixed.is_zero()) add(r.fixed.Canonical() + " fixed");
  if (r.percent_milli != 0) {
    Quantity pct = Quantity::FromNano(static_cast<int128>(r.percent_milli) * 1000000);
    add(pct.ExactDecimal() + "% of allocatable");
  }
  if (!r.per_gpu.is_zero() && node.gpu.count > 0)
    add(std::to_string(node.gpu.count) + (node.gpu.count == 1 ? " GPU × " : " GPUs × ") +
        r.per_gpu.Canonical());
  return terms;
}

// A figure gpulint computed (no text of the user's to echo).
std::string Computed(const std::string& resource, const Quantity& q, const Policy& policy) {
  return IsByteResource(resource, policy) ? FormatBytes(q) : DescribeCount(q);
}

Quantity AllocatableOf(const std::string& resource, const NodeClass& node) {
  auto it = node.allocatable.find(resource);
  return it == node.allocatable.end() ? Quantity() : it->second;
}

}  // namespace

Quantity AvailableOn(const std::string& resource, const NodeClass& node, const Policy& policy) {
  return AllocatableOf(resource, node) - policy.ReservedOn(resource, node);
}

std::string AvailableArithmetic(const std::string& resource, const NodeClass& node,
                                const Policy& policy) {
  Quantity allocatable = AllocatableOf(resource, node);
  Quantity reserved = policy.ReservedOn(resource, node);
  std::string msg = "allocatable " + Describe(resource, allocatable, policy);
  if (!reserved.is_zero()) {
    std::string terms = ReserveTerms(policy, resource, node);
    msg += " - reserved " + Computed(resource, reserved, policy);
    if (!terms.empty()) msg += " [" + terms + "]";
    msg += " = " + Computed(resource, allocatable - reserved, policy);
  }
  return msg;
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

std::optional<VramDeclaration> DeclaredVram(const PodInfo& pod, const ContainerInfo& c,
                                            const Policy& policy) {
  VramDeclaration out;
  out.devices = GpuDevices(c, policy);
  Quantity contexts = policy.vram_model.context * out.devices;
  // The annotation first: the mutation turns it into the resource, and a
  // mutated pod must read as the user wrote it.
  std::optional<VramAnnotation> annotated = AnnotatedVram(pod, c, policy, out.devices);
  if (annotated && annotated->valid) {
    out.declared = annotated->quantity;
    out.scheduled = annotated->quantity + contexts;
    out.at = annotated->value;
    out.path = AppendKey(MetadataPath(pod) + ".annotations", annotated->key);
    return out;
  }
  const ResourceEntry* l = c.Limit(policy.vram_resource);
  if (!l || !l->valid) return std::nullopt;
  out.scheduled = l->quantity;
  out.declared = l->quantity - contexts;
  if (out.declared.sign() < 0) out.declared = Quantity::FromInt(0, l->quantity.format());
  out.from_resource = true;
  out.at = l->value;
  out.path = l->path;
  return out;
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
