// The unit repairs that are certain: where a quantity Kubernetes refuses has
// one possible reading. quantity-invalid attaches them to its findings;
// everything else stays a finding for a person.
#ifndef GPULINT_ENGINE_QUANTITY_CERTAIN_UNIT_FIX_H_
#define GPULINT_ENGINE_QUANTITY_CERTAIN_UNIT_FIX_H_

#include <string>
#include <string_view>

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

}  // namespace gpulint

#endif  // GPULINT_ENGINE_QUANTITY_CERTAIN_UNIT_FIX_H_
