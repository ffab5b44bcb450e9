#include "common/version.h"

namespace gpulint {

std::string VersionLine(std::string_view program, const VersionInfo& info) {
  std::string line = std::string(program) + " " + std::string(info.version) + " (";
  if (info.revision.empty()) return line + "no git revision: built from a source tree without .git)";
  line += "git " + std::string(info.revision);
  if (info.modified) line += ", with uncommitted changes";
  return line + ")";
}

}  // namespace gpulint
