// What `gpulint fix` does to one file's text: for each object, the repairs the
// rules attach to what `gpulint check` reports (Finding::fix), the certain
// unit fixes first, and, when asked, the engine's mutations (VRAM, headroom,
// hidden GPUs: the webhook's patch), written into the text in place
// (engine/yaml_edit/yaml_edit.h). DRA claims are read across the documents
// of the file, as check reads them.
// Documents that do not parse, or that cannot be edited in place, are left as
// they were.
#ifndef GPULINT_LINT_FIX_FIX_H_
#define GPULINT_LINT_FIX_FIX_H_

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/finding.h"
#include "engine/cluster/inventory.h"
#include "engine/policy/policy.h"

namespace gpulint {

struct FixOptions {
  // Also the mutating webhook's patch, computed on the repaired object:
  // capacity changes (VRAM, memory headroom), which are no one's mistake.
  bool mutations = false;
  // The rules whose findings to repair (FixingRules()); empty: all of
  // them. The webhook's patch is not narrowed by it.
  std::set<std::string, std::less<>> only;
};

struct FixedFile {
  std::string text;                  // the whole file, fixed
  std::vector<std::string> changes;  // "file:line:col: what changed", in order
  std::vector<Error> problems;       // documents left as they were, and why
  // Findings of the repaired rules left as they are: "file:line:col: not
  // fixed: why [rule]".
  std::vector<std::string> unfixed;
  size_t documents_changed = 0;
};

// `file` names the text in changes and problems.
FixedFile FixText(std::string_view text, const std::string& file, const Policy& policy,
                  const Inventory& inventory, const FixOptions& options = {});

}  // namespace gpulint

#endif  // GPULINT_LINT_FIX_FIX_H_
