#include "lint/input/policy_discovery.h"

#include <system_error>

namespace gpulint {

namespace fs = std::filesystem;

fs::path NearestPolicyFile(const fs::path& dir) {
  std::error_code ec;
  for (fs::path at = dir.lexically_normal();; at = at.parent_path()) {
    fs::path candidate = at / kPolicyFileName;
    if (fs::exists(candidate, ec)) return candidate;
    if (fs::exists(at / ".git", ec) || at == at.parent_path() || at.empty()) return {};
  }
}

std::string ShownPath(const fs::path& path, const fs::path& cwd) {
  fs::path relative = path.lexically_relative(cwd);
  std::string text = relative.generic_string();
  if (text.empty() || text.rfind("..", 0) == 0) return path.string();
  return text;
}

}  // namespace gpulint
