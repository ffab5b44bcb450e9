#include "engine/vap/cel_rules.h"

#include "engine/rules/rule.h"
#include "engine/vap/cel_quantity.h"
#include "engine/vap/cel_rule_builder.h"
#include "engine/vap/cel_text.h"

namespace gpulint::cel {
namespace {

constexpr std::string_view kNeedsNodes =
    "it judges a pod against the nodes it can run on, which only the node inventory (the "
    "webhook's node watch, gpulint check --nodes) knows";

const std::vector<RuleExport> kExports = {
    {"parse-error",
     "a document that does not parse is refused by the API server as it decodes the request, "
     "before any admission control"},
    {"quantity-invalid",
     "for the kinds Kubernetes knows, the API server refuses such a quantity itself, when it "
     "decodes the object (500GB) or validates it (a negative value, hugepages that are no whole "
     "number of pages), before admission; for custom resources and the VRAM annotation, its "
     "messages explain each refusal with gpulint's own quantity diagnosis (did you mean 500G or "
     "500Gi, with both sizes), which the API server's CEL quantity library cannot give"},
    {"quantity-milli-memory", ""},
    {"quantity-mixed-units",
     "it judges the unit system a size is written in, and the API server hands admission each "
     "quantity of a kind it knows in canonical form: 1000 becomes 1k, and the unit system as "
     "written is gone"},
    {"quantity-cpu-units", ""},
    {"quantity-suspicious",
     "what it reports (an empty value stored as 0, white space around a value) is undone by the "
     "API server's decoding before admission sees the object"},
    {"limit-below-request",
     "for the kinds Kubernetes knows, the API server's validation refuses a request above its "
     "limit before admission; for custom resources, its messages quote quantities in Kubernetes' "
     "canonical form (2048Mi as 2Gi), which CEL cannot print"},
    {"gpu-limit-missing", ""},
    {"gpu-request-limit-mismatch", ""},
    {"gpu-fractional", ""},
    {"memory-limit-missing", ""},
    {"limits-missing-on-gpu-node", ""},
    {"dra-claim-unresolved",
     "it needs other objects: the ResourceClaims and ResourceClaimTemplates a pod's claims name, "
     "which admission of the pod does not see"},
    {"dra-cannot-tell", kNeedsNodes},
    {"exceeds-allocatable", kNeedsNodes},
    {"unknown-resource", kNeedsNodes},
    {"no-matching-node", kNeedsNodes},
    {"vram-exceeds-gpu", kNeedsNodes},
    {"shared-gpu-multiple-replicas", kNeedsNodes},
    {"gpu-visibility-bypass", ""},
    {"removed-api-version",
     "an API version Kubernetes no longer serves is refused by the API server (404) before "
     "admission"},
    {"removed-annotation",
     "it reads the annotations of every object, whatever its kind: a policy matching every "
     "request in the cluster for one warning"},
    {"invalid-ignore",
     "its did-you-mean measures the edit distance from a misspelt name to every rule's, which "
     "CEL cannot"},
    {"workload-not-checked",
     "it looks for containers at any depth of an object, and CEL has no recursion"},
};
}  // namespace

std::string Builder::Find(const std::string& sev, const std::string& path, const std::string& msg) {
  return "{'s': dyn(" + sev + "), 'p': dyn(" + path + "), 'm': dyn(" + msg + ")}";
}

std::string Label(const std::string& c) { return c + ".role + ' \"' + " + c + ".name + '\"'"; }

std::string PodOf(const std::string& c) { return "variables.pods[" + c + ".pod]"; }

std::string ContainerOf(const std::string& e) { return "variables.containers[" + e + ".c]"; }

std::string Judged(const std::string& e, const std::string& prefilter, const std::string& f,
                   const std::string& keep, Names* n) {
  return "variables.entries.filter(" + e + ", " + prefilter + ").map(" + e + ", " +
         Entry(e + ".name", e + ".v", e + ".path", e + ".c >= 0",
               "'c': dyn(" + e + ".c), 'list': dyn(" + e + ".list), ", n) +
         ").filter(" + f + ", " + keep + ")";
}

namespace {

// A rule's export: the CEL of its findings, and the severities it reports at
// other than its own (Reporter::Report with a severity).
struct Exported {
  std::string_view rule;
  std::string (*build)(const Builder&);
  std::vector<Severity> others;
  bool reads_claims = false;
};

const std::vector<Exported> kBuilders = {
    {"quantity-milli-memory", QuantityMilliMemory, {}, true},
    {"quantity-cpu-units", QuantityCpuUnits, {}},
    {"gpu-limit-missing", GpuLimitMissing, {Severity::kWarning}},
    {"gpu-request-limit-mismatch", GpuRequestLimitMismatch, {}},
    {"gpu-fractional", GpuFractional, {}},
    {"memory-limit-missing", MemoryLimitMissing, {Severity::kInfo}},
    {"limits-missing-on-gpu-node", LimitsMissingOnGpuNode, {}},
    {"gpu-visibility-bypass", GpuVisibilityBypass, {Severity::kWarning}},
};

}  // namespace

const std::vector<RuleExport>& RuleExports() { return kExports; }

std::string_view PolicyExcludes(const Policy& policy, std::string_view rule) {
  if (!policy.node_classes.empty() &&
      (rule == "gpu-limit-missing" || rule == "gpu-visibility-bypass" ||
       rule == "limits-missing-on-gpu-node"))
    return "the policy has node classes: where a pod can run, which this rule judges, then "
           "depends on them, as it does on a node inventory";
  return {};
}

std::vector<RuleExpression> RuleExpressions(const Policy& policy, bool errors, bool* needs_claims) {
  std::vector<RuleExpression> out;
  Names names;
  for (const Rule* rule : AllRules()) {
    const Exported* exported = nullptr;
    for (const Exported& e : kBuilders)
      if (e.rule == rule->info.name) exported = &e;
    if (!exported || !policy.RuleEnabled(rule->info.name) ||
        !PolicyExcludes(policy, rule->info.name).empty())
      continue;
    bool reports = false;
    std::vector<Severity> severities = exported->others;
    severities.push_back(rule->info.severity);
    for (Severity s : severities)
      reports =
          reports || ((policy.RuleSeverity(rule->info.name, s) == Severity::kError) == errors);
    if (!reports) continue;
    Builder b(policy, rule->info, errors, &names);
    out.push_back({rule->info.name, b.Wrap(exported->build(b))});
    if (exported->reads_claims) *needs_claims = true;
  }
  return out;
}

}  // namespace gpulint::cel