// quantity-invalid: resource values Kubernetes would refuse (incident 3's
// "40g", "500GB"), negative requests, hugepages that are no whole number of
// pages, claims for no storage, and VRAM annotations that do not parse; in
// container resources, claims' storage and emptyDir size limits alike.
#include <vector>

#include "engine/base/path.h"
#include "engine/base/resource_names.h"
#include "engine/quantity/certain_unit_fix.h"
#include "engine/rules/rule.h"
#include "engine/rules/rule_util.h"
#include "engine/workload/quantity_field.h"
#include "engine/workload/quantity_volumes.h"
#include "generated/rule_examples.h"

namespace gpulint {
namespace {

// ${VAR}, $VAR, {{ .Values.x }}: text meant for envsubst or a template engine.
bool LooksLikeTemplate(std::string_view text) {
  return text.find('$') != std::string_view::npos || text.find("{{") != std::string_view::npos;
}

// <number_of_gpus>, <your-value>: a placeholder a sample leaves for its reader.
bool LooksLikeBlank(std::string_view text) {
  text = TrimGoSpace(text);
  return text.size() > 2 && text.front() == '<' && text.back() == '>' &&
         text.find_first_of("<>", 1) == text.size() - 1;
}

std::string Refused(const ResourceEntry& e) {
  std::string msg = e.name + ": " +
                    (e.value->is_scalar() ? e.value->text() + " is not a valid quantity: " : "") +
                    e.error.message;
  if (!e.error.suggestion.empty()) msg += "; " + e.error.suggestion;
  if (LooksLikeTemplate(e.value->text()))
    msg += " (an unsubstituted template placeholder? lint the rendered manifest)";
  else if (LooksLikeBlank(e.value->text()))
    msg += " (a placeholder the manifest leaves to fill in: put the number there)";
  return msg;
}

// Whether the API server stores the entry's text; reports it when not, with
// the finding in *refused. Values too large to evaluate are accepted
// (quantity-suspicious warns about them).
bool CheckParsed(const ResourceEntry& e, Reporter& out, Finding** refused = nullptr) {
  if (e.valid) return true;
  if (AcceptedByApiServer(e.error)) return false;
  Finding& f = out.Report(e.value, e.path, Refused(e));
  if (refused) *refused = &f;
  return false;
}

// The repair of a byte count or VRAM annotation at `pointer` that has one
// reading (CertainUnitFix): "5MiB" -> "5Mi". `field` names it in the change.
void AttachUnitFix(const Value& value, std::string pointer, std::string field, Finding& f) {
  std::string fixed, why;
  if (!value.is_string() || !CertainUnitFix(value.text(), &fixed, &why)) return;
  f.fix = FixIt{{PatchOp{"replace", std::move(pointer), Value::String(fixed)}},
                value.text() + " -> " + fixed + " (" + why + ")",
                std::move(field)};
}

void CheckNegative(const ResourceEntry& e, Reporter& out) {
  if (e.quantity.sign() < 0)
    out.Report(e.value, e.path,
               e.name + ": " + e.quantity.Canonical() +
                   " is negative; the API server requires resource values >= 0");
}

// Kubernetes' IsHugePageResourceValueDivisible: the value (rounded up to a
// whole byte) must be a multiple of the page size named in the resource.
void CheckHugePages(const ResourceEntry& e, Reporter& out) {
  if (!IsHugePages(e.name) || e.quantity.sign() < 0) return;
  const std::string size(HugePageSize(e.name));
  const std::string refusal = "the API server refuses it (\"" + e.quantity.Canonical() +
                              " is not positive integer multiple of " + e.name + "\")";
  Quantity page;
  QuantityError error;
  if (!Quantity::Parse(size, &page, &error) || page.sign() <= 0 || !page.is_whole()) {
    out.Report(e.value, e.path,
               e.name + ": \"" + size + "\" is not a page size such as 2Mi or 1Gi; " + refusal);
    return;
  }
  const int64_t bytes = e.quantity.Value();
  const int64_t page_bytes = page.Value();
  if (bytes % page_bytes == 0) return;
  std::vector<std::string> near;
  const int64_t below = bytes / page_bytes * page_bytes;
  if (below > 0) near.push_back(Quantity::FromInt(below, QuantityFormat::kBinarySI).Canonical());
  near.push_back(Quantity::FromInt(below + page_bytes, QuantityFormat::kBinarySI).Canonical());
  std::string msg = e.name + ": " + DescribeBytes(e.quantity) + " is not a whole number of " +
                    size + " pages; " + refusal + "; did you mean " + near[0];
  if (near.size() > 1) msg += " or " + near[1];
  out.Report(e.value, e.path, msg + "?");
}

// Returns the finding when the API server refuses the text.
Finding* CheckEntry(const ResourceEntry& e, Reporter& out) {
  Finding* refused = nullptr;
  if (!CheckParsed(e, out, &refused)) return refused;
  CheckNegative(e, out);
  CheckHugePages(e, out);
  return nullptr;
}

// A claim's storage request must be positive (ValidatePersistentVolumeClaimSpec);
// an emptyDir's sizeLimit and a storage limit must not be negative.
void CheckVolume(const VolumeQuantity& v, Reporter& out) {
  const ResourceEntry& e = v.entry;
  if (!CheckParsed(e, out)) return;
  if (v.kind == VolumeQuantity::Kind::kClaimRequest && e.quantity.sign() <= 0) {
    out.Report(e.value, e.path,
               e.name + ": " + e.quantity.Canonical() +
                   " must be greater than zero; the API server refuses a claim for no storage");
    return;
  }
  CheckNegative(e, out);
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
    Finding& f = out.Report(&v, AppendKey(MetadataPath(pod) + ".annotations", key), msg);
    if (out.fixes())
      AttachUnitFix(v, pod.template_pointer + "/metadata/annotations/" + EscapePointerSegment(key),
                    key, f);
  }
}

void Check(const ObjectContext& ctx, Reporter& out) {
  for (const PodInfo& pod : ctx.pods) {
    CheckVramAnnotations(pod, ctx.policy, out);
    for (const ContainerInfo& c : pod.containers) {
      for (auto [list, entries] :
           {std::pair{"requests", &c.requests}, std::pair{"limits", &c.limits}}) {
        for (const ResourceEntry& e : *entries) {
          Finding* refused = CheckEntry(e, out);
          if (refused && out.fixes() && IsByteResource(e.name, ctx.policy))
            AttachUnitFix(*e.value,
                          c.pointer + "/resources/" + list + "/" + EscapePointerSegment(e.name),
                          e.name, *refused);
        }
      }
    }
  }
  for (const VolumeQuantity& v : VolumeQuantities(ctx.object, ctx.pods)) CheckVolume(v, out);
}

}  // namespace

