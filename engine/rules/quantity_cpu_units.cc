// quantity-cpu-units: `cpu: 500Mi` is 524288000 cores. The API server accepts
// it (a cpu quantity is any quantity); no node has that many, so the pod never
// schedules. Mi, M and the other size suffixes are slips for m (milli).
#include <string>

#include "engine/rules/rule.h"
#include "engine/rules/rule_util.h"
#include "engine/workload/quantity_field.h"
#include "generated/rule_examples.h"

namespace gpulint {
namespace {

struct SizeSuffix {
  std::string_view suffix;
  std::string_view meaning;
};

constexpr SizeSuffix kSizeSuffixes[] = {
    {"Ki", "kibi, 2^10, a byte unit"},
    {"Mi", "mebi, 2^20, a byte unit"},
    {"Gi", "gibi, 2^30, a byte unit"},
    {"Ti", "tebi, 2^40, a byte unit"},
    {"Pi", "pebi, 2^50, a byte unit"},
    {"Ei", "exbi, 2^60, a byte unit"},
    {"k", "kilo, 1000"},
    {"M", "mega, 10^6"},
    {"G", "giga, 10^9"},
    {"T", "tera, 10^12"},
    {"P", "peta, 10^15"},
    {"E", "exa, 10^18"},
};

const SizeSuffix* SizeSuffixOf(std::string_view text) {
  for (const SizeSuffix& s : kSizeSuffixes)
    if (text.size() > s.suffix.size() && text.substr(text.size() - s.suffix.size()) == s.suffix)
      return &s;
  return nullptr;
}

void CheckEntry(const ContainerInfo& c, const ResourceEntry& e, Reporter& out) {
  if (e.name != "cpu" || !e.valid || e.quantity.sign() <= 0 || !e.value->is_string()) return;
  const std::string_view text = TrimGoSpace(e.Text());
  const SizeSuffix* s = SizeSuffixOf(text);
  if (!s) return;
  std::string msg = ContainerLabel(c) + ": cpu " + std::string(text) + " is " +
                    e.quantity.ExactDecimal() + " cores (\"" + std::string(s->suffix) + "\" is " +
                    std::string(s->meaning) +
                    "); no node has that many, so the pod "
                    "never schedules";
  const std::string number(text.substr(0, text.size() - s->suffix.size()));
  Quantity milli;
  QuantityError error;
  if ((s->suffix == "Mi" || s->suffix == "M") && Quantity::Parse(number + "m", &milli, &error))
    msg += "; did you mean " + number + "m (" + milli.ExactDecimal() + " cores)?";
  else
    msg += "; cpu counts cores: 2 is two cores, 500m half of one";
  out.Report(e.value, e.path, msg);
}

void Check(const ObjectContext& ctx, Reporter& out) {
  for (const PodInfo& pod : ctx.pods)
    for (const ContainerInfo& c : pod.containers)
      for (const auto* list : {&c.requests, &c.limits})
        for (const ResourceEntry& e : *list) CheckEntry(c, e, out);
}

}  // namespace

extern const Rule kQuantityCpuUnitsRule = {
    {"quantity-cpu-units", Severity::kError, "A cpu quantity written with a size suffix (500Mi)",
     "cpu counts cores, and m (milli) is its only useful suffix. The API server accepts any "
     "quantity for cpu, so `cpu: 500Mi` is stored as 524288000 cores and `cpu: 2G` as two "
     "billion: the scheduler finds no node with that much cpu and the pod stays Pending, with "
     "nothing in the manifest looking wrong at a glance.",
     "Write cores as a plain number (`cpu: 2`) or in millicores with a lower-case m "
     "(`cpu: 500m` is half a core).",
     RuleExample("quantity-cpu-units")},
    Check,
};

}  // namespace gpulint
