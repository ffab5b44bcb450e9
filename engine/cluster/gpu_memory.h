// What a GPU really gives a pod, as measured (docs/gpus.md): VRAM is
// memory.total less what the driver reserves less one CUDA context per
// process, and a MIG slice has its slice's memory, never the number in its
// profile's name.
#ifndef GPULINT_ENGINE_CLUSTER_GPU_MEMORY_H_
#define GPULINT_ENGINE_CLUSTER_GPU_MEMORY_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "engine/cluster/inventory.h"
#include "engine/quantity/quantity.h"

namespace gpulint {

// The policy's figures (spec.vram) for what of a GPU's memory.total no pod
// gets. One H200 measured 616 MiB reserved by the driver and 621 MiB for a
// CUDA context (testdata/gpu/h200).
struct GpuMemoryModel {
  // Per GPU, where the node does not say (GFD labels give memory.total only;
  // nvidia-smi's memory.reserved says it, GpuInfo::reserved_per_gpu).
  Quantity driver_reserved;
  // Per GPU a process uses: each container pays its own.
  Quantity context;
};

// What the driver keeps of one of `gpu`'s GPUs: measured where known, none
// for a MIG slice (its memory is what the instance has), else the policy's.
Quantity DriverReserved(const GpuInfo& gpu, const GpuMemoryModel& model);

// VRAM per GPU that pods share: memory.total less DriverReserved. Each
// process's CUDA context comes out of it. Nullopt when the VRAM per GPU is
// unknown; zero when the reserve is larger.
std::optional<Quantity> VramForPods(const GpuInfo& gpu, const GpuMemoryModel& model);

// The VRAM a node advertises as the policy's vram resource: GPU count ×
// VramForPods, in bytes (binary SI). Shared GPUs (time-slicing, MPS) count
// once: replicas are slices of the same memory, which the resource counts.
// Nullopt when the node has no GPU or no VRAM per GPU, or when the product
// overflows.
std::optional<Quantity> AdvertisedVram(const GpuInfo& gpu, const GpuMemoryModel& model);
std::optional<Quantity> AdvertisedVram(const NodeClass& node, const GpuMemoryModel& model);

// "1g.10gb" for NVIDIA's MIG resource nvidia.com/mig-1g.10gb (GPU Feature
// Discovery's mixed strategy); "" for any other resource.
std::string_view MigProfileOf(std::string_view resource);

// One MIG profile's real memory as a capture or GFD labels showed it.
struct MigProfileSize {
  std::string_view product;  // nvidia.com/gpu.product as GFD writes it
  std::string_view profile;  // "1g.10gb"
  int64_t mib;
  std::string_view source;
};
// The built-in table, by product then profile.
std::span<const MigProfileSize> MigProfileTable();

// The memory of one slice of MIG profile `profile` ("1g.10gb", "1g.18gb+me"):
// GFD's nvidia.com/mig-<profile>.memory label on `node` (MiB) when it has
// one, else the built-in table for the node's GPU product, else the largest
// the table knows for that profile on any card (a slice is surely no larger).
// Nullopt when none says. `source` says which, for messages.
struct SliceMemory {
  Quantity bytes;
  std::string source;  // "label nvidia.com/mig-1g.10gb.memory", "NVIDIA-H200, captured ..."
};
std::optional<SliceMemory> MigSliceMemory(const NodeClass* node, std::string_view profile);

}  // namespace gpulint

#endif  // GPULINT_ENGINE_CLUSTER_GPU_MEMORY_H_
