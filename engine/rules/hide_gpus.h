// NVIDIA_VISIBLE_DEVICES=void: how a container that asks for no GPU is kept
// from seeing the node's GPUs. gpu-limit-missing attaches it as its repair;
// the hide-GPUs mutation adds it.
#ifndef GPULINT_ENGINE_RULES_HIDE_GPUS_H_
#define GPULINT_ENGINE_RULES_HIDE_GPUS_H_

#include <string>
#include <vector>

#include "engine/base/patch_op.h"
#include "engine/base/value.h"

namespace gpulint {

// Whether the container sets NVIDIA_VISIBLE_DEVICES itself, by value or
// valueFrom. envFrom is not looked into: an explicit env entry wins over it in
// Kubernetes, so a variable from a ConfigMap is overridden by the one added.
bool SetsVisibleDevices(const Value& container);

// NVIDIA_VISIBLE_DEVICES=void appended to the env of the container at JSON
// pointer `pointer` (the env list created when missing).
void AddHideGpusOp(const Value& container, const std::string& pointer, std::vector<PatchOp>* ops);

}  // namespace gpulint

#endif  // GPULINT_ENGINE_RULES_HIDE_GPUS_H_
