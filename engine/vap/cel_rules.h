// The rules that a ValidatingAdmissionPolicy can hold, each as a CEL
// expression giving its findings' text ('' when it has none). Why the others
// cannot be held is in their declaration (RuleInfo::not_cel). Internal to
// engine/vap.
#ifndef GPULINT_ENGINE_VAP_CEL_RULES_H_
#define GPULINT_ENGINE_VAP_CEL_RULES_H_

#include <string>
#include <string_view>
#include <vector>

#include "engine/base/finding.h"
#include "engine/policy/policy.h"

namespace gpulint::cel {

// Whether `rule` has CEL here. A rule declares whether it is exported
// (RuleInfo::not_cel); vap_test holds that declaration to this. *others, when
// given, is set to the severities its CEL reports at besides the rule's own.
bool HasCel(std::string_view rule, std::vector<Severity>* others = nullptr);
// The rules with CEL here, in catalogue order.
std::vector<std::string_view> RulesWithCel();

// A rule's findings of one severity class, in CEL: the findings as
// `gpulint-webhook` words a denial ("rule (path): message", joined by "; "),
// '' when there are none. It reads the variables of cel::PodVariables.
struct RuleExpression {
  std::string rule;
  std::string expression;
};
// The enabled, exported rules of `policy` that can report at error severity
// (`errors`), or at warning and info severity (!`errors`), in catalogue order.
// *needs_claims is set when one reads PersistentVolumeClaims.
std::vector<RuleExpression> RuleExpressions(const Policy& policy, bool errors, bool* needs_claims);

// Why an enabled rule of `policy` that is otherwise exported is not, for this
// policy ("" when it is): the rules about GPU visibility judge where a pod
// can run, which the policy's node classes answer when it has some.
std::string_view PolicyExcludes(const Policy& policy, std::string_view rule);

}  // namespace gpulint::cel

#endif  // GPULINT_ENGINE_VAP_CEL_RULES_H_
