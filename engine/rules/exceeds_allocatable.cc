// exceeds-allocatable: requests (and the memory limit) must fit allocatable
// minus the policy's reserved headroom on at least one node the pod can reach
// (incidents 1 and 3).
#include <algorithm>
#include <set>

#include "engine/rule.h"
#include "engine/rules/rule_util.h"
#include "generated/rule_examples.h"

namespace gpulint {
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

struct Shortfall {
  std::string resource;
  std::string what;  // "request" or "limit"
  Quantity wanted;
  Quantity allocatable;
  Quantity reserved;
};

// The first resource of `pod` that does not fit on `node`, if any.
bool FindShortfall(const PodInfo& pod, const NodeClass& node, const Policy& policy,
                   const std::set<std::string>& resources, Shortfall* out) {
  for (const std::string& r : resources) {
    auto alloc = node.allocatable.find(r);
    if (alloc == node.allocatable.end() && !IsGpuResource(policy, r)) continue;
    Quantity allocatable = alloc == node.allocatable.end() ? Quantity() : alloc->second;
    Quantity reserved = policy.ReservedOn(r, node);
    Quantity available = allocatable - reserved;
    Quantity request = pod.EffectiveRequest(r);
    Quantity limit = r == "memory" ? pod.EffectiveLimit(r) : Quantity();
    if (request > available) {
      *out = {r, "request", request, allocatable, reserved};
      return true;
    }
    if (limit > available) {
      *out = {r, "limit", limit, allocatable, reserved};
      return true;
    }
  }
  return false;
}

// A figure gpulint computed (no text of the user's to echo).
std::string Computed(const std::string& resource, const Quantity& q, const Policy& policy) {
  return IsByteResource(resource, policy) ? FormatBytes(q) : DescribeCount(q);
}

std::string Explain(const Shortfall& s, const Candidate& candidate, const Policy& policy) {
  const NodeClass& node = *candidate.node;
  Quantity available = s.allocatable - s.reserved;
  std::string msg = "node \"" + std::string(candidate.name) + "\": " + s.resource + " " + s.what + " " +
                    Describe(s.resource, s.wanted, policy) + " > allocatable " +
                    Describe(s.resource, s.allocatable, policy);
  if (!s.reserved.is_zero()) {
    std::string terms = ReserveTerms(policy, s.resource, node);
    msg += " - reserved " + Computed(s.resource, s.reserved, policy);
    if (!terms.empty()) msg += " [" + terms + "]";
    msg += " = " + Computed(s.resource, available, policy);
  }
  return msg;
}

// Where to point: the pod-level entry that set the figure, else the first
// container entry for the resource, else a pod-level limit that stood in for
// the request no container makes.
const ResourceEntry* EntryFor(const PodInfo& pod, const Shortfall& s) {
  if (const ResourceEntry* e = s.what == "limit" ? pod.PodLimit(s.resource)
                                                 : pod.PodRequest(s.resource))
    return e;
  for (const ContainerInfo& c : pod.containers) {
    const ResourceEntry* e = s.what == "limit" ? c.Limit(s.resource) : c.Request(s.resource);
    if (!e) e = c.Limit(s.resource);
    if (e) return e;
  }
  return pod.PodLimit(s.resource);
}

// "2 insufficient memory: node "a": ... (and 1 more); 3 node(s) had
// untolerated taint {...}": the candidates counted by the resource each lacks,
// the first of each group with its arithmetic, then the nodes the pod cannot
// reach, as the scheduler counts them. Short enough for kubectl to show whole
// however many nodes there are.
std::string Misses(const std::vector<std::pair<const Candidate*, Shortfall>>& misses,
                   const PodInfo& pod, const ObjectContext& ctx) {
  struct Group {
    std::string key;  // "memory request"
    size_t first;     // index in misses
    size_t nodes;
  };
  std::vector<Group> groups;
  for (size_t i = 0; i < misses.size(); ++i) {
    std::string key = misses[i].second.resource + " " + misses[i].second.what;
    auto it = std::find_if(groups.begin(), groups.end(), [&](const Group& g) { return g.key == key; });
    if (it == groups.end()) it = groups.insert(groups.end(), {key, i, 0});
    it->nodes += misses[i].first->count;
  }
  std::string msg;
  for (const Group& g : groups) {
    const auto& [candidate, shortfall] = misses[g.first];
    msg += (msg.empty() ? "" : "; ") + std::to_string(g.nodes) + " insufficient " +
           shortfall.resource + (shortfall.what == "limit" ? " (limit)" : "") + ": " +
           Explain(shortfall, *candidate, ctx.policy);
    if (g.nodes > 1) msg += " (and " + std::to_string(g.nodes - 1) + " more)";
  }
  std::string excluded = ExclusionSummary(pod.placement, ctx.inventory);
  if (!excluded.empty()) msg += "; " + excluded;
  return msg;
}

void CheckPod(const PodInfo& pod, const ObjectContext& ctx, Reporter& out) {
  std::set<std::string> resources;
  for (const ContainerInfo& c : pod.containers) {
    for (const ResourceEntry& e : c.requests) resources.insert(e.name);
    for (const ResourceEntry& e : c.limits) resources.insert(e.name);
  }
  for (const auto* list : {&pod.requests, &pod.limits})
    for (const ResourceEntry& e : *list) resources.insert(e.name);
  std::vector<std::pair<const Candidate*, Shortfall>> misses;
  size_t nodes = 0;
  for (const Candidate& candidate : pod.candidates) {
    Shortfall s;
    if (!FindShortfall(pod, *candidate.node, ctx.policy, resources, &s)) return;  // fits somewhere
    misses.push_back({&candidate, s});
    nodes += candidate.count;
  }
  if (misses.empty()) return;
  std::string msg = "the pod fits on none of its " + std::to_string(nodes) +
                    " candidate node" + (nodes == 1 ? "" : "s") + ": " +
                    Misses(misses, pod, ctx);
  const ResourceEntry* at = EntryFor(pod, misses.front().second);
  out.Report(at ? at->value : nullptr, at ? at->path : pod.path, msg);
}

void Check(const ObjectContext& ctx, Reporter& out) {
  for (const PodInfo& pod : ctx.pods) CheckPod(pod, ctx, out);
}

}  // namespace

extern const Rule kExceedsAllocatableRule = {
    {"exceeds-allocatable", Severity::kError,
     "Requests or the memory limit exceed allocatable minus reserved headroom",
     "A pod that requests (or may use, up to its memory limit) all of a node's allocatable memory "
     "leaves nothing for the OS, kubelet, daemon pods and the GPU driver: a job with memory: 500Gi "
     "on a V100 node with 503.3 GiB hung the node instead of being OOM-killed. The NVIDIA driver "
     "also takes host memory that no cgroup charges to any pod, more with every GPU it drives (on "
     "one T4 node, 31 GB for an OpenGL renderer), so no pod's limit accounts for it. The policy "
     "keeps headroom free (a percent of allocatable, and some per GPU) on top of kubelet's own "
     "reservation.",
     "Lower the request or limit below the available figure shown, or target a larger node class. "
     "Remember 500Gi is 536.9 GB: sizing in G instead of Gi frees 7%.",
     RuleExample("exceeds-allocatable")},
    Check,
};

}  // namespace gpulint
