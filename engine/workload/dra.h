// Dynamic Resource Allocation (resource.k8s.io; v1 is GA since Kubernetes
// 1.34): the device requests of ResourceClaims and ResourceClaimTemplates, so
// that a pod's claims tell whether its containers get GPUs.
#ifndef GPULINT_ENGINE_WORKLOAD_DRA_H_
#define GPULINT_ENGINE_WORKLOAD_DRA_H_

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/base/value.h"

namespace gpulint {

// One request of a claim's spec.devices.requests, as the manifest states it.
// v1 and v1beta2 nest it under `exactly` (or list `firstAvailable`
// alternatives); v1beta1 writes it in the request itself.
struct DeviceRequest {
  std::string name;          // "gpu"
  std::string device_class;  // "gpu.nvidia.com"
  // Devices asked for: `count` (1 by default) with allocationMode ExactCount;
  // none with allocationMode All (every matching device on the node).
  std::optional<int64_t> count = 1;
  // Consumable capacity asked of each device (capacity.requests), as
  // written: {"memory", "10Gi"}.
  std::vector<std::pair<std::string, std::string>> capacity;
  // For a firstAvailable request: the device classes of the alternatives
  // after the first, which this entry describes.
  std::vector<std::string> other_classes;
  // The request's own CEL selectors (selectors[].cel.expression), which a
  // device must pass besides its class's.
  std::vector<std::string> selectors;
};

// Whether a request (or, for firstAvailable, any of its alternatives) asks
// for a device of one of `gpu_classes` (the policy's gpuDeviceClasses).
bool IsGpuRequest(const DeviceRequest& request, const std::vector<std::string>& gpu_classes);

// One request of a claim as it sits in the manifest: the mapping that holds
// its deviceClassName and capacity (v1's `exactly`, the first firstAvailable
// alternative, or a v1beta1 request) and that mapping's path in the object.
struct DeviceRequestAt {
  DeviceRequest request;
  const Value* node = nullptr;
  std::string path;  // spec.spec.devices.requests[0].exactly
};

// The device requests of a ResourceClaim (spec.devices) or a
// ResourceClaimTemplate (spec.spec.devices) of resource.k8s.io, any version;
// empty, and *is_claim false, for any other object.
std::vector<DeviceRequestAt> ClaimRequests(const Value& object, bool* is_claim = nullptr);

// The ResourceClaims and ResourceClaimTemplates seen so far, by namespace and
// name. Objects are read one at a time (a file's documents in order), so a
// pod sees the claims given before it.
class DeviceClaims {
 public:
  // Records `object` when it is a ResourceClaim or ResourceClaimTemplate of
  // resource.k8s.io (any version); returns whether it was one.
  bool Add(const Value& object);
  // The device requests of a template or claim, or null when not seen.
  const std::vector<DeviceRequest>* Template(std::string_view ns, std::string_view name) const;
  const std::vector<DeviceRequest>* Claim(std::string_view ns, std::string_view name) const;

 private:
  using Key = std::pair<std::string, std::string>;  // namespace, name
  std::map<Key, std::vector<DeviceRequest>> templates_, claims_;
};

}  // namespace gpulint

#endif  // GPULINT_ENGINE_WORKLOAD_DRA_H_
