#include "engine/vap/vap.h"

#include <algorithm>

#include "engine/rules/rule.h"
#include "engine/vap/cel_pods.h"
#include "engine/vap/cel_rules.h"
#include "engine/vap/cel_text.h"

namespace gpulint {
namespace {

// Longer messages are dropped by the API server (5 KiB, in bytes): a rule's
// findings past this many characters are counted, not shown, as the
// webhook's denial does ("; and 3 more").
constexpr size_t kMessageChars = 4000;

// A YAML single-quoted scalar.
std::string Quoted(std::string_view text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

// `text` as a YAML literal block scalar whose lines are indented by `indent`.
std::string Block(std::string_view text, int indent) {
  std::string pad(static_cast<size_t>(indent), ' '), out = "|-\n";
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    out += pad + std::string(text.substr(start, end - start)) + "\n";
    start = end + 1;
  }
  return out;
}

std::string VariableName(std::string_view rule) {
  std::string out = "r_";
  for (char c : rule) out += c == '-' ? '_' : c;
  return out;
}

std::string Comments(std::string_view text) {
  std::string out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    out += "# " + std::string(text.substr(start, end - start)) + "\n";
    start = end + 1;
  }
  return out;
}

// The message of a failed validation: the findings, or as many as fit and
// how many more.
std::string MessageExpression(const std::string& var, std::string_view rule) {
  std::string limit = std::to_string(kMessageChars);
  std::string sep = cel::Str("; " + std::string(rule));
  return cel::Fill(
      "size($v) <= $n ? $v : $v.substring(0, $n).lastIndexOf($sep) > 0 ? $v.substring(0, "
      "$v.substring(0, $n).lastIndexOf($sep)) + '; and ' + string($v.substring($v.substring(0, "
      "$n).lastIndexOf($sep)).split($sep).size() - 1) + ' more' : $v.substring(0, $n) + ' ...'",
      {{"v", var}, {"n", limit}, {"sep", sep}});
}

struct Class {
  bool errors;
  const char* suffix;
};

std::vector<std::string> ApiGroups(const Policy& policy) {
  std::vector<std::string> groups;
  for (const WorkloadKind& w : policy.workloads) {
    if (w.group == "*") return {"*"};
    if (std::find(groups.begin(), groups.end(), w.group) == groups.end()) groups.push_back(w.group);
  }
  // PersistentVolumeClaims, for the storage they ask for.
  if (std::find(groups.begin(), groups.end(), "") == groups.end())
    groups.insert(groups.begin(), "");
  return groups;
}

std::string FlowList(const std::vector<std::string>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + Quoted(items[i]);
  return out + "]";
}

std::string PolicyDocument(const Policy& policy, const VapOptions& options, const Class& cls,
                           const std::vector<cel::Variable>& pod_variables,
                           const std::string& kinds, const std::vector<cel::RuleExpression>& rules,
                           bool claims) {
  std::string name = options.name + "-" + cls.suffix;
  std::vector<std::string> rule_names;
  for (const cel::RuleExpression& r : rules) rule_names.push_back(r.rule);
  std::string listed;
  for (const std::string& r : rule_names) listed += (listed.empty() ? "" : ",") + r;
  std::string out =
      "apiVersion: admissionregistration.k8s.io/v1\n"
      "kind: ValidatingAdmissionPolicy\n"
      "metadata:\n"
      "  name: " +
      name +
      "\n"
      "  labels: {app.kubernetes.io/managed-by: gpulint}\n"
      "  annotations:\n"
      "    gpulint.io/policy: " +
      Quoted(policy.name) +
      "\n"
      "    gpulint.io/rules: " +
      Quoted(listed) +
      "\n"
      "spec:\n"
      "  failurePolicy: " +
      (options.mode == Enforcement::kDeny ? "Fail" : "Ignore") +
      "\n"
      "  matchConstraints:\n";
  if (!policy.exempt_namespaces.empty())
    out +=
        "    namespaceSelector:\n"
        "      matchExpressions:\n"
        "      - {key: kubernetes.io/metadata.name, operator: NotIn, values: " +
        FlowList(policy.exempt_namespaces) + "}\n";
  out +=
      "    resourceRules:\n"
      "    - {apiGroups: " +
      FlowList(ApiGroups(policy)) +
      ", apiVersions: ['*'], operations: [CREATE, UPDATE], resources: ['*']}\n"
      "    # A pod's spec cannot change after it is created: an UPDATE (a label, a\n"
      "    # finalizer) of a pod admitted before this policy must not be refused.\n"
      "    excludeResourceRules:\n"
      "    - {apiGroups: [''], apiVersions: ['*'], operations: [UPDATE], resources: [pods]}\n"
      "  matchConditions:\n"
      "  - name: gpulint-workload\n"
      "    expression: " +
      Block(kinds + (claims ? " ||\n(object.kind == 'PersistentVolumeClaim' && "
                              "object.apiVersion == 'v1')"
                            : ""),
            6) +
      "  - name: not-being-deleted\n"
      "    expression: '!has(object.metadata.deletionTimestamp)'\n"
      "  variables:\n";
  for (const cel::Variable& v : pod_variables)
    out += "  - name: " + v.name + "\n    expression: " + Block(v.expression, 6);
  for (const cel::RuleExpression& r : rules)
    out += "  - name: " + VariableName(r.rule) + "\n    expression: " + Block(r.expression, 6);
  out += "  validations:\n";
  for (const cel::RuleExpression& r : rules) {
    std::string var = "variables." + VariableName(r.rule);
    out += "  - expression: " + Quoted(var + " == ''") + "\n" +
           "    messageExpression: " + Block(MessageExpression(var, r.rule), 6) + "    message: " +
           Quoted(r.rule +
                  ": its findings are too long for a message; run gpulint check on the "
                  "object") +
           "\n    reason: Forbidden\n";
  }
  return out;
}

std::string BindingDocument(const VapOptions& options, const Class& cls) {
  std::string name = options.name + "-" + cls.suffix;
  std::string action = options.mode == Enforcement::kAudit                 ? "Audit"
                       : options.mode == Enforcement::kWarn || !cls.errors ? "Warn"
                                                                       : "Deny";
  return "apiVersion: admissionregistration.k8s.io/v1\n"
         "kind: ValidatingAdmissionPolicyBinding\n"
         "metadata:\n"
         "  name: " +
         name +
         "\n"
         "  labels: {app.kubernetes.io/managed-by: gpulint}\n"
         "spec:\n"
         "  policyName: " +
         name +
         "\n"
         "  validationActions: [" +
         action + "]\n";
}

}  // namespace

