#include "engine/base/finding.h"

#include <catch2/catch.hpp>

namespace gpulint {
namespace {

TEST_CASE("Error::ToString leaves out what is unknown", "[finding]") {
  CHECK(Error{"a.yaml", {3, 7}, "bad"}.ToString() == "a.yaml:3:7: bad");
  CHECK(Error{"a.yaml", {3, 0}, "bad"}.ToString() == "a.yaml:3: bad");
  CHECK(Error{"a.yaml", {}, "bad"}.ToString() == "a.yaml: bad");
  CHECK(Error{"", {3, 7}, "bad"}.ToString() == "3:7: bad");
  CHECK(Error{"", {}, "bad"}.ToString() == "bad");
}

TEST_CASE("severities by name", "[finding]") {
  for (Severity s : {Severity::kInfo, Severity::kWarning, Severity::kError}) {
    Severity parsed = s == Severity::kInfo ? Severity::kError : Severity::kInfo;
    REQUIRE(ParseSeverity(SeverityName(s), &parsed));
    CHECK(parsed == s);
  }
  CHECK(std::string(SeverityName(Severity::kWarning)) == "warning");
  Severity s = Severity::kInfo;
  CHECK_FALSE(ParseSeverity("Warning", &s));
  CHECK_FALSE(ParseSeverity("warn", &s));
  CHECK_FALSE(ParseSeverity("", &s));
  CHECK(s == Severity::kInfo);
}

}  // namespace
}  // namespace gpulint
