// vram-exceeds-gpu: declared VRAM above what the pod's GPUs have (incident 2),
// and a DRA claim asking its GPUs for more memory than they have.
#include <iterator>
#include <memory>
#include <string>

#include "engine/base/path.h"
#include "engine/rules/rule.h"
#include "engine/rules/rule_util.h"
#include "engine/workload/dra_fit.h"
#include "generated/rule_examples.h"

namespace gpulint {
namespace {

// VRAM that `gpus` GPUs (or replicas) surely give on `node`: whole GPUs each
// bring their memory; replicas of a shared GPU may all sit on one card.
Quantity VramOf(const NodeClass& node, int64_t gpus) {
  int64_t cards = gpus;
  if (node.gpu.sharing != GpuSharing::kNone && node.gpu.replicas > 1)
    cards = (gpus + node.gpu.replicas - 1) / node.gpu.replicas;
  return *node.gpu.vram_per_gpu * cards;
}

void CheckContainer(const PodInfo& pod, const ContainerInfo& c, const Policy& policy,
                    Reporter& out) {
  Quantity vram;
  const Value* at = nullptr;
  std::string path;
  if (!DeclaredVram(pod, c, policy, &vram, &at, &path)) return;
  int64_t gpus = c.GpuCount(policy).Value();
  if (gpus <= 0) {
    // Its own declaration, or the pod's for the one app container of a pod
    // that asks for no GPU (incident 2 as it happened). The mutation requests
    // the VRAM where nodes advertise it, so the card is not oversubscribed,
    // but no GPU is the container's own: a warning.
    out.Report(at, path,
               ContainerLabel(c) + " declares " + DescribeBytes(vram) +
                   " of VRAM but requests no GPU: the device plugin gives it none, and the "
                   "GPUs it reaches are other pods'; request " +
                   policy.gpu_resources.front() + " (one replica of a shared GPU for a slice)",
               Severity::kWarning);
    return;
  }
  const Candidate* best = nullptr;
  Quantity best_vram;
  for (const Candidate& candidate : pod.candidates) {
    const NodeClass* node = candidate.node;
    if (!node->has_gpu() || !node->gpu.vram_per_gpu) continue;
    Quantity have = VramOf(*node, gpus);
    if (vram <= have) return;  // fits on this one
    if (!best || have > best_vram) best = &candidate, best_vram = have;
  }
  if (!best) return;  // no candidate with known VRAM: nothing to compare with
  const GpuInfo& gpu = best->node->gpu;
  std::string share = gpu.sharing != GpuSharing::kNone
                          ? " (" + std::string(GpuSharingName(gpu.sharing)) + ", " +
                                std::to_string(gpu.replicas) + " replicas per GPU)"
                          : "";
  out.Report(at, path,
             ContainerLabel(c) + " declares " + DescribeBytes(vram) + " of VRAM but " +
                 std::to_string(gpus) + " GPU" + (gpus == 1 ? "" : "s") + " on node \"" +
                 std::string(best->name) + "\"" + share + (gpus == 1 ? " gives" : " give") +
                 " at most " + FormatBytes(best_vram) + " (" + gpu.vram_per_gpu->Canonical() +
                 " per GPU)");
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
    {"vram-exceeds-gpu", Severity::kError, "Declared VRAM exceeds what the pod's GPUs have",
     "The scheduler does not see GPU memory. A container that needs more VRAM than its GPUs have "
     "crashes at start and restarts forever (CrashLoopBackOff) instead of staying Pending: the "
     "fifth 12 GB model on a 48 GB card crashed in a loop while CPU and RAM still fit. On shared "
     "GPUs every replica shares one card's memory. A DRA claim or claim template that asks each "
     "GPU for more memory than any node's GPUs have is refused where it is written: no pod that "
     "uses it could ever be scheduled. What a GPU has is what its driver publishes in "
     "ResourceSlices (each device's memory and other capacities, with the DeviceClass's and the "
     "request's selectors), else the GPU Feature Discovery labels of the nodes.",
     "Request more GPUs, a node class with larger GPUs, or lower the declared VRAM (the "
     "gpulint.io/vram annotation or resource, or a DRA claim's capacity.requests.memory) to the "
     "measured peak.",
     RuleExample("vram-exceeds-gpu"),
     "Whole GPUs: the policy's gpuResources (nvidia.com/gpu, amd.com/gpu, gpu.intel.com/i915 and "
     "gpu.intel.com/xe by default), and the devices of a DRA claim of a GPU device class, whose "
     "memory the claim asks through capacity.requests.memory. A MIG slice or a sharing plugin's "
     "share is GPU use, but not a whole GPU."},
    Check,
};

}  // namespace gpulint