std::vector<VapRule> VapRules(const Policy& policy) {
  std::vector<VapRule> out;
  // The rules that judge objects: a node's rules judge no admission request.
  for (const Rule* rule : AllRules()) {
    const RuleInfo& info = rule->info;
    if (info.scope != RuleScope::kObject) continue;
    VapRule r{info.name, info.not_cel ? info.not_cel : "", info.not_cel == nullptr, {}};
    std::vector<Severity> others;
    if (cel::HasCel(info.name, &others)) {
      r.severities.push_back(policy.RuleSeverity(info.name, info.severity));
      for (Severity s : others) {
        Severity as = policy.RuleSeverity(info.name, s);
        if (std::find(r.severities.begin(), r.severities.end(), as) == r.severities.end())
          r.severities.push_back(as);
      }
    }
    if (r.why.empty() && !policy.RuleEnabled(info.name)) r.why = "disabled by the policy";
    if (r.why.empty()) r.why = cel::PolicyExcludes(policy, info.name);
    out.push_back(std::move(r));
  }
  return out;
}

bool ExportVap(const Policy& policy, const VapOptions& options, std::string* out,
               std::string* error) {
  std::vector<cel::Variable> pod_variables;
  std::string kinds;
  if (!cel::PodVariables(policy, &pod_variables, &kinds, error)) return false;
  std::string exported, left_out;
  for (const VapRule& r : VapRules(policy)) {
    if (r.why.empty())
      exported += (exported.empty() ? "" : ", ") + r.rule;
    else
      left_out += "  " + r.rule + ": " + r.why + "\n";
  }
  out->clear();
  *out += Comments(
      "ValidatingAdmissionPolicies made by `gpulint export vap` from the policy " +
      (options.source.empty() ? std::string() : options.source + " ") + "(\"" + policy.name +
      "\"), mode " + EnforcementName(options.mode) +
      ". Regenerate them rather than edit them.\n"
      "They need Kubernetes " +
      std::string(kVapMinimumKubernetes) +
      " or newer (admissionregistration.k8s.io/v1; CEL two-variable comprehensions, lists' "
      "flatten and sort).\n"
      "Exported: " +
      exported +
      ".\n"
      "Not exported (docs/export.md):\n" +
      left_out);
  bool first = true;
  for (const Class& cls : {Class{true, "errors"}, Class{false, "warnings"}}) {
    bool claims = false;
    std::vector<cel::RuleExpression> rules = cel::RuleExpressions(policy, cls.errors, &claims);
    if (rules.empty()) continue;
    if (!first) *out += "---\n";
    first = false;
    *out += PolicyDocument(policy, options, cls, pod_variables, kinds, rules, claims);
    *out += "---\n" + BindingDocument(options, cls);
  }
  return true;
}

}  // namespace gpulint
