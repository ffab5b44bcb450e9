// quantity-invalid: resource values Kubernetes would refuse (incident 3's
// "40g", "500GB"), negative requests, and VRAM annotations that do not parse.
#include "engine/path.h"
#include "engine/rule.h"
#include "engine/rules/rule_util.h"
#include "generated/rule_examples.h"

namespace gpulint {
namespace {

// ${VAR}, $VAR, {{ .Values.x }}: text meant for envsubst or a template engine.
bool LooksLikePlaceholder(std::string_view text) {
  return text.find('$') != std::string_view::npos || text.find("{{") != std::string_view::npos;
}

void CheckEntry(const ResourceEntry& e, Reporter& out) {
  if (!e.valid) {
    std::string msg = e.name + ": " +
                      (e.value->is_scalar() ? e.value->text() + " is not a valid quantity: " : "") +
                      e.error.message;
    if (!e.error.suggestion.empty()) msg += "; " + e.error.suggestion;
    if (LooksLikePlaceholder(e.value->text()))
      msg += " (an unsubstituted template placeholder? lint the rendered manifest)";
    out.Report(e.value, e.path, msg);
  } else if (e.quantity.sign() < 0) {
    out.Report(e.value, e.path,
               e.name + ": " + e.quantity.Canonical() +
                   " is negative; the API server requires resource values >= 0");
  }
}

void CheckVramAnnotations(const PodInfo& pod, const Policy& policy, Reporter& out) {
  const Value* annotations = pod.metadata ? pod.metadata->Find("annotations") : nullptr;
  if (!annotations || !annotations->is_mapping()) return;
  const std::string& prefix = policy.vram_annotation;
  for (const auto& [key, v] : annotations->members()) {
    if (key != prefix && key.rfind(prefix + ".", 0) != 0) continue;
    Quantity q;
    QuantityError error;
    if (v.is_string() && Quantity::Parse(v.text(), &q, &error) && q.sign() >= 0) continue;
    std::string msg = "annotation " + key + ": ";
    if (!v.is_string()) {
      msg += "must be a string such as \"12Gi\"";
    } else if (error.code == QuantityError::Code::kNone) {
      msg += q.Canonical() + " is negative";
    } else {
      msg += error.message;
      if (!error.suggestion.empty()) msg += "; " + error.suggestion;
    }
    out.Report(&v, AppendKey(MetadataPath(pod) + ".annotations", key), msg);
  }
}

void Check(const ObjectContext& ctx, Reporter& out) {
  for (const PodInfo& pod : ctx.pods) {
    CheckVramAnnotations(pod, ctx.policy, out);
    for (const ContainerInfo& c : pod.containers) {
      for (const ResourceEntry& e : c.requests) CheckEntry(e, out);
      for (const ResourceEntry& e : c.limits) CheckEntry(e, out);
    }
  }
}

}  // namespace

extern const Rule kQuantityInvalidRule = {
    {"quantity-invalid", Severity::kError, "A resource quantity that Kubernetes refuses",
     "Kubernetes reads quantities with a strict grammar: 500GB, 40g, 1K or 5MiB are rejected by "
     "the API server (or, worse, fixed by hand under pressure into the wrong unit system: 500Gi "
     "is 536.9 GB, not 500 GB). Negative requests are refused too.",
     "Use a Kubernetes suffix: decimal k M G T P E (powers of 1000) or binary Ki Mi Gi Ti Pi Ei "
     "(powers of 1024), e.g. 500G or 465Gi. `gpulint quantity VALUE` shows the exact value.",
     RuleExample("quantity-invalid")},
    Check,
};

}  // namespace gpulint
