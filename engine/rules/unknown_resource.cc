// unknown-resource: a resource no node offers keeps the pod Pending for good
// (the scheduler counts it as 0 allocatable): a typo such as nvidia.com/gpus,
// or a MIG profile no node is cut into. A resource a DeviceClass backs (DRA,
// KEP-5004) is offered through devices, not allocatable: exceeds-allocatable
// fits it.
#include <set>

#include "engine/base/edit_distance.h"
#include "engine/rules/rule.h"
#include "engine/rules/rule_util.h"
#include "generated/rule_examples.h"

namespace gpulint {
namespace {

// Resources every kubelet reports (a node list or node class that leaves one
// out says nothing about the node).
bool NotANodeResource(std::string_view name) {
  return name == "cpu" || name == "memory" || name == "ephemeral-storage" || name == "pods";
}

// DRA's implicit extended resources (deviceclass.resource.kubernetes.io/
// <class>, Kubernetes 1.34+).
bool ImplicitDraResource(std::string_view name) {
  return name.starts_with(kDeviceClassResourcePrefix);
}

// HAMi's shares of a GPU (memory, cores): its scheduler extender serves them
// and tells kube-scheduler to ignore them (managedResources with
// ignoredByScheduler), so no node ever advertises them, on a cluster where
// they work as on one where they do not.
bool ServedByExtender(std::string_view name) {
  return name == "nvidia.com/gpumem" || name == "nvidia.com/gpumem-percentage" ||
         name == "nvidia.com/gpucores";
}

// "nvidia.com" of "nvidia.com/gpu"; "" for a name without a domain.
std::string_view DomainOf(std::string_view name) {
  size_t slash = name.find('/');
  return slash == std::string_view::npos ? std::string_view() : name.substr(0, slash);
}

// "nvidia.com" of "gpu.nvidia.com": the domain a vendor registered.
std::string_view VendorOf(std::string_view domain) {
  size_t last = domain.rfind('.');
  if (last == std::string_view::npos || last == 0) return domain;
  size_t before = domain.rfind('.', last - 1);
  return before == std::string_view::npos ? domain : domain.substr(before + 1);
}

// The GPU vendors' domains: those of the policy's GPU resources and device
// classes (nvidia.com, amd.com, intel.com), where a DeviceClass may name an
// extended resource (Intel's example: intel.com/gpu).
std::set<std::string, std::less<>> GpuVendors(const Policy& policy) {
  std::set<std::string, std::less<>> vendors;
  for (const std::string& gpu : policy.gpu_resources)
    vendors.emplace(VendorOf(DomainOf(gpu)));
  for (const std::string& c : policy.gpu_device_classes) vendors.emplace(VendorOf(c));
  return vendors;
}

// A name the policy knows as a GPU resource (or the VRAM resource).
bool Known(const Policy& policy, std::string_view name) {
  return IsGpuResource(policy, name) || name == policy.vram_resource ||
         policy.gpu_assignment_resources.Matches(name);
}

std::string DidYouMean(std::string_view name, const std::set<std::string>& names) {
  std::vector<std::string_view> candidates;
  for (const std::string& n : names)
    if (n != name) candidates.push_back(n);
  std::string closest = ClosestWord(name, candidates);
  return closest.empty() ? "" : " (did you mean " + closest + "?)";
}

// The entry a container names `resource` by: its limit, else its request.
const ResourceEntry* EntryOf(const ContainerInfo& c, const std::string& resource) {
  const ResourceEntry* e = c.Limit(resource);
  return e ? e : c.Request(resource);
}

// Without DeviceClasses in view, a name no node lists may still be backed by
// DRA: one under a GPU vendor's domain, or an implicit one.
std::string MayBeDra(std::string_view name, const Policy& policy) {
  if (!ImplicitDraResource(name) && !GpuVendors(policy).count(VendorOf(DomainOf(name)))) return "";
  return "; a DRA DeviceClass may back it (spec.extendedResourceName, or its implicit "
         "deviceclass.resource.kubernetes.io/<class>), and gpulint was given none: give it the "
         "cluster's with the nodes ('kubectl get nodes,deviceclasses,resourceslices -o yaml') "
         "to have it fitted";
}

void Check(const ObjectContext& ctx, Reporter& out) {
  const Policy& policy = ctx.policy;
  const DraInventory* dra = ctx.inventory.dra.get();
  std::set<std::string> offered, vendor_domains, known(policy.gpu_resources.begin(),
                                                         policy.gpu_resources.end());
  for (const auto& group : ctx.inventory.groups)
    for (const auto& [name, q] : group->shape.allocatable) offered.insert(name);
  for (const std::string& gpu : policy.gpu_resources)
    vendor_domains.insert(std::string(DomainOf(gpu)));
  known.insert(policy.vram_resource);
  for (const PodInfo& pod : ctx.pods) {
    if (pod.partial) continue;  // a runtime's defaults, never run as written
    for (const ContainerInfo& c : pod.containers) {
      std::set<std::string> names;
      for (const auto* list : {&c.requests, &c.limits})
        for (const ResourceEntry& e : *list) names.insert(e.name);
      for (const std::string& name : names) {
        const ResourceEntry* e = EntryOf(c, name);
        if (NotANodeResource(name) || (e->valid && e->quantity.sign() <= 0)) continue;
        if (dra && dra->ClassForResource(name) >= 0) continue;  // DRA fits it
        bool listed = offered.count(name) > 0 || ServedByExtender(name);
        if (!ctx.inventory.empty() && !listed) {
          std::string dra_hint = dra ? "" : MayBeDra(name, policy);
          std::set<std::string> near = offered;
          near.insert(known.begin(), known.end());
          std::string message = ContainerLabel(c) + " asks for " + name +
                                ", which no node of the inventory offers" + DidYouMean(name, near);
          if (dra_hint.empty())
            out.Report(e->value, e->path,
                       message + ": the scheduler counts it as 0 allocatable everywhere, so the "
                                 "pod would stay Pending");
          else
            out.Report(e->value, e->path, message + dra_hint, Severity::kWarning);
        } else if (ctx.inventory.empty() && !ImplicitDraResource(name) &&
                   vendor_domains.count(std::string(DomainOf(name))) && !Known(policy, name)) {
          // A near miss of a GPU resource (nvidia.com/gpus) is a typo that
          // keeps the pod Pending on every cluster: an error, without nodes
          // too. Any other unknown name of a vendor may be a plugin we do not
          // know: a warning.
          std::string near = DidYouMean(name, known);
          out.Report(e->value, e->path,
                     ContainerLabel(c) + " asks for " + name + ", which is no resource the " +
                         std::string(DomainOf(name)) + " device plugins advertise" + near +
                         ": no node would offer it, and the pod would stay Pending",
                     near.empty() ? Severity::kWarning : Severity::kError);
        }
      }
    }
  }
}

}  // namespace

extern const Rule kUnknownResourceRule = {
    {"unknown-resource", Severity::kError, "A resource no node offers",
     "The scheduler counts a resource a node does not advertise as 0 allocatable there, so a "
     "pod asking for one that no node advertises stays Pending for good, and says only "
     "`Insufficient nvidia.com/gpus`. A typo in a resource name (nvidia.com/gpus), a MIG profile "
     "no node is cut into, an AMD or Intel GPU in an NVIDIA cluster. With a node list (--nodes, "
     "the webhook's node watch) it is an error; without one, a name under a GPU vendor's domain "
     "that the policy does not know (gpuResources, otherGpuAssignments) is an error when it is a "
     "near miss of a GPU resource (nvidia.com/gpus), else a warning. A resource "
     "a DRA DeviceClass backs (spec.extendedResourceName, or "
     "deviceclass.resource.kubernetes.io/<class>; Kubernetes 1.34+) comes from devices, not "
     "allocatable: with the DeviceClasses in view it is fitted (exceeds-allocatable); without "
     "them, a name under a GPU vendor's domain that no node lists is only a warning, as it may be "
     "one.",
     "Use the name the nodes advertise (kubectl get nodes -o jsonpath='{.items[*].status."
     "allocatable}'): nvidia.com/gpu for whole NVIDIA GPUs, nvidia.com/mig-<profile> under MIG's "
     "mixed strategy.",
     RuleExample("unknown-resource"), kWholeGpus,
     /*no_fix=*/nullptr, /*needs_nodes=*/false, /*not_cel=*/kNotCelNeedsNodes},
    Check,
};

}  // namespace gpulint
