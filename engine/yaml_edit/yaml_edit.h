// JSONPatch applied to YAML text rather than to a tree: each operation edits
// the text at the position of the node it touches, so comments, key order,
// quoting, indentation and every untouched line stay as they were, byte for
// byte. This is how `gpulint fix` writes the engine's mutations back to files,
// one document at a time, where the loader cuts the stream (Document::begin).
#ifndef GPULINT_ENGINE_YAML_EDIT_YAML_EDIT_H_
#define GPULINT_ENGINE_YAML_EDIT_YAML_EDIT_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/finding.h"
#include "engine/json/json_patch.h"

namespace gpulint {

// Applies `ops` (RFC 6902, in order) to `text`, which holds one YAML document
// (JSON is YAML), by editing the text:
//  - replace, and add onto a member that exists, rewrite the value's own text;
//    a scalar keeps its quoting style where the new text allows it;
//  - add of a new member goes after the mapping's last member: a line at the
//    mapping's indentation in a block mapping, ", key: value" in a flow mapping
//    (a JSON document stays JSON);
//  - add to a sequence appends a "- " line or a flow item, or inserts one
//    before an item;
//  - new collections follow the document's indentation, and the flow style
//    where their neighbours use it;
//  - test edits nothing.
// What cannot be edited in place is refused rather than guessed: remove, a
// path through an alias or a complex key, a node inside an anchor that an alias
// shares. As a last guard the edited text is read back and must equal the
// document patched as a tree (ApplyPatch), merge keys and all.
// On success sets *out to the edited document. On failure returns false with
// *error (line and column in `text`, 1-based; `file` left empty) and leaves
// *out alone.
bool EditYamlDocument(std::string_view text, const std::vector<PatchOp>& ops, std::string* out,
                      Error* error);

}  // namespace gpulint

#endif  // GPULINT_ENGINE_YAML_EDIT_YAML_EDIT_H_
