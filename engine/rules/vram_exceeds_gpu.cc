// vram-exceeds-gpu: declared VRAM above what the pod's GPUs have (incident 2),
// and a DRA claim asking its GPUs for more memory than they have.
#include <iterator>
#include <memory>
#include <optional>
#include <string>

#include "engine/base/path.h"
#include "engine/cluster/gpu_memory.h"
#include "engine/rules/rule.h"
#include "engine/rules/rule_util.h"
#include "engine/workload/vram.h"
#include "engine/workload/dra_fit.h"
#include "generated/rule_examples.h"

namespace gpulint {
namespace {

// The cards that `gpus` GPUs (or replicas) surely span on `node`: whole GPUs
// each are one; replicas of a shared GPU may all sit on one card.
int64_t CardsOf(const NodeClass& node, int64_t gpus) {
  if (node.gpu.sharing != GpuSharing::kNone && node.gpu.replicas > 1)
    return (gpus + node.gpu.replicas - 1) / node.gpu.replicas;
  return gpus;
}

// ", less a 621Mi CUDA context" or ", less 2 CUDA contexts of 621Mi".
std::string LessContexts(const Policy& policy, int64_t contexts) {
  const Quantity& context = policy.vram_model.context;
  if (context.is_zero() || contexts <= 0) return "";
  if (contexts == 1) return ", less a " + context.Canonical() + " CUDA context";
  return ", less " + std::to_string(contexts) + " CUDA contexts of " + context.Canonical();
}

// "143771Mi per GPU less 616Mi the driver reserves", times the cards.
std::string PerCard(const NodeClass& node, int64_t cards, const Policy& policy) {
  const GpuInfo& gpu = node.gpu;
  std::string per = gpu.vram_per_gpu->Canonical() + (gpu.mig_slice ? " per MIG slice" : " per GPU");
  Quantity reserved = DriverReserved(gpu, policy.vram_model);
  if (!reserved.is_zero())
    per += " less " + reserved.Canonical() + " the driver reserves" +
           (gpu.reserved_per_gpu ? " (measured)" : "");
  return cards == 1 ? per : std::to_string(cards) + " × (" + per + ")";
}

// Whole GPUs (or replicas): what the container's processes may allocate is
// VramForPods per card less a CUDA context per GPU; its VRAM resource, which
// counts those contexts, must fit VramForPods per card.
void CheckWholeGpus(const PodInfo& pod, const ContainerInfo& c, const VramDeclaration& vram,
                    int64_t gpus, const Policy& policy, Reporter& out) {
  const Candidate* best = nullptr;
  Quantity best_have;
  for (const Candidate& candidate : pod.candidates) {
    const NodeClass* node = candidate.node;
    std::optional<Quantity> per_card = VramForPods(node->gpu, policy.vram_model);
    if (!node->has_gpu() || !per_card) continue;
    Quantity have = *per_card * CardsOf(*node, gpus);
    if (vram.scheduled <= have) return;  // fits on this one
    if (!best || have > best_have) best = &candidate, best_have = have;
  }
  if (!best) return;  // no candidate with known VRAM: nothing to compare with
  const GpuInfo& gpu = best->node->gpu;
  std::string share = gpu.sharing != GpuSharing::kNone
                          ? " (" + std::string(GpuSharingName(gpu.sharing)) + ", " +
                                std::to_string(gpu.replicas) + " replicas per GPU)"
                          : "";
  std::string where = std::to_string(gpus) + " GPU" + (gpus == 1 ? "" : "s") + " on node \"" +
                      std::string(best->name) + "\"" + share + (gpus == 1 ? " gives" : " give");
  std::string arithmetic = PerCard(*best->node, CardsOf(*best->node, gpus), policy);
  if (vram.from_resource) {
    out.Report(vram.at, vram.path,
               ContainerLabel(c) + " asks " + DescribeBytes(vram.scheduled) + " of " +
                   policy.vram_resource + " (its VRAM and CUDA contexts) but " + where +
                   " pods at most " + FormatBytes(best_have) + ": " + arithmetic);
    return;
  }
  Quantity contexts = policy.vram_model.context * gpus;
  Quantity usable = best_have > contexts ? best_have - contexts : Quantity();
  out.Report(vram.at, vram.path,
             ContainerLabel(c) + " declares " + DescribeBytes(vram.declared) + " of VRAM but " +
                 where + " a process at most " + FormatBytes(usable) + ": " + arithmetic +
                 LessContexts(policy, gpus));
}

// MIG slices: each is a GPU with its slice's memory (its node's GFD label,
// else the built-in table; never the number in the profile's name), less a
// CUDA context. Judged on the candidates that offer the slices, else, with
// none in view, on the table alone.
void CheckMigSlices(const PodInfo& pod, const ContainerInfo& c, const VramDeclaration& vram,
                    const std::vector<MigSlices>& slices, const Policy& policy, Reporter& out) {
  struct Judged {
    const Candidate* candidate;  // null: no node in view
    Quantity have;               // the slices' memory, contexts included
    std::string arithmetic;
  };
  auto judge = [&](const Candidate* candidate) -> std::optional<Judged> {
    Judged j{candidate, Quantity::FromInt(0, QuantityFormat::kBinarySI), ""};
    for (const MigSlices& m : slices) {
      std::optional<SliceMemory> slice =
          MigSliceMemory(candidate ? candidate->node : nullptr, m.profile);
      if (!slice) return std::nullopt;  // a slice of unknown size: cannot tell
      j.have = j.have + slice->bytes * m.count;
      j.arithmetic += std::string(j.arithmetic.empty() ? "" : " + ") +
                      (m.count == 1 ? "" : std::to_string(m.count) + " × ") +
                      slice->bytes.Canonical() + " per " + std::string(m.profile) + " slice (" +
                      slice->source + ")";
    }
    return j;
  };
  auto offers = [&](const NodeClass& node) {
    for (const MigSlices& m : slices) {
      auto it = node.allocatable.find(m.entry->name);
      if (it == node.allocatable.end() || it->second.sign() <= 0) return false;
    }
    return true;
  };
  std::optional<Judged> best;
  bool any_node = false;
  for (const Candidate& candidate : pod.candidates) {
    if (!offers(*candidate.node)) continue;
    any_node = true;
    std::optional<Judged> j = judge(&candidate);
    if (!j) continue;
    if (vram.scheduled <= j->have) return;
    if (!best || j->have > best->have) best = std::move(j);
  }
  if (!any_node) best = judge(nullptr);
  if (!best || vram.scheduled <= best->have) return;
  int64_t devices = 0;
  std::string names;
  for (const MigSlices& m : slices) {
    devices += m.count;
    names += (names.empty() ? "" : " and ") + std::to_string(m.count) + " " + m.entry->name;
  }
  std::string where = "its " + names + (devices == 1 ? " slice" : " slices") +
                      (best->candidate ? " on node \"" + std::string(best->candidate->name) + "\""
                                       : std::string()) +
                      (devices == 1 ? " gives" : " give");
  if (vram.from_resource) {
    out.Report(vram.at, vram.path,
               ContainerLabel(c) + " asks " + DescribeBytes(vram.scheduled) + " of " +
                   policy.vram_resource + " (its VRAM and CUDA contexts) but " + where +
                   " at most " + FormatBytes(best->have) + ": " + best->arithmetic);
    return;
  }
  Quantity contexts = policy.vram_model.context * devices;
  Quantity usable = best->have > contexts ? best->have - contexts : Quantity();
  out.Report(vram.at, vram.path,
             ContainerLabel(c) + " declares " + DescribeBytes(vram.declared) + " of VRAM but " +
                 where + " a process at most " + FormatBytes(usable) + ": " + best->arithmetic +
                 LessContexts(policy, devices));
}

void CheckContainer(const PodInfo& pod, const ContainerInfo& c, const Policy& policy,
                    Reporter& out) {
  std::optional<VramDeclaration> vram = DeclaredVram(pod, c, policy);
  if (!vram) return;
  int64_t gpus = c.GpuCount(policy).Value();
  std::vector<MigSlices> slices = MigSlicesOf(c);
  if (gpus > 0) return CheckWholeGpus(pod, c, *vram, gpus, policy, out);
  if (!slices.empty()) return CheckMigSlices(pod, c, *vram, slices, policy, out);
  // Its own declaration, or the pod's for the one app container of a pod
  // that asks for no GPU (incident 2 as it happened). The mutation requests
  // the VRAM where nodes advertise it, so the card is not oversubscribed,
  // but no GPU is the container's own: a warning.
  out.Report(vram->at, vram->path,
             ContainerLabel(c) + " declares " + DescribeBytes(vram->declared) +
                 " of VRAM but requests no GPU: the device plugin gives it none, and the "
                 "GPUs it reaches are other pods'; request " +
                 policy.gpu_resources.front() +
                 " (one replica of a shared GPU for a slice), or a MIG slice",
             Severity::kWarning);
}

// The entry of the container's resources.claims that names `claim`, and its path.
const Value* ClaimEntry(const ContainerInfo& c, const std::string& claim, std::string* path) {
  const Value* res = c.node->Find(c.resources_field);
  const Value* claims = res ? res->Find("claims") : nullptr;
  if (!claims || !claims->is_sequence()) return nullptr;
  for (size_t i = 0; i < claims->items().size(); ++i) {
    if (claims->items()[i].StringAt("name") != claim) continue;
    *path = AppendKey(c.path, c.resources_field) + ".claims[" + std::to_string(i) + "]";
    return &claims->items()[i];
  }
  return nullptr;
}

// The memory a DRA request asks of each device (capacity.requests.memory);
// false when it asks none, or in a form that is no quantity.
bool MemoryAsked(const DeviceRequest& r, Quantity* asked) {
  for (const auto& [resource, text] : r.capacity) {
    QuantityError bad;
    if (resource == "memory" && Quantity::Parse(text, asked, &bad)) return true;
  }
  return false;
}

// The one of `nodes` whose GPUs have the most memory, when all have less than
// `asked`; null when one has at least `asked`, or none says what its GPUs
// have. A GPU's memory is the node's (nvidia.com/gpu.memory, or its node
// class's).
template <typename Nodes, typename ShapeOf>
auto LargestIfNoneFits(const Nodes& nodes, ShapeOf shape_of, const Quantity& asked)
    -> decltype(&*std::begin(nodes)) {
  decltype(&*std::begin(nodes)) best = nullptr;
  for (const auto& node : nodes) {
    const NodeClass& shape = shape_of(node);
    if (!shape.has_gpu() || !shape.gpu.vram_per_gpu) continue;
    if (asked <= *shape.gpu.vram_per_gpu) return nullptr;
    if (!best || *shape.gpu.vram_per_gpu > *shape_of(*best).gpu.vram_per_gpu) best = &node;
  }
  return best;
}

const NodeClass& GroupShape(const std::shared_ptr<const NodeGroup>& g) { return g->shape; }
const NodeClass& CandidateShape(const Candidate& c) { return *c.node; }

// Whether a request is judged at all: a GPU request with no alternatives (a
// firstAvailable alternative after the first may still be allocated).
bool Judged(const DeviceRequest& r, const Policy& policy) {
  return r.other_classes.empty() && IsGpuRequest(r, policy.gpu_device_classes);
}

std::string AskedOfEach(const DeviceRequest& r, const Quantity& asked) {
  return DescribeBytes(asked) + " of memory of each " + r.device_class + " device";
}

// What a request asks of each device, for a message: "100Gi (...) of memory".
std::string Asked(const std::string& capacity, const Quantity& q) {
  return (capacity == "memory" ? DescribeBytes(q) : q.Canonical()) + " of " + capacity;
}

// The judgment of a request by the devices ResourceSlices publish.
std::string OnDevices(const DeviceRequest& r, const RequestOnDevices& on) {
  std::string head = "request \"" + r.name + "\" asks ";
  std::string tail = ": the scheduler cannot allocate it, and every pod that uses it stays Pending";
  if (on.capacity.empty()) {
    std::string asked;
    for (const auto& [name, text] : r.capacity) asked += (asked.empty() ? "" : ", ") + text + " of " + name;
    return head + asked + " of each " + r.device_class + " device, but no device that DeviceClass " +
           r.device_class + " selects has all of it" +
           (r.selectors.empty() ? "" : " and passes the request's selectors") + tail;
  }
  head += Asked(on.capacity, on.asked) + " of each " + r.device_class + " device, but ";
  if (!on.largest)
    return head + "no device that DeviceClass " + r.device_class + " selects has a " + on.capacity +
           " capacity" + tail;
  return head + "the largest device that DeviceClass selects, \"" + on.largest->info->name +
         "\" of " + DevicePlace(*on.largest) + ", has " + on.most.Canonical() +
         ", and no node's have more" + tail;
}

// DRA, a ResourceClaim or ResourceClaimTemplate on its own (the webhook
// admits it before any pod uses it): a GPU request that asks each device for
// more memory than any device its class selects has (in the ResourceSlices
// in view, else the GPUs GPU Feature Discovery labels) can never be
// allocated, and every pod that uses it stays Pending. One that gpulint
// cannot judge by its devices is dra-cannot-tell's.
void CheckClaimObject(const ObjectContext& ctx, Reporter& out) {
  for (const DeviceRequestAt& r : ClaimRequests(ctx.object)) {
    Quantity asked;
    if (!Judged(r.request, ctx.policy) || !MemoryAsked(r.request, &asked)) continue;
    const Value* capacity = r.node->Find("capacity");
    const Value* requests = capacity ? capacity->Find("requests") : nullptr;
    RequestOnDevices on = JudgeRequestOnDevices(r.request, ctx.inventory);
    if (on.answer == RequestOnDevices::Answer::kNo) {
      const Value* at = requests && !on.capacity.empty() ? requests->Find(on.capacity) : nullptr;
      out.Report(at ? at : r.node,
                 at ? AppendKey(r.path + ".capacity.requests", on.capacity) : r.path,
                 OnDevices(r.request, on));
      continue;
    }
    if (on.answer != RequestOnDevices::Answer::kNoDevices) continue;
    const auto* best = LargestIfNoneFits(ctx.inventory.groups, GroupShape, asked);
    if (!best) continue;
    const Value* memory = requests ? requests->Find("memory") : nullptr;
    out.Report(memory ? memory : r.node, memory ? r.path + ".capacity.requests.memory" : r.path,
               "request \"" + r.request.name + "\" asks " + AskedOfEach(r.request, asked) +
                   ", but the GPUs of node \"" + (*best)->members.front()->name + "\" have " +
                   (*best)->shape.gpu.vram_per_gpu->Canonical() +
                   " each, and no node's have more: the scheduler cannot allocate it, and "
                   "every pod that uses it stays Pending");
  }
}

// DRA, a pod's claims in view: one whose GPUs have more memory on some node,
// but on none of the pod's candidates. (More than every node's is the
// claim's own finding, CheckClaimObject.) By GPU Feature Discovery's labels
// only: where ResourceSlices publish the class's devices, the pod's fit
// with them is exceeds-allocatable's, as it is the scheduler's.
void CheckClaims(const PodInfo& pod, const ContainerInfo& c, const ObjectContext& ctx,
                 Reporter& out) {
  for (const ContainerInfo::GpuClaim& g : c.gpu_claims) {
    Quantity asked;
    if (!Judged(g.request, ctx.policy) || !MemoryAsked(g.request, &asked)) continue;
    if (JudgeRequestOnDevices(g.request, ctx.inventory).answer !=
        RequestOnDevices::Answer::kNoDevices)
      continue;
    const Candidate* best = LargestIfNoneFits(pod.candidates, CandidateShape, asked);
    if (!best || LargestIfNoneFits(ctx.inventory.groups, GroupShape, asked)) continue;
    std::string path;
    const Value* at = ClaimEntry(c, g.claim, &path);
    out.Report(at ? at : c.node, at ? path : c.path,
               ContainerLabel(c) + " asks, through DRA claim \"" + g.claim + "\", " +
                   AskedOfEach(g.request, asked) + ", but the GPUs of node \"" +
                   std::string(best->name) + "\" have " +
                   best->node->gpu.vram_per_gpu->Canonical() +
                   " each, and no candidate node's have more: the scheduler cannot allocate "
                   "the claim, and the pod stays Pending");
  }
}

void Check(const ObjectContext& ctx, Reporter& out) {
  for (const PodInfo& pod : ctx.pods) {
    for (const ContainerInfo& c : pod.containers) {
      CheckContainer(pod, c, ctx.policy, out);
      CheckClaims(pod, c, ctx, out);
    }
  }
  CheckClaimObject(ctx, out);
}

}  // namespace

extern const Rule kVramExceedsGpuRule = {
    {"vram-exceeds-gpu", Severity::kError, "Declared VRAM exceeds what the pod's GPUs give it",
     "The scheduler does not see GPU memory. A container that needs more VRAM than its GPUs give "
     "crashes at start and restarts forever (CrashLoopBackOff) instead of staying Pending: the "
     "fifth 12 GB model on a 48 GB card crashed in a loop while CPU and RAM still fit. A GPU "
     "gives less than its label: on an H200 (memory.total 143771 MiB) the driver reserved 616 "
     "MiB and a CUDA context took 621 MiB, so one process got at most 142534 MiB (139.2 GiB), "
     "and 140Gi cannot be had. A MIG slice has its slice's memory, not the number in its "
     "profile's name (the H200's 1g.18gb is 16 GiB). On shared GPUs every replica shares one "
     "card's memory. A DRA claim or claim template that asks each GPU for more memory than any "
     "node's GPUs have is refused where it is written: no pod that uses it could ever be "
     "scheduled. What a GPU has is what its driver publishes in ResourceSlices (each device's "
     "memory and other capacities, with the DeviceClass's and the request's selectors), else "
     "the GPU Feature Discovery labels of the nodes.",
     "Request more GPUs, a larger MIG profile or a node class with larger GPUs, or lower the "
     "declared VRAM (the gpulint.io/vram annotation or resource, or a DRA claim's "
     "capacity.requests.memory) to the measured peak.",
     RuleExample("vram-exceeds-gpu"),
     "Whole GPUs: the policy's gpuResources (nvidia.com/gpu, amd.com/gpu, gpu.intel.com/i915 and "
     "gpu.intel.com/xe by default), each giving its memory.total less what the driver reserves "
     "(vram.driverReservedPerGpu, or nvidia-smi's memory.reserved) less a CUDA context "
     "(vram.contextPerGpu); MIG slices (nvidia.com/mig-<profile>), each giving its slice's "
     "memory (GFD's nvidia.com/mig-<profile>.memory label, else a built-in table of measured "
     "sizes) less a context; and the devices of a DRA claim of a GPU device class, whose memory "
     "the claim asks through capacity.requests.memory. A sharing plugin's share is GPU use, but "
     "not a GPU of its own.",
     /*no_fix=*/nullptr, /*needs_nodes=*/true,
     /*not_cel=*/kNotCelNeedsNodes},
    Check,
};

}  // namespace gpulint
