// The engine's mutations (VRAM resource, memory headroom, hidden GPUs) as RFC
// 6902 JSONPatch operations. Every decision is made from the object as it is,
// so applying the patch and mutating again finds nothing left to do.
#include "engine/mutate/mutate.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "engine/base/path.h"
#include "engine/cluster/gpu_memory.h"
#include "engine/rules/hide_gpus.h"
#include "engine/rules/rule_util.h"
#include "engine/workload/headroom_record.h"
#include "engine/workload/vram.h"
#include "engine/workload/workload.h"

namespace gpulint {
namespace {

Value StringValue(const std::string& text) { return Value::String(text); }

Value MapOf(std::vector<Value::Member> members) {
  Value v(Value::Type::kMapping);
  v.mutable_members() = std::move(members);
  return v;
}

void AddOp(std::vector<PatchOp>* ops, std::string op, std::string path, Value value) {
  ops->push_back(PatchOp{std::move(op), std::move(path), std::move(value)});
}

// A container whose GPUs the mutations can count: a GPU limit, every GPU
// quantity valid, a positive whole number in all. Fractional or invalid GPU
// limits are denied by gpu-fractional and quantity-invalid; mutating them
// would only guess.
bool CountGpus(const ContainerInfo& c, const Policy& policy, int64_t* count) {
  if (!c.UsesGpus(policy)) return false;
  for (const std::string& gpu : policy.gpu_resources) {
    const ResourceEntry* l = c.Limit(gpu);
    const ResourceEntry* r = c.Request(gpu);
    if ((l && !l->valid) || (r && !r->valid)) return false;
  }
  Quantity n = c.GpuCount(policy);
  if (n.sign() <= 0 || !n.is_whole()) return false;
  *count = n.Value();
  return true;
}

// VRAM that `gpus` GPUs surely give pods on every candidate node able to hold
// the pod: whole GPUs each bring their VRAM for pods (memory.total less what
// the driver reserves, engine/cluster/gpu_memory.h), their processes'
// contexts included; a replica of a shared (MPS or time-sliced) GPU brings
// its share, rounded down to a byte. Candidates whose GPUs (or replicas) are
// fewer than the pod asks for cannot run it and do not count. Nothing when no
// candidate has known VRAM, or when one has unified memory: there a guess would
// be taken from the node's memory, and would hide the missing declaration that
// memory-limit-missing must see.
std::optional<Quantity> VramFromNodes(const PodInfo& pod, const Policy& policy, int64_t gpus) {
  std::optional<Quantity> smallest;
  int64_t pod_gpus = pod.GpuCount(policy);
  for (const Candidate& candidate : pod.candidates) {
    const NodeClass* node = candidate.node;
    if (node->has_gpu() && policy.UnifiedMemory(*node)) return std::nullopt;
    std::optional<Quantity> per_gpu = VramForPods(node->gpu, policy.vram_model);
    if (!node->has_gpu() || !per_gpu) continue;
    bool shared = node->gpu.sharing != GpuSharing::kNone && node->gpu.replicas > 1;
    int64_t slices = shared ? node->gpu.replicas : 1;
    if (pod_gpus > node->gpu.count * slices) continue;
    // In the unit system the node's VRAM is given in (GFD labels: MiB, binary).
    Quantity per_slice = Quantity::FromInt(per_gpu->Value() / slices, per_gpu->format());
    Quantity vram = per_slice * gpus;
    if (!smallest || vram < *smallest) smallest = vram;
  }
  return smallest;
}

// Whether the VRAM resource can be granted wherever the pod may go: every
// candidate node with GPUs advertises it in its allocatable (gpulint-webhook
// --advertise-vram writes it), and at least one does. Anywhere else a VRAM
// request would leave the pod Pending for good, so none is added.
bool VramAdvertised(const PodInfo& pod, const Policy& policy, Quantity* most) {
  bool any = false;
  for (const Candidate& candidate : pod.candidates) {
    const NodeClass* node = candidate.node;
    if (!node->has_gpu()) continue;
    auto it = node->allocatable.find(policy.vram_resource);
    if (it == node->allocatable.end() || it->second.sign() <= 0) return false;
    if (!any || it->second > *most) *most = it->second;
    any = true;
  }
  return any;
}

// The VRAM to add to a container, or nothing: what its annotations declare
// (AnnotatedVram; an invalid one stops there, as a guess would hide the typo)
// plus a CUDA context per GPU, as the card will hold them; else, for a GPU
// container, the candidate nodes. A MIG slice gets none: its memory is its
// own (the hardware partitions it, and the device plugin hands each slice to
// one container), so no other pod can take it, and vram-exceeds-gpu judges
// the declaration against it.
std::optional<Quantity> VramFor(const PodInfo& pod, const ContainerInfo& c, const Policy& policy,
                                int64_t gpus) {
  if (c.Request(policy.vram_resource) || c.Limit(policy.vram_resource)) return std::nullopt;
  if (!MigSlicesOf(c).empty()) return std::nullopt;
  if (std::optional<VramAnnotation> declared = AnnotatedVram(pod, c, policy, gpus)) {
    if (!declared->valid) return std::nullopt;
    return declared->quantity + policy.vram_model.context * gpus;
  }
  if (gpus <= 0) return std::nullopt;
  return VramFromNodes(pod, policy, gpus);
}

// The VRAM edits of one container: requests = limits, where nodes advertise
// the resource and one of them has that much. Returns the VRAM added.
std::optional<Quantity> VramEdits(const PodInfo& pod, const ContainerInfo& c,
                                  const Policy& policy, int64_t gpus,
                                  std::vector<std::pair<std::string, Value::Member>>* edits) {
  Quantity most;
  if (!policy.mutations.vram || !VramAdvertised(pod, policy, &most)) return std::nullopt;
  std::optional<Quantity> vram = VramFor(pod, c, policy, gpus);
  if (!vram || *vram > most) return std::nullopt;  // vram-exceeds-gpu says why
  std::string text = vram->Canonical();
  edits->push_back({"requests", {policy.vram_resource, StringValue(text)}});
  edits->push_back({"limits", {policy.vram_resource, StringValue(text)}});
  return vram;
}

// How many replicas each physical GPU is cut into where the pod may go (MPS
// or time-slicing): the fewest among its GPU candidates, so a replica counts
// for the largest share it may be; 1 when any has whole GPUs or none is known.
int64_t ReplicasPerGpu(const PodInfo& pod) {
  int64_t fewest = 0;
  for (const Candidate& candidate : pod.candidates) {
    const NodeClass* node = candidate.node;
    if (!node->has_gpu()) continue;
    bool shared = node->gpu.sharing != GpuSharing::kNone && node->gpu.replicas > 1;
    int64_t replicas = shared ? node->gpu.replicas : 1;
    if (fewest == 0 || replicas < fewest) fewest = replicas;
  }
  return fewest == 0 ? 1 : fewest;
}

// Memory headroom for one GPU container, by what it sets:
//
//   memory request | memory limit | patch
//   ---------------+--------------+----------------------------------------------
//   set            | set          | both += headroom (the QoS class stays)
//   set            | not set      | request += headroom
//   not set        | set          | limit += headroom; the API server defaults
//                  |              | the request to the new limit when it
//                  |              | creates the pod (a Pod reaching the webhook
//                  |              | already has its request defaulted)
//   not set        | not set      | nothing (memory-limit-missing reports it)
//   either one is not a valid quantity | nothing (quantity-invalid reports it)
//
// Sums keep the unit system of the value they grow (Quantity's + keeps the
// left operand's format), so 500Gi + 16Gi is "516Gi" and 440G + 16Gi is
// "457179869184". Returns false when nothing is added; else *record holds
// what was added and the texts the user wrote, {"added": "16Gi", "requests":
// "440G", "limits": "440G"}, for validation to judge and quote them.
bool HeadroomEdits(const ContainerInfo& c, const Quantity& headroom,
                   std::vector<std::pair<std::string, Value::Member>>* edits,
                   HeadroomEntry* record) {
  const ResourceEntry* request = c.Request("memory");
  const ResourceEntry* limit = c.Limit("memory");
  if ((request && !request->valid) || (limit && !limit->valid)) return false;
  if (!request && !limit) return false;
  record->added = headroom.Canonical();
  for (auto [list, entry, text] : {std::tuple{"requests", request, &record->requests},
                                   std::tuple{"limits", limit, &record->limits}}) {
    if (!entry) continue;
    edits->push_back({list, {"memory", StringValue((entry->quantity + headroom).Canonical())}});
    *text = std::string(entry->Text());
  }
  return true;
}

// Adds `edits` (list name -> key: value) to a container's resources, creating
// `resources`, `requests` and `limits` where they are missing with one op
// each: one that adds the whole map with every key it needs.
void ResourceOps(const Value& container, const std::string& pointer, const std::string& field,
                 const std::vector<std::pair<std::string, Value::Member>>& edits,
                 std::vector<PatchOp>* ops) {
  if (edits.empty()) return;
  std::vector<Value::Member> lists;  // "requests"/"limits" -> mapping, in first-use order
  for (const auto& edit : edits) {
    // Not a structured binding: clang before 16 cannot capture one in a lambda.
    const std::string& list = edit.first;
    const Value::Member& member = edit.second;
    auto it = std::find_if(lists.begin(), lists.end(),
                           [&](const Value::Member& m) { return m.first == list; });
    if (it == lists.end()) it = lists.insert(lists.end(), {list, Value(Value::Type::kMapping)});
    it->second.mutable_members().push_back(member);
  }
  const Value* resources = container.Find(field);
  std::string resources_pointer = pointer + "/" + EscapePointerSegment(field);
  if (!resources || !resources->is_mapping()) {
    AddOp(ops, "add", resources_pointer, MapOf(std::move(lists)));
    return;
  }
  for (Value::Member& list : lists) {
    std::string list_pointer = resources_pointer + "/" + list.first;
    const Value* existing = resources->Find(list.first);
    if (!existing || !existing->is_mapping()) {
      AddOp(ops, "add", list_pointer, std::move(list.second));
      continue;
    }
    for (Value::Member& m : list.second.mutable_members())
      AddOp(ops, existing->Find(m.first) ? "replace" : "add",
            list_pointer + "/" + EscapePointerSegment(m.first), std::move(m.second));
  }
}

// Whether NVIDIA_VISIBLE_DEVICES=void can be added to `c` without taking a
// GPU from it: it asks for none by any means (a GPU resource, a MIG profile or
// another vendor's, a DRA claim, a scheduler's pod key), sets the variable in
// no way itself, is not privileged (a privileged container sees every
// device anyway, and may rely on the runtime's driver libraries), and does not
// misspell a GPU resource (nvidia.com/gpus: it meant to ask for one).
bool HidesSafely(const PodInfo& pod, const ContainerInfo& c, const Policy& policy) {
  return !c.UsesGpus(policy) && !c.HasClaims() && !pod.SchedulerAssignsGpus(policy) &&
         !c.Privileged() && !SetsVisibleDevices(*c.node) &&
         MisspeltGpuResource(c, policy).empty();
}

// Sets annotation `key` on the pod template at `where`, creating metadata and
// annotations when missing.
void AnnotationOp(const PodInfo& pod, const std::string& key, const std::string& text,
                  std::vector<PatchOp>* ops) {
  std::string metadata_pointer = pod.template_pointer + "/metadata";
  const Value* metadata = pod.template_node->Find("metadata");
  Value annotation = MapOf({{key, StringValue(text)}});
  if (!metadata || !metadata->is_mapping()) {
    AddOp(ops, "add", metadata_pointer, MapOf({{"annotations", std::move(annotation)}}));
    return;
  }
  const Value* annotations = metadata->Find("annotations");
  if (!annotations || !annotations->is_mapping()) {
    AddOp(ops, "add", metadata_pointer + "/annotations", std::move(annotation));
    return;
  }
  AddOp(ops, "add", metadata_pointer + "/annotations/" + EscapePointerSegment(key),
        StringValue(text));
}

Quantity HeadroomPerGpu(const Policy& policy) {
  auto it = policy.reserved.find("memory");
  return it == policy.reserved.end() ? Quantity() : it->second.per_gpu;
}

// The mutations of one pod. The headroom annotation records, as JSON text,
// the memory added to each container and what the user wrote
// ({"trainer":{"added":"64Gi","limits":"1Ti"}}); its presence, not
// its content, is what keeps a second pass from adding headroom again, and
// validation takes what it records back out (ExtractPods).
void MutatePod(const PodInfo& pod, const Policy& policy, std::vector<PatchOp>* ops,
               std::vector<std::string>* notes) {
  auto note = [&](const ContainerInfo& c, const std::string& what) {
    if (notes) notes->push_back(ContainerLabel(c) + ": " + what);
  };
  // A node agent must see every GPU, and asks for none: hiding them takes the
  // node's GPUs away from the scheduler; headroom and VRAM do not apply.
  if (!pod.node_agent.empty() || pod.partial) return;
  Quantity per_gpu = HeadroomPerGpu(policy);
  // Headroom needs a place to record itself: pod specs without a template
  // (KServe predictors) have no metadata of their own and get none.
  bool headroom = policy.mutations.headroom && per_gpu.sign() > 0 && pod.template_node &&
                  !pod.Annotation(policy.headroom_annotation);
  // k of a GPU's r replicas bring k/r of its headroom: the driver memory is
  // per physical card, whoever shares it.
  int64_t replicas = ReplicasPerGpu(pod);
  HeadroomRecord recorded;
  for (const ContainerInfo& c : pod.containers) {
    int64_t gpus = 0;
    bool counted = CountGpus(c, policy, &gpus);
    std::vector<std::pair<std::string, Value::Member>> edits;
    if (std::optional<Quantity> vram = VramEdits(pod, c, policy, counted ? gpus : 0, &edits))
      note(c, policy.vram_resource + " " + BriefBytes(*vram) + " (VRAM)");
    if (counted) {
      Quantity added = per_gpu.ScaledUp(gpus, replicas).RoundedUp(0);
      HeadroomEntry record;
      if (headroom && HeadroomEdits(c, added, &edits, &record)) {
        recorded.push_back({c.name, std::move(record)});
        note(c, "memory +" + BriefBytes(added) + " (headroom for the GPU driver)");
      }
    }
    ResourceOps(*c.node, c.pointer, c.resources_field, edits, ops);
    if (!counted && policy.mutations.hide_gpus && pod.can_reach_gpu_node &&
        HidesSafely(pod, c, policy)) {
      AddHideGpusOp(*c.node, c.pointer, ops);
      note(c, "NVIDIA_VISIBLE_DEVICES=void (it asks for no GPU)");
    }
  }
  if (!recorded.empty())
    AnnotationOp(pod, policy.headroom_annotation, WriteHeadroomRecord(recorded), ops);
}

}  // namespace


std::vector<PatchOp> Mutate(const Value& object, const Policy& policy, const Inventory& inventory,
                            std::vector<std::string>* notes) {
  std::vector<PatchOp> ops;
  // Exempt namespaces are left alone here as Evaluate leaves them alone, so
  // `gpulint fix` and the webhook agree.
  if (!object.is_mapping() || policy.ExemptObject(object)) return ops;
  for (const PodInfo& pod : ExtractPods(object, policy, inventory))
    MutatePod(pod, policy, &ops, notes);
  return ops;
}

}  // namespace gpulint
