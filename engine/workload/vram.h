// The VRAM a container declares in the policy's annotation: the one reading
// that vram-exceeds-gpu and the VRAM mutation share.
#ifndef GPULINT_ENGINE_WORKLOAD_VRAM_H_
#define GPULINT_ENGINE_WORKLOAD_VRAM_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/policy/policy.h"
#include "engine/quantity/quantity.h"
#include "engine/workload/workload.h"

namespace gpulint {

struct VramAnnotation {
  Quantity quantity;
  const Value* value = nullptr;  // the annotation's value in the manifest
  std::string key;               // "gpulint.io/vram.cuda" or "gpulint.io/vram"
  // A string holding a non-negative quantity; quantity-invalid reports the
  // others, and they declare nothing.
  bool valid = false;
};

// The MIG slices a container asks for: its limit (else request) of NVIDIA's
// nvidia.com/mig-<profile>, valid, whole and above zero. A slice is a GPU
// with its slice's memory (engine/cluster/gpu_memory.h).
struct MigSlices {
  std::string_view profile;  // "1g.10gb"
  int64_t count = 0;
  const ResourceEntry* entry = nullptr;
};
std::vector<MigSlices> MigSlicesOf(const ContainerInfo& c);

// The GPU devices a container is given: whole GPUs (or replicas of shared
// ones) and MIG slices. Each process of it pays a CUDA context on each.
int64_t GpuDevices(const ContainerInfo& c, const Policy& policy);

// `<annotation>.<container>`, else the pod's `<annotation>` where it stands
// for `c`: a container with GPUs (`gpus` > 0: its GpuDevices), or the only
// app container of a pod that asks for no GPU (incident 2 as it happened). The first of the two that is present decides, valid or
// not: falling back to the pod's past an invalid one would hide the typo.
std::optional<VramAnnotation> AnnotatedVram(const PodInfo& pod, const ContainerInfo& c,
                                            const Policy& policy, int64_t gpus);

}  // namespace gpulint

#endif  // GPULINT_ENGINE_WORKLOAD_VRAM_H_
