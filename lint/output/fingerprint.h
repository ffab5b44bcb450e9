// A finding's identity across runs, for baselines (`gpulint baseline`,
// `check --baseline`) and for SARIF's partialFingerprints, which code scanning
// uses to follow an alert as lines move. It hashes what says which finding
// this is, never where the line happens to be:
//   rule, file (relative to the working directory), the object's apiVersion,
//   kind, namespace and name, the finding's field path, and its message with
//   any "line N" / "column N" in it blanked out (parse errors quote positions).
// So lines inserted above a finding keep its fingerprint; a changed value,
// which the message quotes, changes it.
#ifndef GPULINT_LINT_OUTPUT_FINGERPRINT_H_
#define GPULINT_LINT_OUTPUT_FINGERPRINT_H_

#include <string>
#include <string_view>

#include "engine/base/finding.h"

namespace gpulint {

// The key under SARIF's partialFingerprints; a new scheme gets a new version.
inline constexpr char kFingerprintKey[] = "gpulint/v1";

// 16 lowercase hex digits (64-bit FNV-1a, the same on every platform).
// `base_dir` is the absolute working directory ("" to take `file` as it is).
std::string Fingerprint(const Finding& finding, std::string_view base_dir);

// `file` as fingerprints and baselines name it: normalized ("./k8s//a.yaml"
// is "k8s/a.yaml"), relative to `base_dir` when it lies inside it.
std::string FingerprintFile(std::string_view file, std::string_view base_dir);

}  // namespace gpulint

#endif  // GPULINT_LINT_OUTPUT_FINGERPRINT_H_
