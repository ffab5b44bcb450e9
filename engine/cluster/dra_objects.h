// The DRA objects (resource.k8s.io) that describe a cluster's devices, as the
// node inventory reads them: DeviceClasses (which devices a class selects,
// and the extended resource it backs) and ResourceSlices (the devices a
// driver publishes, where they are, and their attributes and capacities).
// Versions v1 (GA in Kubernetes 1.34), v1beta2 and v1beta1 (whose devices
// nest under `basic`) read alike.
#ifndef GPULINT_ENGINE_CLUSTER_DRA_OBJECTS_H_
#define GPULINT_ENGINE_CLUSTER_DRA_OBJECTS_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/finding.h"
#include "engine/base/value.h"
#include "engine/cel/cel.h"
#include "engine/quantity/quantity.h"

namespace gpulint {

struct DeviceClassInfo {
  std::string name;
  std::string source;                  // "nodes.yaml:12:5", "api-server"
  std::vector<CelSelector> selectors;  // spec.selectors[].cel.expression, all must match
  std::string extended_resource_name;  // spec.extendedResourceName; "" when none
  std::string created;                 // metadata.creationTimestamp (RFC 3339, UTC)
};

// How a consumable capacity (a device shared by several claims, KEP-5075)
// is handed out: what a claim that asks none is given, and the amounts one
// can ask for (an amount between these is rounded up to the next).
struct CapacityPolicy {
  std::optional<Quantity> default_request;
  std::vector<Quantity> valid_values;  // ascending
  std::optional<Quantity> min, max, step;
  bool empty() const { return !default_request && valid_values.empty() && !min; }
};

// Where a slice's devices (or, with perDeviceNodeSelection, one device) may
// be used: one node, every node, or the nodes a NodeSelector matches.
struct DeviceNodes {
  std::string node_name;
  bool all_nodes = false;
  std::shared_ptr<const Value> node_selector;  // {nodeSelectorTerms: [...]}
};

struct DeviceInfo {
  std::string name;
  CelAttributes attributes;  // by domain; a name without one is under the driver's
  CelCapacities capacity;    // likewise
  std::map<std::string, CapacityPolicy, std::less<>> policies;  // by "domain/name"
  bool shared = false;       // allowMultipleAllocations: claims consume its capacity
  bool tainted = false;      // a NoSchedule or NoExecute device taint
  DeviceNodes nodes;         // with perDeviceNodeSelection; else the slice's
  std::string problem;       // why CEL cannot read it (a version that does not parse)
};

struct ResourceSliceInfo {
  std::string name;
  std::string source;
  std::string driver;
  std::string pool;
  int64_t generation = 0;
  int64_t slice_count = 1;  // pool.resourceSliceCount
  DeviceNodes nodes;
  bool per_device_nodes = false;  // perDeviceNodeSelection
  std::vector<DeviceInfo> devices;
};

// What a nodes file or the API server gave of DRA. Slices are shared, so
// that an inventory built after one slice changed keeps what it made of the
// others (DraInventory::Make).
struct DraObjects {
  std::vector<DeviceClassInfo> classes;
  std::vector<std::shared_ptr<const ResourceSliceInfo>> slices;
  bool empty() const { return classes.empty() && slices.empty(); }
};

// Whether `object` is a DeviceClass or ResourceSlice of resource.k8s.io
// ("" for neither), as the kind in a List item or document says.
std::string_view DraKindOf(const Value& object);

// Read one object. False with *error (positioned in `file`) when it is not a
// usable object of its kind: what the API server would never serve.
bool ReadDeviceClass(const Value& object, const std::string& file, DeviceClassInfo* out,
                     Error* error);
bool ReadResourceSlice(const Value& object, const std::string& file, ResourceSliceInfo* out,
                       Error* error);
// Either, by kind, into `out`.
bool ReadDraObject(const Value& object, const std::string& file, DraObjects* out, Error* error);

// "gpu.nvidia.com/memory" for a name and the driver that published it: a
// name without a domain is under the driver's.
std::string QualifiedName(std::string_view name, std::string_view driver);

}  // namespace gpulint

#endif  // GPULINT_ENGINE_CLUSTER_DRA_OBJECTS_H_
