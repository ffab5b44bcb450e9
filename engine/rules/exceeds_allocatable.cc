// exceeds-allocatable: requests (and the memory limit) must fit allocatable
// minus the policy's reserved headroom on at least one node the pod can reach
// (incidents 1 and 3).
#include <algorithm>
#include <set>

#include "engine/rules/rule.h"
#include "engine/rules/rule_util.h"
#include "engine/workload/dra_fit.h"
#include "generated/rule_examples.h"

namespace gpulint {
namespace {

struct Shortfall {
  std::string resource;
  std::string what;  // "request" or "limit"
  Quantity wanted;
  Quantity gpu_memory;  // declared VRAM that a unified-memory node's memory holds too
};

// The VRAM a pod's GPU containers declare: on a GPU whose memory is the
// node's own (Policy::UnifiedMemory), memory the node must hold beside the
// pod's requests, and that no memory cgroup counts.
Quantity DeclaredGpuMemory(const PodInfo& pod, const Policy& policy) {
  Quantity total = Quantity::FromInt(0, QuantityFormat::kBinarySI);
  for (const ContainerInfo& c : pod.containers)
    if (c.UsesGpus(policy))
      if (std::optional<VramDeclaration> vram = DeclaredVram(pod, c, policy))
        total = total + vram->declared;
  return total;
}

// A candidate the pod does not fit: the resources it lacks, else why its DRA
// devices cannot be allocated (the scheduler's NodeResourcesFit filter runs
// before DynamicResources, so a node is counted under one or the other).
struct Miss {
  const Candidate* candidate;
  std::vector<Shortfall> shortfalls;
  std::string devices;  // DeviceFit::why
};

// Every resource of `pod` that does not fit on `node`, in name order, as the
// scheduler's NodeResourcesFit finds them: a resource the node does not
// advertise is 0 allocatable there (the scheduler's own rule), and the pod's
// requests include spec.overhead. gpulint adds the reserve, the memory limit
// and, on a unified-memory GPU, the GPU memory the pod declares.
std::vector<Shortfall> FindShortfalls(const PodInfo& pod, const NodeClass& node,
                                      const Policy& policy, const std::set<std::string>& resources,
                                      const Quantity& gpu_memory) {
  std::vector<Shortfall> out;
  for (const std::string& r : resources) {
    Quantity available = AvailableOn(r, node, policy);
    Quantity request = pod.FitRequest(r);
    Quantity limit = r == "memory" ? pod.EffectiveLimit(r) : Quantity();
    Quantity gpu = r == "memory" && !gpu_memory.is_zero() && node.has_gpu() &&
                           policy.UnifiedMemory(node)
                       ? gpu_memory
                       : Quantity();
    if ((request.sign() > 0 || gpu.sign() > 0) && request + gpu > available) {
      out.push_back({r, "request", request, gpu});
    } else if (limit + gpu > available) {
      out.push_back({r, "limit", limit, gpu});
    }
  }
  return out;
}

std::string Explain(const Shortfall& s, const Candidate& candidate, const Policy& policy) {
  std::string wanted = Describe(s.resource, s.wanted, policy);
  if (!s.gpu_memory.is_zero())
    wanted += " + GPU memory " + Describe(s.resource, s.gpu_memory, policy) +
              " declared, which on this unified-memory GPU is the node's memory";
  return "node \"" + std::string(candidate.name) + "\": " + s.resource + " " + s.what + " " +
         wanted + " > " + AvailableArithmetic(s.resource, *candidate.node, policy);
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

// For a miss of DRA devices: the first extended resource the node leaves to
// DRA; none (the pod's claims) points at the pod spec.
const ResourceEntry* EntryFor(const PodInfo& pod, const Miss& m) {
  if (!m.shortfalls.empty()) return EntryFor(pod, m.shortfalls.front());
  for (const ContainerInfo& c : pod.containers)
    for (const auto* list : {&c.limits, &c.requests})
      for (const ResourceEntry& e : *list)
        if (m.devices.starts_with(e.name + " ")) return &e;
  return nullptr;
}

// "2 insufficient cpu: node "a": ... (and 1 more); 3 insufficient memory:
// ...; 1 cannot allocate all claims: node "b": ...; 3 node(s) had
// untolerated taint {...}": the candidates counted under each resource they
// lack (a node short of two is counted under both, as the scheduler counts
// it), then those whose DRA devices cannot hold the pod's (in the
// scheduler's words), the first of each group with its arithmetic, then the
// nodes the pod cannot reach. Short enough for kubectl to show whole however
// many nodes there are.
std::string Misses(const std::vector<Miss>& misses, const PodInfo& pod, const ObjectContext& ctx) {
  struct Group {
    std::string key;  // "memory request"; "" for DRA devices
    const Candidate* first;
    const Shortfall* shortfall;  // null for DRA devices
    const std::string* devices;
    size_t nodes;
  };
  std::vector<Group> groups;
  auto add = [&](std::string key, const Miss& m, const Shortfall* s) {
    auto it =
        std::find_if(groups.begin(), groups.end(), [&](const Group& g) { return g.key == key; });
    if (it == groups.end())
      it = groups.insert(groups.end(), {std::move(key), m.candidate, s, &m.devices, 0});
    it->nodes += m.candidate->count;
  };
  for (const Miss& m : misses) {
    for (const Shortfall& s : m.shortfalls) add(s.resource + " " + s.what, m, &s);
    if (m.shortfalls.empty()) add("", m, nullptr);
  }
  std::stable_sort(groups.begin(), groups.end(), [](const Group& a, const Group& b) {
    return !a.key.empty() && (b.key.empty() || a.key < b.key);
  });
  std::string msg;
  for (const Group& g : groups) {
    msg += (msg.empty() ? "" : "; ") + std::to_string(g.nodes);
    if (g.shortfall)
      msg += " insufficient " + g.shortfall->resource +
             (g.shortfall->what == "limit" ? " (limit)" : "") + ": " +
             Explain(*g.shortfall, *g.first, ctx.policy);
    else
      msg += " cannot allocate all claims: node \"" + std::string(g.first->name) + "\": " +
             *g.devices;
    if (g.nodes > 1) msg += " (and " + std::to_string(g.nodes - 1) + " more)";
  }
  std::string excluded = ExclusionSummary(pod.placement, ctx.inventory);
  if (!excluded.empty()) msg += "; " + excluded;
  return msg;
}

// Whether some node of the inventory advertises `resource`, or a DeviceClass
// backs it: one that neither is is unknown-resource's to report, with a "did
// you mean".
bool Offered(const Inventory& inventory, const std::string& resource) {
  if (inventory.dra && inventory.dra->ClassForResource(resource) >= 0) return true;
  for (const auto& group : inventory.groups)
    if (group->shape.allocatable.count(resource)) return true;
  return false;
}

void CheckPod(const PodInfo& pod, const ObjectContext& ctx, Reporter& out) {
  std::set<std::string> resources = pod.ResourceNames();
  // The VRAM resource is gpulint's own: the mutation adds it only toward
  // nodes that advertise it, and vram-exceeds-gpu judges what is declared.
  // Judging it here would make a mutated pod read otherwise than its original.
  resources.erase(ctx.policy.vram_resource);
  // GPU memory a unified-memory node's memory must hold: judged as memory.
  Quantity gpu_memory = DeclaredGpuMemory(pod, ctx.policy);
  if (!gpu_memory.is_zero()) resources.insert("memory");
  for (auto it = resources.begin(); it != resources.end();)
    it = Offered(ctx.inventory, *it) ? std::next(it) : resources.erase(it);
  std::vector<Miss> misses;
  size_t nodes = 0;
  bool undecided = false;
  for (size_t i = 0; i < pod.candidates.size(); ++i) {
    const Candidate& candidate = pod.candidates[i];
    std::set<std::string> here;  // what NodeResourcesFit fits on this node
    for (const std::string& r : resources)
      if (!LeftToDra(r, *candidate.node, ctx.inventory)) here.insert(r);
    std::vector<Shortfall> shortfalls = FindShortfalls(pod, *candidate.node, ctx.policy, here, gpu_memory);
    const DeviceFit& devices = pod.device_fits[i];
    if (shortfalls.empty() && devices.answer == DeviceFit::Answer::kFits) return;  // fits
    // A node whose devices gpulint cannot judge may hold the pod:
    // dra-cannot-tell says so, and nothing is refused.
    undecided = undecided || (shortfalls.empty() && devices.answer == DeviceFit::Answer::kCannotTell);
    misses.push_back({&candidate, std::move(shortfalls), devices.why});
    nodes += candidate.count;
  }
  if (undecided) return;
  if (misses.empty()) return;
  std::string msg = "the pod fits on none of its " + std::to_string(nodes) +
                    " candidate node" + (nodes == 1 ? "" : "s") + ": " +
                    Misses(misses, pod, ctx);
  const ResourceEntry* at = EntryFor(pod, misses.front());
  out.Report(at ? at->value : nullptr, at ? at->path : pod.path, msg);
}

void Check(const ObjectContext& ctx, Reporter& out) {
  for (const PodInfo& pod : ctx.pods)
    if (!pod.partial) CheckPod(pod, ctx, out);  // a runtime's defaults: not run as written
}

}  // namespace

extern const Rule kExceedsAllocatableRule = {
    {"exceeds-allocatable", Severity::kError,
     "Requests or the memory limit exceed allocatable minus reserved headroom",
     "A pod that requests (or may use, up to its memory limit) all of a node's allocatable memory "
     "leaves nothing for the OS, kubelet, daemon pods and the GPU driver: a job with memory: 500Gi "
     "on a V100 node with 503.3 GiB hung the node instead of being OOM-killed. Some host memory "
     "escapes the pods' cgroups, so no pod's limit accounts for it: on a discrete NVIDIA GPU the "
     "driver's, about 120 MiB per CUDA context and 1.2% of what a process pins (measured on an "
     "H200), and through an OpenGL/EGL renderer far more (31 GB on one T4 node); the policy "
     "keeps headroom free for it (a percent of allocatable, and some per GPU) on top of "
     "kubelet's own reservation. On a unified-memory GPU (Grace Hopper, GB10, MI300A) the GPU's "
     "memory is the node's memory: the VRAM a pod declares counts with its memory.",
     "Lower the request or limit below the available figure shown, or target a larger node class. "
     "Remember 500Gi is 536.9 GB: sizing in G instead of Gi frees 7%.",
     RuleExample("exceeds-allocatable"), kWholeGpus, /*no_fix=*/nullptr, /*needs_nodes=*/true,
     /*not_cel=*/kNotCelNeedsNodes},
    Check,
};

}  // namespace gpulint
