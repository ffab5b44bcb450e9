#include "engine/base/verdict.h"

namespace gpulint {

const char* EnforcementName(Enforcement m) {
  switch (m) {
    case Enforcement::kAudit:
      return "audit";
    case Enforcement::kWarn:
      return "warn";
    case Enforcement::kDeny:
      return "deny";
  }
  return "deny";
}

bool ParseEnforcement(std::string_view text, Enforcement* mode) {
  for (Enforcement m : {Enforcement::kAudit, Enforcement::kWarn, Enforcement::kDeny}) {
    if (text == EnforcementName(m)) {
      *mode = m;
      return true;
    }
  }
  return false;
}

const char* VerdictName(Verdict v) {
  switch (v) {
    case Verdict::kAllow:
      return "allow";
    case Verdict::kWarn:
      return "warn";
    case Verdict::kDeny:
      return "deny";
  }
  return "allow";
}

Verdict VerdictOf(Enforcement mode, bool errors, bool others, bool changes) {
  switch (mode) {
    case Enforcement::kDeny:
      // The patch is applied, not shown: only findings reach the client.
      return errors ? Verdict::kDeny : others ? Verdict::kWarn : Verdict::kAllow;
    case Enforcement::kWarn:
      return errors || others || changes ? Verdict::kWarn : Verdict::kAllow;
    case Enforcement::kAudit:
      return Verdict::kAllow;
  }
  return Verdict::kAllow;
}

}  // namespace gpulint
