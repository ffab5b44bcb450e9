// Where pods can land: node classes from the policy and real Node objects, and
// the scheduler's filters that decide which of them a pod can reach.
#ifndef GPULINT_ENGINE_INVENTORY_H_
#define GPULINT_ENGINE_INVENTORY_H_

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/finding.h"
#include "engine/quantity.h"
#include "engine/value.h"

namespace gpulint {

struct Taint {
  std::string key;
  std::string value;
  std::string effect;  // NoSchedule, PreferNoSchedule, NoExecute
};

enum class GpuSharing { kNone, kTimeSlicing, kMps };
const char* GpuSharingName(GpuSharing s);  // "none", "time-slicing", "mps"

struct GpuInfo {
  std::string model;                    // nvidia.com/gpu.product
  int64_t count = 0;                    // physical GPUs
  std::optional<Quantity> vram_per_gpu; // bytes; from nvidia.com/gpu.memory (MiB)
  GpuSharing sharing = GpuSharing::kNone;
  int64_t replicas = 1;                 // nvidia.com/gpu.replicas: slices per GPU
};

using ResourceList = std::map<std::string, Quantity>;

// One kind of node: a class from the policy, or one real Node.
struct NodeClass {
  std::string name;
  std::string source;  // "policy" or "nodes.yaml:12:5"
  std::map<std::string, std::string> labels;
  std::vector<Taint> taints;
  ResourceList allocatable;
  GpuInfo gpu;
  bool has_gpu() const { return gpu.count > 0; }
};

// Reads one Node object (from `kubectl get nodes -o yaml|json`, a NodeList, or a
// watch event's object). GPU Feature Discovery labels give the GPU model,
// count, VRAM per GPU and sharing; allocatable gives the rest. Returns false
// with *error (positioned) when the object is not a usable Node.
bool NodeClassFromNode(const Value& node, const std::string& file, NodeClass* out, Error* error);

// The VRAM a node advertises as the policy's vram resource: GPU count × VRAM
// per GPU, in bytes (binary SI). Shared GPUs (time-slicing, MPS) count once:
// replicas are slices of the same memory, which the resource counts. Nullopt
// when the node has no GPU or no VRAM per GPU, or when the product overflows.
std::optional<Quantity> AdvertisedVram(const NodeClass& node);

struct Inventory {
  std::vector<NodeClass> classes;
  bool empty() const { return classes.empty(); }
};

struct Toleration {
  std::string key, op, value, effect;  // op: Equal (default) or Exists
};

// Extended resources (a domain-prefixed name outside kubernetes.io, such as
// nvidia.com/gpu), as Kubernetes' IsExtendedResourceName reads them: the API
// server requires requests == limits for them, and the ExtendedResourceToleration
// admission plugin tolerates taints named after them.
bool IsExtendedResource(std::string_view name);

// The parts of a pod spec that decide where it may run.
struct Placement {
  std::string node_name;
  std::map<std::string, std::string> node_selector;
  const Value* required_affinity = nullptr;  // nodeAffinity.requiredDuringScheduling...
  std::vector<Toleration> tolerations;
  // Extended resources the pod requests, when the cluster runs the
  // ExtendedResourceToleration admission plugin: it adds a toleration
  // {key: <resource>, operator: Exists, effect: NoSchedule} for each to every
  // Pod it admits, so a template is judged with them.
  std::vector<std::string> tolerated_resources;
};
Placement PlacementOf(const Value& pod_spec);

// Node lifecycle taints (node.kubernetes.io/not-ready, unreachable, ...) are
// transient and ignored; every other NoSchedule/NoExecute taint must be tolerated.
bool Tolerates(const Placement& p, const Taint& t);
// Why the scheduler would not put the pod on `node`, in its own words
// ("node(s) had untolerated taint {nvidia.com/gpu: present}"), or "" when it
// may: nodeName, nodeSelector, required node affinity (In, NotIn, Exists,
// DoesNotExist, Gt, Lt) and taints, in the scheduler's order.
std::string ExclusionReason(const Placement& p, const NodeClass& node);
bool CanLandOn(const Placement& p, const NodeClass& node);
std::vector<const NodeClass*> Candidates(const Placement& p, const Inventory& inv);
// "3 node(s) had untolerated taint {nvidia.com/gpu: present}, 1 node(s) didn't
// match Pod's node affinity/selector": the inventory's nodes that `p` rules
// out, counted by reason as the scheduler counts them; "" when none is.
std::string ExclusionSummary(const Placement& p, const Inventory& inv);

}  // namespace gpulint

#endif  // GPULINT_ENGINE_INVENTORY_H_
