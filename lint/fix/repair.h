// The repairs `gpulint fix` makes by default: each answers a finding that
// `gpulint check` reports, and only where the manifest can be read one way.
// Capacity (the webhook's VRAM and memory headroom) is not a mistake and is
// never added here; see FixOptions::mutations in lint/fix/fix.h.
#ifndef GPULINT_LINT_FIX_REPAIR_H_
#define GPULINT_LINT_FIX_REPAIR_H_

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/finding.h"
#include "engine/base/value.h"
#include "engine/cluster/inventory.h"
#include "engine/mutate/mutate.h"
#include "engine/policy/policy.h"

namespace gpulint {

// The rules whose findings `gpulint fix` repairs. quantity-invalid's repairs
// are the certain unit fixes (lint/fix/unit_fix.h).
const std::vector<std::string_view>& RepairableRules();

struct Repair {
  std::string rule;  // the rule whose finding it answers
  PatchOp op;
  const Value* at = nullptr;  // where the change is reported
  std::string path;           // the field, as findings show it
  std::string what;           // "500m -> 500Mi (why)"
};

// A finding of a repairable rule that is left for a person, and why.
struct Unrepaired {
  const Finding* finding = nullptr;
  std::string why;
};

// The repairs for `findings` (Evaluate's, for `object`: one object, not a
// List) of the rules in `rules` (empty: every repairable rule). Every finding
// of those rules either gets a repair or goes to *left with the reason:
//  - gpu-limit-missing: NVIDIA_VISIBLE_DEVICES=void (the webhook's hide-GPUs
//    mutation), unless the container sets that variable itself or the policy
//    turns hiding off;
//  - gpu-request-limit-mismatch: a missing limit is set to the request; a
//    request that differs from its limit is set to the limit, which is what
//    the device plugin allocates;
//  - quantity-milli-memory: "0m" -> "0", and "500m" where the other side of
//    the same container reads 500Mi or 500M; otherwise Mi and M are both
//    possible and only the author knows which.
void RepairFindings(const Value& object, const std::vector<Finding>& findings,
                    const Policy& policy, const Inventory& inventory,
                    const std::set<std::string, std::less<>>& rules, std::vector<Repair>* repairs,
                    std::vector<Unrepaired>* left);

}  // namespace gpulint

#endif  // GPULINT_LINT_FIX_REPAIR_H_
