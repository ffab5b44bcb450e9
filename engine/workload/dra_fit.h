// Whether a pod's DRA devices can be allocated on a node, as kube-scheduler's
// DynamicResources plugin and its structured allocator decide it: the
// devices of its claims, and of the extended resources that DeviceClasses
// back (KEP-5004: a resource a node does not list in allocatable and that a
// class backs is allocated from devices, through a claim the scheduler
// makes). Devices are judged by what the node's ResourceSlices publish
// (engine/cluster/dra_inventory.h says what is and is not evaluated).
#ifndef GPULINT_ENGINE_WORKLOAD_DRA_FIT_H_
#define GPULINT_ENGINE_WORKLOAD_DRA_FIT_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/cel/cel.h"
#include "engine/cluster/inventory.h"
#include "engine/workload/workload.h"

namespace gpulint {

// Devices a pod needs of one class, all allocated with it.
struct DeviceDemand {
  // For messages: "nvidia.com/gpu", "claim \"gpu\" (request \"gpus\")".
  std::string what;
  std::string device_class;
  int class_index = -1;  // in the inventory's DRA classes; -1: no such class
  int64_t count = 1;
  // Asked of each device (capacity.requests): a device without the capacity,
  // or with less (after a shared device's request policy rounds it up), does
  // not qualify.
  std::vector<std::pair<std::string, Quantity>> capacity;
  std::vector<CelSelector> selectors;  // the request's own
};

// A device for one demand: whether it qualifies.
CelVerdict Qualifies(const PublishedDevice& device, const DeviceDemand& demand);

// The demands of `pod` on a node of `shape`: every request of its claims in
// view (firstAvailable requests with alternatives, and allocationMode All,
// are left out: gpulint does not judge them), and each extended resource it
// requests that a class of `inventory` backs and `shape` does not list in
// allocatable. Empty when the inventory knows no DRA objects.
std::vector<DeviceDemand> DeviceDemandsOf(const PodInfo& pod, const NodeClass& shape,
                                          const Inventory& inventory);

// Whether `devices` (one node's; null: none) can hold all of `demands` at
// once. kNo only when no allocation could: each demand counted alone, and
// all of them together, against the devices that surely qualify and those
// that may. A device shared by several claims (allowMultipleAllocations)
// may serve more than one device's worth, so counting it is "cannot tell".
DeviceFit FitDevices(const std::vector<DeviceDemand>& demands, const NodeDevices* devices);

// FitDevices for the nodes of one candidate group: its shape's devices, or
// each member's own where a demand has selectors of its own (which may read
// what tells alike nodes apart). kFits when one of them fits; else kCannotTell
// when one of them cannot tell; else kNo (the first's why).
DeviceFit FitDevicesOnGroup(const std::vector<DeviceDemand>& demands, const NodeGroup& group);

// One request of a ResourceClaim or ResourceClaimTemplate judged against
// every device the inventory holds: a claim is not placed, and the pod that
// uses it may go to any node.
struct RequestOnDevices {
  // kNoDevices: the inventory holds no device its class may select (no DRA
  // objects, no such class, or none of its devices), so there is nothing to
  // judge it by (GPU Feature Discovery's labels may be).
  enum class Answer { kNoDevices, kFits, kNo, kCannotTell };
  Answer answer = Answer::kNoDevices;
  std::string why;  // kCannotTell: what could not be read
  // kNo: the first capacity asked that no device the class selects has as
  // much of ("" when each has some device with enough, but none all at
  // once, or the request's selectors rule them out), what was asked, and
  // the device with the most of it.
  std::string capacity;
  Quantity asked, most;
  const PublishedDevice* largest = nullptr;
};
RequestOnDevices JudgeRequestOnDevices(const DeviceRequest& request, const Inventory& inventory);

// The node a device is published for ("dra-a100-0"), else its pool.
std::string DevicePlace(const PublishedDevice& device);

// The extended resources of `pod` that DRA may serve on `shape` (a class of
// the inventory backs them, the node lists none in allocatable, or 0): the
// scheduler's NodeResourcesFit leaves these to DynamicResources.
bool LeftToDra(std::string_view resource, const NodeClass& shape, const Inventory& inventory);

}  // namespace gpulint

#endif  // GPULINT_ENGINE_WORKLOAD_DRA_FIT_H_
