// What the engine says about an object: findings (rule violations) and errors
// (input it could not read). Both are values; the public API never throws.
#ifndef GPULINT_ENGINE_BASE_FINDING_H_
#define GPULINT_ENGINE_BASE_FINDING_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/patch_op.h"
#include "engine/base/value.h"

namespace gpulint {

enum class Severity { kInfo = 0, kWarning = 1, kError = 2 };
const char* SeverityName(Severity s);  // "info", "warning", "error"
bool ParseSeverity(std::string_view text, Severity* out);

// Which object a finding is about, as kubectl names it.
struct ObjectRef {
  std::string api_version;
  std::string kind;
  std::string namespace_name;
  std::string name;  // metadata.name, else metadata.generateName
};

// The repair a rule attaches to its finding, as clang-tidy attaches fix-its,
// where the manifest can be read only one way. `gpulint fix` applies it.
struct FixIt {
  std::vector<PatchOp> ops;  // JSON pointers into the object the finding is about
  std::string what;          // "500m -> 500Mi (the limit is 500Mi)"
  // What the change names ("memory", an annotation's key); empty: the
  // finding's path.
  std::string field;
};

struct Finding {
  std::string rule;  // kebab-case rule name, e.g. "exceeds-allocatable"
  Severity severity = Severity::kError;
  std::string message;
  std::string file;  // empty for webhook input
  Mark mark;         // line/column in `file`; 0 when unknown
  ObjectRef object;
  std::string path;  // field path in the object, e.g. spec.containers[0].resources.limits.memory
  // The container the finding is about, when its path lies inside one (set by
  // Evaluate, for per-container ignore annotations); empty for the pod or object.
  std::string container;
  // Identity across runs, for baselines and SARIF (lint/output/fingerprint.h): set by
  // `gpulint check`, empty from Evaluate.
  std::string fingerprint;
  // A finding in a rendered Helm chart, whose file and mark `gpulint check`
  // moved to the template: where it is in helm's output. Line 0 otherwise.
  Mark rendered;
  // Only when the rule was asked for fixes (ObjectContext::fixes): its repair,
  // or, for a rule that repairs some findings, why this one has none.
  std::optional<FixIt> fix;
  std::string no_fix;
};

// Input that could not be read: a file, a document, a policy. `file` may be a
// pseudo name such as "<stdin>" or "<policy>".
struct Error {
  std::string file;
  Mark mark;
  std::string message;
  // file:line:col: message  (parts that are unknown are left out)
  std::string ToString() const;
};

// strerror's text for `err`, lower-cased to sit after "file: " like the rest
// of the errors: "no such file or directory".
std::string ErrnoText(int err);

}  // namespace gpulint

#endif  // GPULINT_ENGINE_BASE_FINDING_H_
