// gpulint's stateless rules as Kubernetes ValidatingAdmissionPolicies: the
// rules that need no node inventory and no other object, in CEL, generated
// from a policy (its GPU resources, CUDA images, workload table, severities,
// disabled rules, exempt namespaces and ignore annotations), so that an API
// server can enforce them with no webhook. docs/export.md says what is
// exported, what cannot be and why, and how to roll it out.
#ifndef GPULINT_ENGINE_VAP_VAP_H_
#define GPULINT_ENGINE_VAP_VAP_H_

#include <string>
#include <string_view>
#include <vector>

#include "engine/base/verdict.h"
#include "engine/policy/policy.h"

namespace gpulint {

struct VapOptions {
  // The webhook's modes (engine/base/verdict.h), as the bindings'
  // validationActions: audit: [Audit] (the API server's audit log only);
  // warn: [Warn]; deny: error findings [Deny] and warnings [Warn].
  Enforcement mode = Enforcement::kAudit;
  // The objects' names: NAME-errors and NAME-warnings, policy and binding.
  std::string name = "gpulint";
  // How the policy is named in the output's comments ("built-in", a file).
  std::string source;
};

// One rule's place in the export: `why` says why it is left out ("" when it
// is exported).
struct VapRule {
  std::string rule;
  std::string why;
  // Whether the rule can be exported at all (RuleInfo::not_cel is null): it
  // may still be left out by this policy.
  bool cel = false;
  // For a rule with CEL: the severities its findings take under the policy,
  // the rule's own first (as errors they go to NAME-errors, else to
  // NAME-warnings).
  std::vector<Severity> severities;
};
// Every rule of the registry that judges objects, as `policy` exports it: the rules it disables
// ("disabled by the policy"), those that cannot be exported at all, and those
// this policy keeps out (node classes).
std::vector<VapRule> VapRules(const Policy& policy);

// The Kubernetes version the exported policies need: CEL's list library
// (flatten, sort) is offered to new expressions from 1.35 on (an API server
// compiles them for the release before its own); 1.34 refuses them
// ("undeclared reference to 'flatten'").
inline constexpr std::string_view kVapMinimumKubernetes = "1.35";

// The policies and bindings as one YAML stream (up to four documents: a class
// with no rule to hold gets none). False, with *error, when the policy's
// workload table has an entry CEL cannot follow.
bool ExportVap(const Policy& policy, const VapOptions& options, std::string* out,
               std::string* error);

}  // namespace gpulint

#endif  // GPULINT_ENGINE_VAP_VAP_H_
