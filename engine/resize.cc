#include "engine/resize.h"

#include "engine/engine.h"
#include "engine/rules/rule_util.h"
#include "engine/workload/workload.h"

namespace gpulint {
namespace {

constexpr const char* kRule = "memory-limit-missing";

// The memory limit that bounded container `name` of `pod`, its own else the
// pod's; null when none did.
const ResourceEntry* BoundingLimit(const PodInfo& pod, std::string_view name) {
  for (const ContainerInfo& c : pod.containers)
    if (c.name == name && c.Limit("memory")) return c.Limit("memory");
  return pod.PodLimit("memory");
}

}  // namespace

std::vector<Finding> EvaluateResize(const Value& before, const Value& after, const Policy& policy,
                                    const Inventory& inventory) {
  std::vector<Finding> findings = Evaluate(after, "", policy, inventory);
  std::vector<PodInfo> old_pods = ExtractPods(before, policy, inventory);
  std::vector<PodInfo> new_pods = ExtractPods(after, policy, inventory);
  if (old_pods.size() != 1 || new_pods.size() != 1) return findings;
  // Upgrading Evaluate's own warning keeps exemptions, ignore annotations and
  // a rule the policy turned off exactly as they are for any pod.
  for (Finding& f : findings) {
    if (f.rule != kRule) continue;
    for (const ContainerInfo& c : new_pods.front().containers) {
      if (f.path != c.path + ".resources.limits") continue;
      const ResourceEntry* was = BoundingLimit(old_pods.front(), c.name);
      if (!was) break;
      f.severity = policy.RuleSeverity(kRule, Severity::kError);
      f.message = ContainerLabel(c) +
                  " uses GPUs, and the resize removes the memory limit that bounded it (" +
                  std::string(was->Text()) +
                  "); the driver's host memory is not charged to the pod, so an unbounded "
                  "container can hang the node";
      break;
    }
  }
  return findings;
}

}  // namespace gpulint
