// quantity-milli-memory: `memory: 500m` is half a byte (and `storage: 500m`
// half a byte of disk). Kubernetes accepts it; nobody means it.
#include "engine/rules/rule.h"
#include "engine/rules/rule_util.h"
#include "engine/workload/quantity_field.h"
#include "engine/workload/quantity_volumes.h"
#include "generated/rule_examples.h"

namespace gpulint {
namespace {

// The suffix of a quantity's text when it is one of the sub-unit ones.
std::string_view SubUnitSuffix(std::string_view text) {
  if (text.empty()) return {};
  char last = text.back();
  if (last == 'm' || last == 'u' || last == 'n') return text.substr(text.size() - 1);
  return {};
}

// `e` holds a byte count.
void CheckBytes(const ResourceEntry& e, Reporter& out) {
  if (!e.valid || !e.value->is_scalar() || e.value->is_null()) return;
  std::string_view text = TrimGoSpace(e.Text());
  std::string_view suffix = SubUnitSuffix(text);
  if (suffix.empty() && e.quantity.is_whole()) return;
  std::string msg =
      e.name + ": " + std::string(text) + " is " + e.quantity.ExactDecimal() + " bytes";
  if (suffix == "m") {
    std::string number(text.substr(0, text.size() - 1));
    Quantity mi, m;
    QuantityError ignored;
    if (Quantity::Parse(number + "Mi", &mi, &ignored) &&
        Quantity::Parse(number + "M", &m, &ignored))
      msg += " (\"m\" is milli, 1/1000); did you mean " + number + "Mi (" + FormatBytes(mi) +
             ") or " + number + "M (" + FormatBytes(m) + ")?";
  } else {
    msg += "; a byte count must be whole";
  }
  out.Report(e.value, e.path, msg);
}

void Check(const ObjectContext& ctx, Reporter& out) {
  for (const PodInfo& pod : ctx.pods)
    for (const ContainerInfo& c : pod.containers) {
      for (const auto* list : {&c.requests, &c.limits})
        for (const ResourceEntry& e : *list)
          if (IsByteResource(e.name, ctx.policy)) CheckBytes(e, out);
    }
  // Claims' storage and emptyDir size limits are byte counts too.
  for (const VolumeQuantity& v : VolumeQuantities(ctx.object, ctx.pods)) CheckBytes(v.entry, out);
}

}  // namespace

extern const Rule kQuantityMilliMemoryRule = {
    {"quantity-milli-memory", Severity::kError,
     "A memory or storage size in milli-bytes (500m is half a byte)",
     "The suffix m means 1/1000, not mega: `memory: 500m` asks for half a byte. Kubernetes "
     "accepts it, the scheduler places the pod anywhere, and the container is OOM-killed at start "
     "or, with no limit, takes what it finds.",
     "Write mebibytes as Mi (500Mi = 524288000 bytes) or megabytes as M (500M = 500000000 bytes).",
     RuleExample("quantity-milli-memory")},
    Check,
};

}  // namespace gpulint
