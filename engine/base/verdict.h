// The modes a policy is enforced in, and what each does with a finding set
// and a patch: the one table the webhook answers by (webhook/server/
// admission.cc) and `gpulint audit` reports a workload's next pod with.
#ifndef GPULINT_ENGINE_BASE_VERDICT_H_
#define GPULINT_ENGINE_BASE_VERDICT_H_

#include <string_view>

namespace gpulint {

//  - kDeny: errors refuse the object; the patch is applied;
//  - kWarn: nothing is refused; each would-be denial, other finding and the
//    patch that would be applied is a warning kubectl prints;
//  - kAudit: nothing is refused and nothing shown to the client; what would
//    be refused or patched goes to the log and the API server's audit log.
enum class Enforcement { kAudit, kWarn, kDeny };
const char* EnforcementName(Enforcement m);  // "audit", "warn", "deny"
bool ParseEnforcement(std::string_view text, Enforcement* mode);

// What the client sees: the object refused, admitted with warnings, or
// admitted saying nothing.
enum class Verdict { kAllow, kWarn, kDeny };
const char* VerdictName(Verdict v);  // "allow", "warn", "deny"

// The verdict in `mode` for an object with errors, other findings (warnings,
// infos) and a patch that changes it.
Verdict VerdictOf(Enforcement mode, bool errors, bool others, bool changes);

}  // namespace gpulint

#endif  // GPULINT_ENGINE_BASE_VERDICT_H_