extern const Rule kQuantityInvalidRule = {
    {"quantity-invalid", Severity::kError, "A resource quantity that Kubernetes refuses",
     "Kubernetes reads quantities with a strict grammar: 500GB, 40g, 1K or 5MiB are rejected by "
     "the API server (or, worse, fixed by hand under pressure into the wrong unit system: 500Gi "
     "is 536.9 GB, not 500 GB). The same grammar holds wherever the API server reads a size: a "
     "PersistentVolumeClaim's or volumeClaimTemplate's `storage: 500GB` and an emptyDir's "
     "`sizeLimit: 16GB` are refused alike. Negative values are refused, a claim for no storage "
     "too, and hugepages must be a whole number of pages (`hugepages-2Mi: 3Mi` is not).",
     "Use a Kubernetes suffix: decimal k M G T P E (powers of 1000) or binary Ki Mi Gi Ti Pi Ei "
     "(powers of 1024), e.g. 500G or 465Gi. `gpulint quantity VALUE` shows the exact value.",
     RuleExample("quantity-invalid"), nullptr,
     "it can be read more than one way, or not at all; 'gpulint quantity VALUE' shows the "
     "candidates",
     /*needs_nodes=*/false,
     /*not_cel=*/
     "for the kinds Kubernetes knows, the API server refuses such a quantity itself, when it "
     "decodes the object (500GB) or validates it (a negative value, hugepages that are no whole "
     "number of pages), before admission; for custom resources and the VRAM annotation, its "
     "messages explain each refusal with gpulint's own quantity diagnosis (did you mean 500G or "
     "500Gi, with both sizes), which the API server's CEL quantity library cannot give"},
    Check,
};

}  // namespace gpulint
