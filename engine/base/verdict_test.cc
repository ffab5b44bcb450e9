// The one table of modes and verdicts (engine/base/verdict.h).
#include "engine/base/verdict.h"

#include <catch2/catch.hpp>
#include <string>

namespace gpulint {
namespace {

// "deny warn audit" verdicts for one case.
std::string Row(bool errors, bool others, bool changes) {
  std::string out;
  for (Enforcement m : {Enforcement::kDeny, Enforcement::kWarn, Enforcement::kAudit})
    out += std::string(out.empty() ? "" : " ") + VerdictName(VerdictOf(m, errors, others, changes));
  return out;
}

TEST_CASE("each mode's verdict for errors, other findings and a patch", "[engine][verdict]") {
  CHECK(Row(false, false, false) == "allow allow allow");
  CHECK(Row(false, false, true) == "allow warn allow");  // deny mode applies the patch silently
  CHECK(Row(false, true, false) == "warn warn allow");
  CHECK(Row(true, false, false) == "deny warn allow");
  CHECK(Row(true, true, true) == "deny warn allow");
}

TEST_CASE("modes are named and parsed as the webhook's URLs and flags spell them",
          "[engine][verdict]") {
  for (Enforcement m : {Enforcement::kAudit, Enforcement::kWarn, Enforcement::kDeny}) {
    Enforcement parsed = m == Enforcement::kDeny ? Enforcement::kAudit : Enforcement::kDeny;
    REQUIRE(ParseEnforcement(EnforcementName(m), &parsed));
    CHECK(parsed == m);
  }
  Enforcement unchanged = Enforcement::kWarn;
  CHECK_FALSE(ParseEnforcement("Deny", &unchanged));
  CHECK_FALSE(ParseEnforcement("", &unchanged));
  CHECK(unchanged == Enforcement::kWarn);
}

}  // namespace
}  // namespace gpulint
