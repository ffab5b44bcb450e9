// The DRA part of the node inventory: DeviceClasses and the devices that
// ResourceSlices publish, read into what the scheduler's DynamicResources
// plugin and its structured allocator see. Built whole from what was read,
// then immutable and shared (a webhook publishes a new one when a class or
// slice changes).
//
// What is evaluated, as kube-scheduler 1.36 does it:
//  - which extended resource a class backs: `deviceclass.resource.kubernetes.io/
//    <class>` for every class, and its spec.extendedResourceName, which the
//    newest class (then the first by name) owns when several name it;
//  - which devices a class selects: every CEL selector of the class, for every
//    device (engine/cel/cel.h; a selector gpulint cannot evaluate is "cannot
//    tell" for that device);
//  - which devices a node can be given: those of slices for the node
//    (nodeName), for all nodes, or for a node selector that matches it, or,
//    with perDeviceNodeSelection, the device's own; of each pool only the
//    slices of its newest generation.
// CEL runs once per device and class, when a slice or a class is read, never
// per review.
// What is not: devices already allocated to claims (gpulint judges what a
// node's devices hold, as it judges allocatable, and does not read
// ResourceClaims' allocations), the counters partitionable devices share,
// and binding conditions. Each can only make a device less available, so
// leaving them out can miss a pod that will not fit, never deny one that will.
#ifndef GPULINT_ENGINE_CLUSTER_DRA_INVENTORY_H_
#define GPULINT_ENGINE_CLUSTER_DRA_INVENTORY_H_

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/cel/cel.h"
#include "engine/cluster/dra_objects.h"

namespace gpulint {

struct NodeClass;

// A device as the inventory holds it: where it came from and what each
// DeviceClass makes of it.
struct PublishedDevice {
  const DeviceInfo* info = nullptr;  // in its slice
  std::string driver;
  std::string pool;
  std::vector<CelVerdict> classes;  // one per DraInventory::classes(), in order
  CelDevice Cel() const { return CelDevice{driver, &info->attributes, &info->capacity}; }
};

// One ResourceSlice's devices with the classes' verdicts. Shared by the
// inventories built while neither it nor any class changed, and by the nodes
// whose devices it publishes.
struct SliceDevices {
  std::shared_ptr<const ResourceSliceInfo> slice;
  std::vector<PublishedDevice> devices;
};

// The devices one node can be given. Nodes whose devices no rule can tell
// apart (the same drivers, class verdicts and capacities; names and other
// attributes aside) have the same key and share a group (inventory.h).
struct NodeDevices {
  std::vector<std::shared_ptr<const SliceDevices>> slices;  // keeps the devices alive
  std::vector<const PublishedDevice*> devices;
  std::string key;       // what the group key holds of them
  std::string identity;  // the key, and each device's pool, name and attributes
};

class DraInventory {
 public:
  // `previous`, when given, lends what it made of the slices `objects` still
  // holds (the same objects), as long as the classes are the same.
  static std::shared_ptr<const DraInventory> Make(DraObjects objects,
                                                  const DraInventory* previous = nullptr);

  const std::vector<DeviceClassInfo>& classes() const { return classes_; }
  // The class's index in classes(), or -1.
  int ClassIndex(std::string_view name) const;
  // The class that backs extended resource `resource`, or -1 (the
  // scheduler's mapping, above).
  int ClassForResource(std::string_view resource) const;
  // Every device the inventory knows (of each pool's newest generation),
  // whatever node it is on.
  const std::vector<const PublishedDevice*>& devices() const { return devices_; }
  // The devices `node` can be given; null when it can be given none.
  std::shared_ptr<const NodeDevices> DevicesOf(const NodeClass& node) const;
  size_t slice_count() const { return slices_.size(); }

 private:
  DraInventory() = default;

  std::vector<DeviceClassInfo> classes_;
  std::vector<std::shared_ptr<const SliceDevices>> slices_;  // as given, every generation
  std::vector<const PublishedDevice*> devices_;
  struct Where {
    size_t slice;
    const PublishedDevice* device;
  };
  std::map<std::string, std::vector<Where>, std::less<>> by_node_;  // nodeName -> devices
  std::vector<Where> elsewhere_;  // allNodes or a node selector
  std::map<std::string, int, std::less<>> class_by_resource_;
};

// The prefix of the extended resource every DeviceClass backs.
inline constexpr std::string_view kDeviceClassResourcePrefix = "deviceclass.resource.kubernetes.io/";

}  // namespace gpulint

#endif  // GPULINT_ENGINE_CLUSTER_DRA_INVENTORY_H_
