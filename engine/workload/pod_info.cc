// What a pod and its containers ask for, read off the resources ExtractPods
// parsed: the accessors the rules and the mutation share.
#include <algorithm>

#include "engine/cluster/gpu_memory.h"
#include "engine/workload/workload.h"

namespace gpulint {
namespace {

const ResourceEntry* FindEntry(const std::vector<ResourceEntry>& list, std::string_view name) {
  for (const ResourceEntry& e : list)
    if (e.name == name) return &e;
  return nullptr;
}

}  // namespace

const char* ContainerRoleName(ContainerRole r) {
  switch (r) {
    case ContainerRole::kInit:
      return "initContainer";
    case ContainerRole::kSidecar:
      return "sidecar";
    case ContainerRole::kApp:
      return "container";
  }
  return "container";
}

const ResourceEntry* ContainerInfo::Request(std::string_view resource) const {
  return FindEntry(requests, resource);
}
const ResourceEntry* ContainerInfo::Limit(std::string_view resource) const {
  return FindEntry(limits, resource);
}

Quantity ContainerInfo::EffectiveRequest(std::string_view resource) const {
  if (const ResourceEntry* r = Request(resource); r && r->valid) return r->quantity;
  if (const ResourceEntry* l = Limit(resource); l && l->valid) return l->quantity;
  return Quantity();
}

Quantity ContainerInfo::GpuCount(const Policy& policy) const {
  Quantity total;
  for (const std::string& gpu : policy.gpu_resources) {
    if (const ResourceEntry* l = Limit(gpu); l && l->valid) {
      total = total + l->quantity;
    } else if (const ResourceEntry* r = Request(gpu); r && r->valid) {
      total = total + r->quantity;
    }
  }
  return total;
}

bool ContainerInfo::UsesGpus(const Policy& policy) const {
  if (!gpu_claims.empty()) return true;
  for (const std::string& gpu : policy.gpu_resources)
    if (const ResourceEntry* l = Limit(gpu); l && (!l->valid || l->quantity.sign() > 0))
      return true;
  for (const auto* list : {&requests, &limits})
    for (const ResourceEntry& e : *list)
      if ((!e.valid || e.quantity.sign() > 0) && policy.gpu_assignment_resources.Matches(e.name))
        return true;
  return false;
}

bool ContainerInfo::HasClaims() const {
  const Value* res = node ? node->Find("resources") : nullptr;
  const Value* claims = res ? res->Find("claims") : nullptr;
  return claims && claims->is_sequence() && !claims->items().empty();
}

bool ContainerInfo::Privileged() const {
  const Value* sc = node ? node->Find("securityContext") : nullptr;
  const Value* privileged = sc ? sc->Find("privileged") : nullptr;
  return privileged && privileged->text() == "true";
}

const Value* ContainerInfo::Env(std::string_view name) const {
  const Value* env = node ? node->Find("env") : nullptr;
  if (!env || !env->is_sequence()) return nullptr;
  const Value* found = nullptr;
  for (const Value& e : env->items())
    if (e.StringAt("name") == name) found = e.Find("value");  // the last one wins, as in Kubernetes
  return found;
}

namespace {

// Kubernetes' pod resource formula (resourcehelper.PodRequests), applied to one
// per-container measure.
template <typename Measure>
Quantity PodTotal(const std::vector<ContainerInfo>& containers, Measure measure) {
  Quantity apps, sidecars, init_peak;
  for (const ContainerInfo& c : containers) {
    Quantity q = measure(c);
    switch (c.role) {
      case ContainerRole::kApp:
        apps = apps + q;
        break;
      case ContainerRole::kSidecar:
        sidecars = sidecars + q;
        init_peak = std::max(init_peak, sidecars);
        break;
      case ContainerRole::kInit:
        // An init container runs beside the sidecars declared before it.
        init_peak = std::max(init_peak, sidecars + q);
        break;
    }
  }
  return std::max(apps + sidecars, init_peak);
}

}  // namespace

const ResourceEntry* PodInfo::PodRequest(std::string_view resource) const {
  return FindEntry(requests, resource);
}
const ResourceEntry* PodInfo::PodLimit(std::string_view resource) const {
  return FindEntry(limits, resource);
}

Quantity PodInfo::EffectiveRequest(std::string_view resource) const {
  if (const ResourceEntry* r = PodRequest(resource); r && r->valid) return r->quantity;
  bool containers_ask = false;
  for (const ContainerInfo& c : containers)
    containers_ask = containers_ask || c.Request(resource) || c.Limit(resource);
  // Defaulting gives the pod a request equal to its limit when no container asks.
  if (const ResourceEntry* l = PodLimit(resource); l && l->valid && !containers_ask)
    return l->quantity;
  return PodTotal(containers, [&](const ContainerInfo& c) { return c.EffectiveRequest(resource); });
}

Quantity PodInfo::EffectiveLimit(std::string_view resource) const {
  if (const ResourceEntry* l = PodLimit(resource); l && l->valid) return l->quantity;
  return PodTotal(containers, [&](const ContainerInfo& c) {
    const ResourceEntry* l = c.Limit(resource);
    return l && l->valid ? l->quantity : Quantity();
  });
}

Quantity PodInfo::FitRequest(std::string_view resource) const {
  Quantity request = EffectiveRequest(resource);
  if (const ResourceEntry* o = FindEntry(overhead, resource); o && o->valid)
    request = request + o->quantity;
  return request;
}

std::set<std::string> PodInfo::ResourceNames() const {
  std::set<std::string> names;
  for (const ContainerInfo& c : containers) {
    for (const ResourceEntry& e : c.requests) names.insert(e.name);
    for (const ResourceEntry& e : c.limits) names.insert(e.name);
  }
  for (const auto* list : {&requests, &limits, &overhead})
    for (const ResourceEntry& e : *list) names.insert(e.name);
  return names;
}

const Value* PodInfo::Annotation(std::string_view key) const {
  const Value* annotations = metadata ? metadata->Find("annotations") : nullptr;
  return annotations ? annotations->Find(key) : nullptr;
}

int64_t PodInfo::GpuCount(const Policy& policy) const {
  return PodTotal(containers, [&](const ContainerInfo& c) { return c.GpuCount(policy); }).Value();
}

bool PodInfo::AsksForGpus(const Policy& policy) const {
  for (const ContainerInfo& c : containers) {
    for (const std::string& gpu : policy.gpu_resources)
      if (c.Limit(gpu) || c.Request(gpu)) return true;
    // A MIG slice is a GPU too (NVIDIA's nvidia.com/mig-<profile>).
    for (const auto* list : {&c.limits, &c.requests})
      for (const ResourceEntry& e : *list)
        if (!MigProfileOf(e.name).empty()) return true;
  }
  return false;
}

bool PodInfo::SchedulerAssignsGpus(const Policy& policy) const {
  if (!metadata) return false;
  for (const char* map : {"labels", "annotations"}) {
    const Value* m = metadata->Find(map);
    for (const std::string& key : policy.gpu_assignment_pod_keys)
      if (m && m->Find(key)) return true;
  }
  return false;
}

const ContainerInfo* PodInfo::OnlyAppContainer() const {
  const ContainerInfo* only = nullptr;
  for (const ContainerInfo& c : containers) {
    if (c.role != ContainerRole::kApp) continue;
    if (only) return nullptr;
    only = &c;
  }
  return only;
}

}  // namespace gpulint
