// Where pods can land: node classes from the policy and real Node objects, and
// the scheduler's filters that decide which of them a pod can reach.
#ifndef GPULINT_ENGINE_CLUSTER_INVENTORY_H_
#define GPULINT_ENGINE_CLUSTER_INVENTORY_H_

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/finding.h"
#include "engine/base/value.h"
#include "engine/cluster/dra_inventory.h"
#include "engine/quantity/quantity.h"

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
  std::optional<Quantity> vram_per_gpu; // bytes: memory.total; from nvidia.com/gpu.memory (MiB)
  // What the driver reserves of each, measured (nvidia-smi's memory.reserved);
  // GFD labels do not say, and the policy's figure stands in
  // (engine/cluster/gpu_memory.h).
  std::optional<Quantity> reserved_per_gpu;
  GpuSharing sharing = GpuSharing::kNone;
  int64_t replicas = 1;                 // nvidia.com/gpu.replicas: slices per GPU
  // Each "GPU" is a MIG slice (GFD's single strategy: nvidia.com/gpu is the
  // slice, its product "...-MIG-1g.5gb" and its memory the slice's).
  bool mig_slice = false;
  // A node class says its GPUs' memory is the node's own memory (Grace
  // Hopper, GB10, MI300A); real nodes are recognised by the policy's
  // unifiedMemoryGpus (Policy::UnifiedMemory).
  bool unified_memory = false;
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
  // The DRA devices the node can be given (ResourceSlices for it, for all
  // nodes, or for a node selector it matches); null when none, or when the
  // inventory holds no DRA objects.
  std::shared_ptr<const NodeDevices> devices;
  bool has_gpu() const { return gpu.count > 0; }
};

// Reads one Node object (from `kubectl get nodes -o yaml|json`, a NodeList, or a
// watch event's object). GPU Feature Discovery labels give the GPU model,
// count, VRAM per GPU and sharing; allocatable gives the rest. Returns false
// with *error (positioned) when the object is not a usable Node.
bool NodeClassFromNode(const Value& node, const std::string& file, NodeClass* out, Error* error);

// Labels that tell one node from the next and say nothing of its shape:
// kubelet's kubernetes.io/hostname, GPU Feature Discovery's timestamp, a cloud
// instance id. A group (below) keeps them per node, out of its key, so that
// thousands of alike nodes stay one group; a pod that selects on one is judged
// node by node.
bool IsPerNodeLabel(std::string_view key);

// One node of a group: what sets it apart from the others of its group.
struct NodeMember {
  std::string name;
  std::string source;
  std::map<std::string, std::string> own_labels;  // its per-node labels
  // Its own DRA devices: their key is the group's, their names and
  // attributes its own (a claim's selector may tell them apart).
  std::shared_ptr<const NodeDevices> devices;
  uint64_t order = 0;  // place in the inventory; nodes of equal order go by name
};
bool Before(const NodeMember& a, const NodeMember& b);  // inventory order

// Nodes that no rule can tell apart: the same labels (per-node ones aside),
// taints, allocatable, GPUs and DRA devices (NodeDevices::key). A class from
// the policy is a group of its own.
struct NodeGroup {
  NodeClass shape;  // what they all have; its labels leave out per-node ones
  std::vector<std::shared_ptr<const NodeMember>> members;  // in inventory order
  // Each per-node label key its members have, with how many have it: the
  // group's label keys without reading thousands of members.
  std::map<std::string, size_t> own_label_keys;
};

// Where pods can land: the policy's node classes and real nodes, in groups of
// alike nodes so that a pod is judged once per group, not once per node.
// Cheap to copy (groups are shared and never changed once published), so a
// webhook can publish a fresh one per node event.
struct Inventory {
  std::vector<std::shared_ptr<const NodeGroup>> groups;  // in no particular order
  size_t nodes = 0;  // classes and nodes, all groups together
  // DeviceClasses and ResourceSlices; null when the inventory knows nothing
  // of DRA (no such objects given, or not listed yet). A cluster that does
  // not serve resource.k8s.io has an empty one: it has no DeviceClasses.
  std::shared_ptr<const DraInventory> dra;
  bool empty() const { return nodes == 0; }
  size_t size() const { return nodes; }
  // Each node (or class) in inventory order, rebuilt whole: for tests and
  // tools, not for the per-object path.
  std::vector<NodeClass> Nodes() const;
  // Adds the groups of `other`, whose nodes are others than these (and its
  // DRA objects, when it has some).
  void Append(const Inventory& other);
};

// Orders (NodeMember::order) of the inventory's parts: the policy's classes
// (0, 1, ...), then nodes as a nodes file lists them, then watched nodes by name.
constexpr uint64_t kFileNodeOrder = uint64_t{1} << 32;
constexpr uint64_t kWatchedNodeOrder = uint64_t{2} << 32;

// Keeps an Inventory's groups up to date one node at a time, as a node watch
// delivers them: a change touches the node's old and new group only, and a
// node that changes nothing rules see (a kubelet heartbeat) touches nothing.
class NodeGroups {
 public:
  // Adds `node` as a node of its own, even if one of that name is there
  // (a nodes file is taken as written).
  void Add(NodeClass node, uint64_t order);
  // Adds `node`, or replaces the node of that name. False when nothing
  // changed that a rule or a message could see.
  bool Put(NodeClass node, uint64_t order);
  bool Remove(const std::string& name);  // false when no node has that name
  void Clear();
  // The node of that name, rebuilt whole; false when there is none.
  bool Find(const std::string& name, NodeClass* out) const;
  const Inventory& inventory() const { return inventory_; }

 private:
  NodeGroup* Writable(size_t index);  // the group at `index`, copied first if shared
  void Insert(const std::string& key, NodeClass shape, std::shared_ptr<const NodeMember> member);
  void Erase(const std::string& key, const NodeMember& member);

  Inventory inventory_;
  std::map<std::string, size_t> by_key_;  // group key -> index in inventory_.groups
  std::map<std::string, std::string, std::less<>> key_of_;  // node name -> its group key
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
// Whether a NodeSelector ({nodeSelectorTerms: [...]}, as in required node
// affinity and a ResourceSlice's nodeSelector) selects `node`.
bool MatchesNodeSelector(const Value& selector, const NodeClass& node);

// Alike nodes of one group that a pod can land on.
struct Candidate {
  const NodeClass* node;  // what they all have; its name is not theirs
  std::string_view name;  // the first of them, in inventory order
  size_t count;           // how many they are
  const NodeGroup* group = nullptr;  // theirs
};
// The groups a pod can land on, by their first such node in inventory order:
// "the first candidate with a GPU" is the one it was node by node.
std::vector<Candidate> Candidates(const Placement& p, const Inventory& inv);
// "3 node(s) had untolerated taint {nvidia.com/gpu: present}, 1 node(s) didn't
// match Pod's node affinity/selector": the inventory's nodes that `p` rules
// out, counted by reason as the scheduler counts them; "" when none is.
std::string ExclusionSummary(const Placement& p, const Inventory& inv);

}  // namespace gpulint

#endif  // GPULINT_ENGINE_CLUSTER_INVENTORY_H_
