// A finding's identity across runs, for baselines (`gpulint baseline`,
// `check --baseline`) and for SARIF's partialFingerprints, which code scanning
// uses to follow an alert as lines move. It hashes what says which finding
// this is, never where the line happens to be:
//   rule, file (relative to a root directory, see FingerprintFile), the
//   object's apiVersion, kind, namespace and name, the finding's field path,
//   and its message with any "line N" / "column N" in it blanked out (parse
//   errors quote positions).
// So lines inserted above a finding keep its fingerprint; a changed value,
// which the message quotes, changes it.
#ifndef GPULINT_LINT_OUTPUT_FINGERPRINT_H_
#define GPULINT_LINT_OUTPUT_FINGERPRINT_H_

#include <string>
#include <string_view>
#include <utility>

#include "engine/base/finding.h"

namespace gpulint {

// The key under SARIF's partialFingerprints; a new scheme gets a new version.
inline constexpr char kFingerprintKey[] = "gpulint/v1";

// 16 lowercase hex digits (64-bit FNV-1a, the same on every platform).
// `file` is the finding's file as FingerprintFile names it.
std::string Fingerprint(const Finding& finding, std::string_view file);

// `file` as fingerprints and baselines name it: relative to `root` (an
// absolute directory: a repository root, see lint/cli/baseline.h), whatever
// the working directory `work_dir` that a relative `file` starts from, and
// however it was named ("./k8s//a.yaml", "k8s/a.yaml" and "/repo/k8s/a.yaml"
// are all "k8s/a.yaml" under /repo). A file outside `root` is named with
// "../", after symbolic links are resolved: a root or a working directory
// reached through a link names the same files. Pseudo names ("<stdin>")
// stay as they are.
std::string FingerprintFile(std::string_view file, std::string_view work_dir,
                            std::string_view root);

// FingerprintFile for one run, remembering the last file: findings come file
// by file.
class FingerprintFiles {
 public:
  FingerprintFiles(std::string work_dir, std::string root)
      : work_dir_(std::move(work_dir)), root_(std::move(root)) {}
  const std::string& Name(const std::string& file);
  const std::string& root() const { return root_; }

 private:
  std::string work_dir_;
  std::string root_;
  std::string last_file_;
  std::string last_name_;
  bool named_ = false;
};

}  // namespace gpulint

#endif  // GPULINT_LINT_OUTPUT_FINGERPRINT_H_
