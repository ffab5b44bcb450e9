// The version both binaries print (`gpulint --version`, `gpulint-webhook
// --version`, SARIF's tool.driver.version): project()'s, and the git commit
// they were built from, written at each build by cmake/version.cmake.
#ifndef GPULINT_COMMON_VERSION_H_
#define GPULINT_COMMON_VERSION_H_

#include <string>
#include <string_view>

namespace gpulint {

struct VersionInfo {
  std::string_view version;   // "0.1.0"
  std::string_view revision;  // the commit, 40 hex digits; empty when built without git
  bool modified;              // tracked files differed from that commit
};

// This build's (the generated version_info.cc).
const VersionInfo& BuildVersion();

// What --version prints, one line:
//   gpulint 0.1.0 (git 48ddfad1c2e3...)
//   gpulint 0.1.0 (git 48ddfad1c2e3..., with uncommitted changes)
//   gpulint 0.1.0 (no git revision: built from a source tree without .git)
std::string VersionLine(std::string_view program, const VersionInfo& info = BuildVersion());

}  // namespace gpulint

#endif  // GPULINT_COMMON_VERSION_H_
