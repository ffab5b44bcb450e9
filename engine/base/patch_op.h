// One RFC 6902 JSON Patch operation: what the mutation returns, what a rule's
// fix-it holds, what `gpulint fix` edits into a file. engine/json/json_patch.h
// writes and applies them.
#ifndef GPULINT_ENGINE_BASE_PATCH_OP_H_
#define GPULINT_ENGINE_BASE_PATCH_OP_H_

#include <string>

#include "engine/base/value.h"

namespace gpulint {

struct PatchOp {
  std::string op;    // "add", "replace", "remove", "test"
  std::string path;  // JSON pointer, "~" as "~0" and "/" as "~1"
  Value value;       // unused for "remove"
};

}  // namespace gpulint

#endif  // GPULINT_ENGINE_BASE_PATCH_OP_H_
