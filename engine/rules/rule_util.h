// Small facts about resources and containers that several rules share.
#ifndef GPULINT_ENGINE_RULES_RULE_UTIL_H_
#define GPULINT_ENGINE_RULES_RULE_UTIL_H_

#include <optional>
#include <string>
#include <string_view>

#include "engine/policy/policy.h"
#include "engine/workload/workload.h"

namespace gpulint {

// What the rules about GPUs count as one, said in the rule catalogue
// (RuleInfo::gpus), as ContainerInfo::UsesGpus and the policy decide it.
inline constexpr const char* kGpuUse =
    "A container uses GPUs when it asks for one of the policy's gpuResources (whole GPUs: "
    "nvidia.com/gpu, amd.com/gpu, gpu.intel.com/i915 and gpu.intel.com/xe by default; on a node "
    "that shares its GPUs by MPS or time-slicing, a replica), for a resource of "
    "otherGpuAssignments.resources (MIG profiles such as nvidia.com/mig-1g.5gb, the shares of "
    "GPU-sharing device plugins), or for a DRA claim of a GPU device class (gpu.nvidia.com, "
    "mig.nvidia.com, gpu.intel.com, gpu.amd.com, gpu.amd.com-spx).";
inline constexpr const char* kWholeGpus =
    "Whole GPUs: the policy's gpuResources (nvidia.com/gpu, amd.com/gpu, gpu.intel.com/i915 and "
    "gpu.intel.com/xe by default). A MIG slice or a sharing plugin's share is GPU use, but not a "
    "whole GPU.";

// A fixing rule's finding with no repair, where the rule says no more
// (RuleInfo::no_fix).
inline constexpr const char* kNoRepair = "no repair can be read from the manifest alone";

// Resources counted in bytes, the one list that the rules, the messages and
// `gpulint fix`'s unit repairs read: Kubernetes' memory, ephemeral-storage,
// storage and hugepages-<size>, and the policy's VRAM resource.
bool IsByteResource(std::string_view name, const Policy& policy);
bool IsGpuResource(const Policy& policy, std::string_view name);
// A quantity for a message: bytes in both unit systems, counts plainly.
std::string Describe(std::string_view resource, const Quantity& q, const Policy& policy);
// What `node` leaves for pods of `resource`: its allocatable (0 where it
// advertises none, as the scheduler reads it) less the policy's reserve.
Quantity AvailableOn(const std::string& resource, const NodeClass& node, const Policy& policy);
// AvailableOn's arithmetic for a message, bytes in both unit systems:
// "allocatable 503.3Gi (540.4 GB) - reserved 25.2 GiB (27.0 GB) [5% of
// allocatable + 4 GPUs × 1Gi] = 478.1 GiB (513.4 GB)", or "allocatable 16"
// when nothing is reserved.
std::string AvailableArithmetic(const std::string& resource, const NodeClass& node,
                                const Policy& policy);
// Path of the pod's metadata: "metadata" for a Pod, "spec.template.metadata"...
std::string MetadataPath(const PodInfo& pod);
// "container \"cuda\"", "initContainer \"setup\"", "sidecar \"proxy\"".
std::string ContainerLabel(const ContainerInfo& c);
// The GPU devices a container's DRA claims ask for, as the manifest states
// them: "DRA claim \"gpus\": 2 gpu.nvidia.com devices, memory 20Gi each";
// "" for none.
std::string DescribeGpuClaims(const ContainerInfo& c);
// The VRAM a container declares, in the one reading that vram-exceeds-gpu,
// the VRAM mutation and the audit share: its annotations (AnnotatedVram),
// else its VRAM resource limit (written by hand, or by the mutation where no
// annotation said). The resource is what the scheduler counts on the card:
// what the processes allocate plus a CUDA context (the policy's
// vram.contextPerGpu) on each GPU device.
struct VramDeclaration {
  Quantity declared;   // what its processes allocate
  Quantity scheduled;  // declared + contexts, as the resource carries it
  int64_t devices = 0;  // GpuDevices: whole GPUs (or replicas) and MIG slices
  bool from_resource = false;
  const Value* at = nullptr;  // where it is written
  std::string path;
};
std::optional<VramDeclaration> DeclaredVram(const PodInfo& pod, const ContainerInfo& c,
                                            const Policy& policy);

}  // namespace gpulint

#endif  // GPULINT_ENGINE_RULES_RULE_UTIL_H_
