// What `gpulint fix` does to one file's text: for each document, the certain
// unit fixes and then the engine's mutations (VRAM, headroom, hidden GPUs),
// written into the text in place (engine/yaml_edit.h). Documents that do not
// parse, or that cannot be edited in place, are left as they were.
#ifndef GPULINT_LINT_FIX_H_
#define GPULINT_LINT_FIX_H_

#include <string>
#include <string_view>
#include <vector>

#include "engine/finding.h"
#include "engine/inventory.h"
#include "engine/policy.h"

namespace gpulint {

struct FixedFile {
  std::string text;                  // the whole file, fixed
  std::vector<std::string> changes;  // "file:line:col: what changed", in order
  std::vector<Error> problems;       // documents left as they were, and why
  size_t documents_changed = 0;
};

// `file` names the text in changes and problems.
FixedFile FixText(std::string_view text, const std::string& file, const Policy& policy,
                  const Inventory& inventory);

}  // namespace gpulint

#endif  // GPULINT_LINT_FIX_H_
