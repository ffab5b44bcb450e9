// Where a run's policy comes from when --policy is not given: a .gpulint.yaml
// kept with the manifests, so a repository's policy applies without every
// caller passing it.
#ifndef GPULINT_LINT_INPUT_POLICY_DISCOVERY_H_
#define GPULINT_LINT_INPUT_POLICY_DISCOVERY_H_

#include <filesystem>
#include <string>

namespace gpulint {

inline constexpr char kPolicyFileName[] = ".gpulint.yaml";
inline constexpr char kPolicyEnvVar[] = "GPULINT_POLICY";
// How the compiled-in policy is named in summaries and reports.
inline constexpr char kBuiltInPolicyName[] = "built-in";

// The nearest .gpulint.yaml in `dir` (an absolute directory) or above it, or
// "" when there is none. The search stops at the repository root, the
// directory holding .git (a directory, or the file of a worktree), so a policy
// outside the repository never applies to it, and at the filesystem root.
std::filesystem::path NearestPolicyFile(const std::filesystem::path& dir);

// The repository root at or above `dir` (an absolute directory): the nearest
// directory holding .git (a directory, or the file of a worktree); "" when
// there is none below the filesystem root.
std::filesystem::path RepositoryRoot(const std::filesystem::path& dir);

// `path` as a person would type it from `cwd`: relative when it is inside
// `cwd`, else absolute.
std::string ShownPath(const std::filesystem::path& path, const std::filesystem::path& cwd);

}  // namespace gpulint

#endif  // GPULINT_LINT_INPUT_POLICY_DISCOVERY_H_
