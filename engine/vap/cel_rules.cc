#include "engine/vap/cel_rules.h"

#include "engine/rules/rule.h"
#include "engine/vap/cel_quantity.h"
#include "engine/vap/cel_rule_builder.h"
#include "engine/vap/cel_text.h"

namespace gpulint::cel {

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

std::vector<std::string_view> RulesWithCel() {
  std::vector<std::string_view> out;
  for (const Exported& e : kBuilders) out.push_back(e.rule);
  return out;
}

bool HasCel(std::string_view rule, std::vector<Severity>* others) {
  for (const Exported& e : kBuilders) {
    if (e.rule != rule) continue;
    if (others) *others = e.others;
    return true;
  }
  return false;
}

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