// What `gpulint fix` does to one file's text: for each object, the repairs the
// rules attach to what `gpulint check` reports (Finding::fix), the certain
// unit fixes first, and, when asked, the engine's mutations (VRAM, headroom,
// hidden GPUs: the webhook's patch), written into the text in place
// (engine/yaml_edit/yaml_edit.h). DRA claims are read across the documents
// of the file, as check reads them.
// Documents that do not parse, or that cannot be edited in place, are left as
// they were. What is left is judged again on the fixed text, as `gpulint
// check` will judge it, and each finding says why fix left it.
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

// A finding the fixed text still has.
struct LeftFinding {
  Finding finding;  // as `gpulint check` reports it in the fixed text
  std::string why;  // why fix did not repair it
};

struct FixedFile {
  std::string text;                  // the whole file, fixed
  std::vector<std::string> changes;  // "file:line:col: what changed", in order
  std::vector<Error> problems;       // documents left as they were, and why
  // Every finding of the fixed text's documents (those that parse), in
  // check's order and at its positions in `text`: for every rule, not only
  // those fix repairs.
  std::vector<LeftFinding> left;
  size_t documents_changed = 0;
};

// `file` names the text in changes and problems.
FixedFile FixText(std::string_view text, const std::string& file, const Policy& policy,
                  const Inventory& inventory, const FixOptions& options = {});

}  // namespace gpulint

#endif  // GPULINT_LINT_FIX_FIX_H_
