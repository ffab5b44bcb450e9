// NVIDIA_VISIBLE_DEVICES=void: how a container that asks for no GPU is kept
// from seeing the node's GPUs. gpu-limit-missing attaches it as its repair;
// the hide-GPUs mutation adds it.
#ifndef GPULINT_ENGINE_RULES_HIDE_GPUS_H_
#define GPULINT_ENGINE_RULES_HIDE_GPUS_H_

#include <string>
#include <vector>

#include "engine/base/patch_op.h"
#include "engine/base/value.h"
#include "engine/policy/policy.h"
#include "engine/workload/workload.h"

namespace gpulint {

// Whether the container sets NVIDIA_VISIBLE_DEVICES itself, by value or
// valueFrom. envFrom is not looked into: an explicit env entry wins over it in
// Kubernetes, so a variable from a ConfigMap is overridden by the one added.
bool SetsVisibleDevices(const Value& container);

// NVIDIA_VISIBLE_DEVICES=void appended to the env of the container at JSON
// pointer `pointer` (the env list created when missing).
void AddHideGpusOp(const Value& container, const std::string& pointer, std::vector<PatchOp>* ops);

// The resource in `c`'s requests or limits that misspells one of the policy's
// GPU resources (nvidia.com/gpus), or "": such a container meant to ask for a
// GPU, and hiding the node's GPUs from it would hide that GPU too once the
// name is corrected. Neither the repair nor the mutation hides them there.
std::string MisspeltGpuResource(const ContainerInfo& c, const Policy& policy);

}  // namespace gpulint

#endif  // GPULINT_ENGINE_RULES_HIDE_GPUS_H_
