// The unit fixes `gpulint fix` makes: only where a quantity Kubernetes refuses
// has one possible reading. Everything else stays a finding for a person.
#ifndef GPULINT_LINT_FIX_UNIT_FIX_H_
#define GPULINT_LINT_FIX_UNIT_FIX_H_

#include <string>
#include <string_view>
#include <vector>

#include "engine/base/value.h"
#include "engine/cluster/inventory.h"
#include "engine/mutate/mutate.h"
#include "engine/policy/policy.h"

namespace gpulint {

// Rewrites `text` when every reading of it is the same size:
//   "5MiB" -> "5Mi", "2GIB" -> "2Gi", "8gi" -> "8Gi": the "i" marks a binary
//       unit, and there is one binary unit per letter (no decimal suffix has an
//       "i"), so neither the letter's case nor a byte sign "B" after it can
//       mean anything else;
//   "512B" -> "512": B is a byte, which Kubernetes counts with no suffix;
//   " 8Gi", "8 Gi" -> "8Gi": spaces around the number or before the unit.
// Not fixed, because a person must choose: "500GB", "40g", "1K", "2M" as
// memory (decimal or binary?), "5Mib" and "5b" (a lowercase b is a bit), "1,5"
// (a decimal comma or a thousands separator?). Returns false when `text`
// parses already or no certain fix makes it parse; else sets *fixed and *why.
bool CertainUnitFix(std::string_view text, std::string* fixed, std::string* why);

// One unit fix in an object: a replace op, and what it changes.
struct UnitFix {
  PatchOp op;
  const Value* at = nullptr;  // the value as written
  std::string field;          // "memory" or the annotation's key
  std::string reason;
};

// The certain unit fixes of `object` (one object, not a List): requests and
// limits of resources counted in bytes (memory, ephemeral-storage, storage,
// hugepages-*, the policy's vram resource) and the VRAM annotations. Objects in
// the policy's exempt namespaces get none, as they get no findings.
std::vector<UnitFix> UnitFixes(const Value& object, const Policy& policy,
                               const Inventory& inventory);

}  // namespace gpulint

#endif  // GPULINT_LINT_FIX_UNIT_FIX_H_
