// quantity-suspicious: quantities the API server accepts but reads otherwise
// than they look: an empty (null) value, stored as 0; white space around the
// text, which UnmarshalJSON trims; magnitudes of 10^29 and more, stored as
// written but past the 64-bit integers the scheduler and kubelet count in.
#include <string>

#include "engine/rules/rule.h"
#include "engine/rules/rule_util.h"
#include "engine/workload/quantity_field.h"
#include "engine/workload/quantity_volumes.h"
#include "generated/rule_examples.h"

namespace gpulint {
namespace {

// `gpu` says whether the entry is one of the policy's GPU resources.
void CheckEntry(const ResourceEntry& e, bool gpu, Reporter& out) {
  const Value& v = *e.value;
  if (v.is_null()) {
    out.Report(&v, e.path,
               e.name + " is empty (null); the API server stores it as 0" +
                   (gpu ? ", so this container gets no GPU" : "") +
                   " (a template value left unset?)");
  } else if (!e.valid && e.error.code == QuantityError::Code::kUnrepresentable) {
    out.Report(&v, e.path,
               e.name + ": " + v.text() +
                   " is 10^29 or more; the API server stores it, but the scheduler and kubelet "
                   "count resources in 64-bit integers (at most 9223372036854775807), so it "
                   "cannot mean what it says (gpulint does not evaluate it further)");
  } else if (e.valid && v.is_string() && TrimGoSpace(v.text()) != v.text()) {
    out.Report(&v, e.path,
               e.name + ": \"" + v.text() +
                   "\" has white space around it; the API server trims "
                   "it and reads " +
                   std::string(TrimGoSpace(v.text())));
  }
}

void Check(const ObjectContext& ctx, Reporter& out) {
  for (const PodInfo& pod : ctx.pods)
    for (const ContainerInfo& c : pod.containers)
      for (const auto* list : {&c.requests, &c.limits})
        for (const ResourceEntry& e : *list) CheckEntry(e, IsGpuResource(ctx.policy, e.name), out);
  for (const VolumeQuantity& v : VolumeQuantities(ctx.object, ctx.pods))
    CheckEntry(v.entry, false, out);
}

}  // namespace

extern const Rule kQuantitySuspiciousRule = {
    {"quantity-suspicious", Severity::kWarning,
     "A quantity the API server accepts but reads otherwise than it looks",
     "The API server decodes a quantity leniently: an empty value (`nvidia.com/gpu:` with "
     "nothing after it, often a template value left unset) is stored as 0, so the container gets "
     "no GPU; white space around the text is trimmed; and 1e30 is stored as written although "
     "the scheduler and kubelet count resources in 64-bit integers. None of these is refused, "
     "and none is what its author meant.",
     "Write the value you mean, without surrounding spaces: `nvidia.com/gpu: 1`, `memory: 16Gi`; "
     "remove a resource you do not want instead of leaving it empty.",
     RuleExample("quantity-suspicious"), /*gpus=*/nullptr,
     /*no_fix=*/nullptr, /*needs_nodes=*/false, /*not_cel=*/
     "what it reports (an empty value stored as 0, white space around a value) is undone by the "
     "API server's decoding before admission sees the object"},
    Check,
};

}  // namespace gpulint
