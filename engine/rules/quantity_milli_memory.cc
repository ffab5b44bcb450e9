// quantity-milli-memory: `memory: 500m` is half a byte (and `storage: 500m`
// half a byte of disk). Kubernetes accepts it; nobody means it.
#include "engine/base/path.h"
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

// The repair of `e`, a byte count in container `c`'s requests or limits
// (`list`), where it can be read one way: "0m" is zero in any unit, and
// "500m" is 500Mi when the other side of the container (`other`, the
// `other_name`) says 500Mi, 500M when it says 500M.
void AttachFix(const ContainerInfo& c, const ResourceEntry& e, std::string_view list,
               const ResourceEntry* other, std::string_view other_name, Finding& f) {
  std::string_view text = e.Text();
  if (text.empty() || text.back() != 'm') {
    f.no_fix = "a byte count must be whole, and only the author knows the size meant";
    return;
  }
  std::string number(text.substr(0, text.size() - 1));
  std::string fixed, why;
  Value::Type type = Value::Type::kString;
  if (e.quantity.sign() == 0) {
    fixed = "0";
    type = Value::Type::kInt;  // a plain 0, as the author would write it
    why = "zero in any unit";
  } else if (other && other->valid &&
             (other->Text() == number + "Mi" || other->Text() == number + "M")) {
    fixed = std::string(other->Text());
    why = "the " + std::string(other_name) + " is " + fixed;
  } else {
    f.no_fix = std::string(text) + " could be " + number + "Mi or " + number +
               "M, and only the author knows which";
    return;
  }
  std::string pointer =
      c.pointer + "/resources/" + std::string(list) + "/" + EscapePointerSegment(e.name);
  f.fix = FixIt{{PatchOp{"replace", std::move(pointer), Value::Scalar(type, fixed)}},
                std::string(text) + " -> " + fixed + " (" + why + ")",
                ""};
}

// `e` holds a byte count.
Finding* CheckBytes(const ResourceEntry& e, Reporter& out) {
  if (!e.valid || !e.value->is_scalar() || e.value->is_null()) return nullptr;
  std::string_view text = TrimGoSpace(e.Text());
  std::string_view suffix = SubUnitSuffix(text);
  if (suffix.empty() && e.quantity.is_whole()) return nullptr;
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
  return &out.Report(e.value, e.path, msg);
}

void Check(const ObjectContext& ctx, Reporter& out) {
  for (const PodInfo& pod : ctx.pods)
    for (const ContainerInfo& c : pod.containers) {
      for (const ResourceEntry& e : c.requests) {
        Finding* f = IsByteResource(e.name, ctx.policy) ? CheckBytes(e, out) : nullptr;
        if (f && out.fixes()) AttachFix(c, e, "requests", c.Limit(e.name), "limit", *f);
      }
      for (const ResourceEntry& e : c.limits) {
        Finding* f = IsByteResource(e.name, ctx.policy) ? CheckBytes(e, out) : nullptr;
        if (f && out.fixes()) AttachFix(c, e, "limits", c.Request(e.name), "request", *f);
      }
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
     RuleExample("quantity-milli-memory"), nullptr, kNoRepair},
    Check,
};

}  // namespace gpulint
