// The mutations the policy enables, as RFC 6902 JSON Patch operations
// (engine/json/json_patch.h): the mutating webhook returns them, `gpulint fix`
// applies them to files.
#ifndef GPULINT_ENGINE_MUTATE_MUTATE_H_
#define GPULINT_ENGINE_MUTATE_MUTATE_H_

#include <string>
#include <string_view>
#include <vector>

#include "engine/base/finding.h"
#include "engine/base/path.h"
#include "engine/base/value.h"
#include "engine/cluster/inventory.h"
#include "engine/json/json_patch.h"
#include "engine/policy/policy.h"

namespace gpulint {

// The mutations the policy enables, for one object (not a List):
//  - VRAM: every GPU container gets the policy's VRAM resource (bytes,
//    requests = limits) from the container or pod annotation plus a CUDA
//    context per GPU (vram.contextPerGpu), else GPU count × what a GPU of its
//    candidate nodes gives pods (memory.total less the driver's reserve,
//    engine/cluster/gpu_memory.h), else the per-replica share on shared GPUs.
//    MIG slices get none: a slice's memory is its own. Nothing is guessed
//    toward a unified-memory GPU, whose VRAM is the node's memory: a guess
//    would hide the missing declaration memory-limit-missing denies.
//  - Headroom: GPU containers' memory request (and limit, where set) grows by the
//    per-GPU headroom; an annotation records it so a second pass adds nothing.
//  - Hide GPUs: containers with no GPU limit and no DRA claim (whose devices
//    the DRA driver injects) in a pod that can reach a GPU node get
//    NVIDIA_VISIBLE_DEVICES=void unless they set it themselves.
// Missing maps are created (resources, limits, annotations, env). Applying the
// result and mutating again yields no operations.
// `notes`, when given, gets one line per change in words, for a person who
// is shown what the patch would do: `container "trainer": memory +4Gi of
// headroom`, `container "logs": NVIDIA_VISIBLE_DEVICES=void`.
std::vector<PatchOp> Mutate(const Value& object, const Policy& policy, const Inventory& inventory,
                            std::vector<std::string>* notes = nullptr);

}  // namespace gpulint

#endif  // GPULINT_ENGINE_MUTATE_MUTATE_H_
