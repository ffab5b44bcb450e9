// In-place pod resize (the pods/resize subresource, GA in Kubernetes 1.35):
// what a resize changes that judging the resized pod alone cannot see.
#ifndef GPULINT_ENGINE_RESIZE_H_
#define GPULINT_ENGINE_RESIZE_H_

#include <vector>

#include "engine/base/finding.h"
#include "engine/base/value.h"
#include "engine/cluster/inventory.h"
#include "engine/engine.h"
#include "engine/policy/policy.h"

namespace gpulint {

// Findings for a resize from `before` to `after` (both Pods): Evaluate(after)
// with `before` as memory-limit-missing's input (EvaluateOptions::resized_from).
// A pod that never had a limit keeps the warning: the resize took nothing away.
inline std::vector<Finding> EvaluateResize(const Value& before, const Value& after,
                                           const Policy& policy, const Inventory& inventory) {
  EvaluateOptions options;
  options.resized_from = &before;
  return Evaluate(after, "", policy, inventory, options);
}

}  // namespace gpulint

#endif  // GPULINT_ENGINE_RESIZE_H_
