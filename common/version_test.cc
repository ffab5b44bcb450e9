#include "common/version.h"

#include <catch2/catch.hpp>

namespace gpulint {
namespace {

TEST_CASE("version line: the revision, uncommitted changes, or none", "[version]") {
  const std::string rev = "48ddfad1c2e3d6c3f0a1b2c3d4e5f60718293a4b";
  CHECK(VersionLine("gpulint", {"0.1.0", rev, false}) == "gpulint 0.1.0 (git " + rev + ")");
  CHECK(VersionLine("gpulint-webhook", {"0.1.0", rev, true}) ==
        "gpulint-webhook 0.1.0 (git " + rev + ", with uncommitted changes)");
  CHECK(VersionLine("gpulint", {"0.2.0", "", false}) ==
        "gpulint 0.2.0 (no git revision: built from a source tree without .git)");
}

TEST_CASE("version: this build's is project()'s and a whole commit or none", "[version]") {
  const VersionInfo& info = BuildVersion();
  CHECK(info.version == GPULINT_PROJECT_VERSION);
  CHECK((info.revision.empty() || info.revision.size() == 40));
  CHECK(info.revision.find_first_not_of("0123456789abcdef") == std::string_view::npos);
}

}  // namespace
}  // namespace gpulint
