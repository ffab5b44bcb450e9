#include "lint/input/policy_discovery.h"

#include <system_error>

namespace gpulint {

namespace fs = std::filesystem;

namespace {

bool HoldsGit(const fs::path& dir) {
  std::error_code ec;
  return fs::exists(dir / ".git", ec);
}

bool IsTop(const fs::path& dir) { return dir == dir.parent_path() || dir.empty(); }

}  // namespace

fs::path NearestPolicyFile(const fs::path& dir) {
  std::error_code ec;
  for (fs::path at = dir.lexically_normal();; at = at.parent_path()) {
    fs::path candidate = at / kPolicyFileName;
    if (fs::exists(candidate, ec)) return candidate;
    if (HoldsGit(at) || IsTop(at)) return {};
  }
}

fs::path RepositoryRoot(const fs::path& dir) {
  for (fs::path at = dir.lexically_normal();; at = at.parent_path()) {
    if (HoldsGit(at)) return at;
    if (IsTop(at)) return {};
  }
}

std::string ShownPath(const fs::path& path, const fs::path& cwd) {
  fs::path relative = path.lexically_relative(cwd);
  std::string text = relative.generic_string();
  if (text.empty() || text.rfind("..", 0) == 0) return path.string();
  return text;
}

}  // namespace gpulint
