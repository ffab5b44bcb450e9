// quantity-mixed-units: decimal and binary sizes mixed in one pod, incident
// 1's "525374500Ki (99%)" next to "538419488000 (99%)".
#include "engine/rules/rule.h"
#include "engine/rules/rule_util.h"
#include "generated/rule_examples.h"

namespace gpulint {
namespace {

const char* SystemName(UnitSystem s) {
  return s == UnitSystem::kBinary ? "binary (Ki, Mi, Gi: powers of 1024)"
                                  : "decimal (k, M, G: powers of 1000)";
}

void Check(const ObjectContext& ctx, Reporter& out) {
  for (const PodInfo& pod : ctx.pods) {
    // The first sized value in the pod sets the system; each value in the
    // other system is reported once, pointing back at the first.
    const ResourceEntry* first = nullptr;
    UnitSystem first_system = UnitSystem::kNone;
    for (const ContainerInfo& c : pod.containers) {
      for (const auto* list : {&c.requests, &c.limits}) {
        for (const ResourceEntry& e : *list) {
          if (!e.valid || e.name != "memory" || !e.value->is_string()) continue;
          UnitSystem s = UnitSystemOf(e.Text());
          if (s == UnitSystem::kNone) continue;
          if (!first) {
            first = &e;
            first_system = s;
          } else if (s != first_system) {
            out.Report(e.value, e.path,
                       "memory " + std::string(e.Text()) + " (" + FormatBytes(e.quantity) + ") is " +
                           SystemName(s) + " but " + first->path + " is " + std::string(first->Text()) +
                           " (" + FormatBytes(first->quantity) + "), " + SystemName(first_system) +
                           "; use one unit system per pod");
          }
        }
      }
    }
  }
}

}  // namespace

extern const Rule kQuantityMixedUnitsRule = {
    {"quantity-mixed-units", Severity::kWarning, "Decimal and binary memory units mixed in one pod",
     "500Gi is 536.9 GB, 7% more than 500G. A pod that sizes its request in one system and its "
     "limit (or a sidecar) in the other is easy to get wrong by gigabytes, and `kubectl describe "
     "node` then shows Ki next to plain bytes (`525374500Ki (99%)` beside `538419488000 (99%)`).",
     "Pick one unit system for the whole pod; binary (Mi, Gi) matches what the kernel and "
     "`free` report.",
     RuleExample("quantity-mixed-units"), /*gpus=*/nullptr,
     /*no_fix=*/nullptr, /*needs_nodes=*/false, /*not_cel=*/
     "it judges the unit system a size is written in, and the API server hands admission each "
     "quantity of a kind it knows in canonical form: 1000 becomes 1k, and the unit system as "
     "written is gone"},
    Check,
};

}  // namespace gpulint
