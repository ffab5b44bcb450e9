// The rule registry: one explicit line per rule, in catalogue order.
#include <algorithm>

#include "engine/base/edit_distance.h"
#include "engine/rules/rule.h"

namespace gpulint {

extern const Rule kParseErrorRule;
extern const Rule kQuantityInvalidRule;
extern const Rule kQuantityMilliMemoryRule;
extern const Rule kQuantityMixedUnitsRule;
extern const Rule kQuantityCpuUnitsRule;
extern const Rule kQuantitySuspiciousRule;
extern const Rule kLimitBelowRequestRule;
extern const Rule kGpuLimitMissingRule;
extern const Rule kGpuRequestLimitMismatchRule;
extern const Rule kGpuFractionalRule;
extern const Rule kMemoryLimitMissingRule;
extern const Rule kLimitsMissingOnGpuNodeRule;
extern const Rule kDraClaimUnresolvedRule;
extern const Rule kDraCannotTellRule;
extern const Rule kExceedsAllocatableRule;
extern const Rule kUnknownResourceRule;
extern const Rule kNoMatchingNodeRule;
extern const Rule kVramExceedsGpuRule;
extern const Rule kSharedGpuMultipleReplicasRule;
extern const Rule kGpuVisibilityBypassRule;
extern const Rule kRemovedApiVersionRule;
extern const Rule kRemovedAnnotationRule;
extern const Rule kInvalidIgnoreRule;
extern const Rule kWorkloadNotCheckedRule;
extern const Rule kNodeMemoryRequestsRule;
extern const Rule kNodeMemoryLimitsRule;
extern const Rule kNodeVramNotAdvertisedRule;
extern const Rule kNodeGpuSharingRule;

const std::vector<const Rule*>& AllRules() {
  static const std::vector<const Rule*> kRules = {
      &kParseErrorRule,          &kQuantityInvalidRule,    &kQuantityMilliMemoryRule,
      &kQuantityMixedUnitsRule,  &kQuantityCpuUnitsRule,   &kQuantitySuspiciousRule,
      &kLimitBelowRequestRule,   &kGpuLimitMissingRule,    &kGpuRequestLimitMismatchRule,
      &kGpuFractionalRule,       &kMemoryLimitMissingRule, &kLimitsMissingOnGpuNodeRule,
      &kDraClaimUnresolvedRule,  &kDraCannotTellRule,
      &kExceedsAllocatableRule,  &kUnknownResourceRule,    &kNoMatchingNodeRule,
      &kVramExceedsGpuRule,
      &kSharedGpuMultipleReplicasRule, &kGpuVisibilityBypassRule, &kRemovedApiVersionRule,
      &kRemovedAnnotationRule,   &kInvalidIgnoreRule,      &kWorkloadNotCheckedRule,
      &kNodeMemoryRequestsRule,  &kNodeMemoryLimitsRule,   &kNodeVramNotAdvertisedRule,
      &kNodeGpuSharingRule,
  };
  return kRules;
}

const Rule* FindRule(std::string_view name) {
  for (const Rule* r : AllRules())
    if (name == r->info.name) return r;
  return nullptr;
}

std::vector<std::string_view> FixingRules() {
  std::vector<std::string_view> names;
  for (const Rule* r : AllRules())
    if (r->info.no_fix) names.push_back(r->info.name);
  return names;
}

PolicyNames RuleNames() {
  PolicyNames names;
  for (const Rule* r : AllRules()) names.rules.push_back({r->info.name, r->info.title});
  return names;
}

const Rule* ClosestRule(std::string_view name) {
  std::vector<std::string_view> names;
  for (const Rule* r : AllRules()) names.push_back(r->info.name);
  std::string closest = ClosestWord(name, names);
  return closest.empty() ? nullptr : FindRule(closest);
}

}  // namespace gpulint
