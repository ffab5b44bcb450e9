// RFC 6902 JSON Patch: the operations the mutating webhook returns and
// `gpulint fix` applies to files.
#ifndef GPULINT_ENGINE_JSON_JSON_PATCH_H_
#define GPULINT_ENGINE_JSON_JSON_PATCH_H_

#include <string>
#include <vector>

#include "engine/base/finding.h"
#include "engine/base/patch_op.h"
#include "engine/base/value.h"

namespace gpulint {

// JSON text of a patch: [{"op":"add","path":"...","value":...}, ...].
std::string PatchToJson(const std::vector<PatchOp>& ops);

// Applies `ops` to `doc` in order (RFC 6902 add/remove/replace/test). On
// failure returns false with *error and leaves `doc` unchanged.
bool ApplyPatch(const std::vector<PatchOp>& ops, Value* doc, Error* error);

}  // namespace gpulint

#endif  // GPULINT_ENGINE_JSON_JSON_PATCH_H_
