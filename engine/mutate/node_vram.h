// The node-status JSON patch that advertises a node's VRAM as an extended
// resource (incident 2: the policy's vram resource, gpulint.io/vram by
// default), so that the scheduler counts the VRAM that /mutate adds to GPU
// containers. One builder for both writers: `gpulint node-patch`, once, by
// hand, and the webhook's VRAM advertiser (--advertise-vram), which keeps it
// there.
#ifndef GPULINT_ENGINE_MUTATE_NODE_VRAM_H_
#define GPULINT_ENGINE_MUTATE_NODE_VRAM_H_

#include <map>
#include <optional>
#include <string>

#include "engine/base/finding.h"
#include "engine/base/value.h"
#include "engine/cluster/gpu_memory.h"
#include "engine/cluster/inventory.h"
#include "engine/json/json_patch.h"
#include "engine/quantity/quantity.h"

namespace gpulint {

// `add` of `vram` (canonical) as `resource` in the node status map `field`
// ("capacity" or "allocatable"), which must exist.
PatchOp AddNodeVramOp(const std::string& field, const std::string& resource, const Quantity& vram);

// What `gpulint node-patch` prints: the VRAM added to status.capacity alone
// (the kubelet copies it to allocatable).
std::string NodeCapacityVramPatch(const std::string& resource, const Quantity& vram);

// What the advertiser writes, from the policy: the resource's name and the
// model of what of a GPU pods get (AdvertisedVram).
struct VramTarget {
  std::string resource;  // "" while no policy is loaded: nothing is written
  GpuMemoryModel model;
  bool operator==(const VramTarget& o) const {
    return resource == o.resource && model.driver_reserved == o.model.driver_reserved &&
           model.context == o.model.context;
  }
};

// What the advertiser needs of one Node object, read once when the watch
// sees it, so that a policy reload (another resource name, another driver
// reserve) can be planned again without the object.
struct NodeVramFacts {
  std::string name;
  std::string resource_version;
  std::optional<GpuInfo> gpu;  // none when the Node does not read
  std::string problem;         // set when the Node does not read (garbage labels)
  bool has_status = false;
  // status.capacity and status.allocatable as written; none when absent.
  std::optional<std::map<std::string, std::string>> capacity, allocatable;
  // AdvertisedVram under `model`; none without GPU labels.
  std::optional<Quantity> Vram(const GpuMemoryModel& model) const;
};
// `node` and `error` are what NodeClassFromNode made of `object`.
NodeVramFacts ReadNodeVramFacts(const Value& object, const NodeClass* node, const Error& error);

// The JSON patch for /api/v1/nodes/NAME/status that makes the node advertise
// its VRAM (AdvertisedVram under the target's model) as the target's
// resource in capacity and allocatable (each only where it
// differs, compared as quantities), or "" when there is nothing to write. A
// map the status lacks (a node with no kubelet) is added whole, guarded by a
// test of the resourceVersion: replacing a map that appeared meanwhile would
// drop the kubelet's resources.
std::string VramPatch(const NodeVramFacts& facts, const VramTarget& target);

}  // namespace gpulint

#endif  // GPULINT_ENGINE_MUTATE_NODE_VRAM_H_
