// In-place pod resize (the pods/resize subresource, GA in Kubernetes 1.35):
// what a resize changes that judging the resized pod alone cannot see.
#ifndef GPULINT_ENGINE_RESIZE_H_
#define GPULINT_ENGINE_RESIZE_H_

#include <vector>

#include "engine/base/finding.h"
#include "engine/base/value.h"
#include "engine/cluster/inventory.h"
#include "engine/policy/policy.h"

namespace gpulint {

// Findings for a resize from `before` to `after` (both Pods), on top of
// Evaluate(after): a GPU container that had a memory limit (its own or the
// pod's) and has none afterwards makes memory-limit-missing's warning for it
// an error (unless the policy sets the rule's severity). A pod that never had
// a limit keeps the warning: the resize took nothing away.
std::vector<Finding> EvaluateResize(const Value& before, const Value& after, const Policy& policy,
                                    const Inventory& inventory);

}  // namespace gpulint

#endif  // GPULINT_ENGINE_RESIZE_H_
