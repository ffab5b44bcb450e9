// Where pods can land: node classes from the policy and real Node objects, and
// the scheduler's filters that decide which of them a pod can reach.
#ifndef GPULINT_ENGINE_INVENTORY_H_
#define GPULINT_ENGINE_INVENTORY_H_

#include <map>
#include <optional>
#include <string>
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

struct Inventory {
  std::vector<NodeClass> classes;
  bool empty() const { return classes.empty(); }
};

struct Toleration {
  std::string key, op, value, effect;  // op: Equal (default) or Exists
};

// The parts of a pod spec that decide where it may run.
struct Placement {
  std::string node_name;
  std::map<std::string, std::string> node_selector;
  const Value* required_affinity = nullptr;  // nodeAffinity.requiredDuringScheduling...
  std::vector<Toleration> tolerations;
};
Placement PlacementOf(const Value& pod_spec);

// Node lifecycle taints (node.kubernetes.io/not-ready, unreachable, ...) are
// transient and ignored; every other NoSchedule/NoExecute taint must be tolerated.
bool Tolerates(const Placement& p, const Taint& t);
// nodeName, nodeSelector, required node affinity (In, NotIn, Exists,
// DoesNotExist, Gt, Lt) and taints.
bool CanLandOn(const Placement& p, const NodeClass& node);
std::vector<const NodeClass*> Candidates(const Placement& p, const Inventory& inv);

}  // namespace gpulint

#endif  // GPULINT_ENGINE_INVENTORY_H_
