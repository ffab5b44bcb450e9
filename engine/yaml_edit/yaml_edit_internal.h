// Pieces shared by yaml_edit.cc, yaml_edit_tree.cc and yaml_edit_emit.cc.
// Not part of the engine's interface: include engine/yaml_edit/yaml_edit.h instead.
#ifndef GPULINT_ENGINE_YAML_EDIT_YAML_EDIT_INTERNAL_H_
#define GPULINT_ENGINE_YAML_EDIT_YAML_EDIT_INTERNAL_H_

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/finding.h"
#include "engine/base/value.h"

namespace gpulint::yaml_edit {

inline constexpr size_t kNone = static_cast<size_t>(-1);

enum class NodeKind : uint8_t { kScalar, kMapping, kSequence, kAlias };
enum class ScalarStyle : uint8_t { kPlain, kSingle, kDouble, kLiteral, kFolded };

// Where a node of the document sits in its text. The loader's Value keeps one
// mark per value; editing also needs where each node ends and where its key is.
struct Node {
  NodeKind kind = NodeKind::kScalar;
  bool flow = false;  // collections: written in flow style ({...} or [...])
  ScalarStyle style = ScalarStyle::kPlain;
  bool null = false;    // a plain scalar that reads as null ("", "~", "null")
  size_t begin = 0;     // byte offset of the node's first character
  size_t end = 0;       // just past its last character (not past trailing blank lines)
  uint32_t column = 0;  // of `begin`, 0-based, in characters: a block collection's indentation
  size_t parent = kNone;
  std::vector<size_t> children;  // mappings: member values (not "<<" values); sequences: items
  std::string anchor;
  // Mappings: whether a member is a merge key ("<<"), and where the last
  // entry of any kind ends (a block mapping ends there).
  bool has_merge = false;
  // As a member of a mapping: its key as the loader reads it, and where it is.
  std::string key;
  bool merge_value = false;  // the value of a "<<" member
  size_t key_begin = 0;
  size_t key_end = 0;
  uint32_t key_column = 0;
};

// The document's nodes (nodes[0] is the root) and the style to write in.
struct Tree {
  std::vector<Node> nodes;
  std::set<std::string> aliased;  // anchors that some alias refers to
  std::string newline = "\n";     // "\r\n" when the document uses it
  uint32_t indent = 2;            // a nested block mapping's extra indentation
  uint32_t sequence_indent = 0;   // a block sequence's dash, past its key's column
  bool json = false;              // the root is a flow collection: write JSON
};

// Reads `text` (one document, no byte-order mark) with libyaml. On failure
// returns false with error->mark and error->message set.
bool BuildTree(std::string_view text, Tree* tree, Error* error);

// 1-based line and column (in characters) of a byte offset.
Mark MarkAt(std::string_view text, size_t offset);

// How values are written. `flow` says the text goes inside a flow collection,
// where ",[]{}" end a plain scalar; `json` writes strings double-quoted.
std::string ScalarText(const Value& v, bool flow, bool json, ScalarStyle prefer);
std::string KeyText(std::string_view key, bool flow, bool json);
std::string FlowText(const Value& v, bool json);
// What follows "key:" for a member whose key is at `key_column`: " scalar",
// " {flow}", or the lines of a block collection (each line starts with the
// newline). `flow` writes collections in flow style.
std::string AfterKey(const Value& v, uint32_t key_column, const Tree& style, bool flow);
// What follows "- " for an item whose dash is at `dash_column`.
std::string AfterDash(const Value& v, uint32_t dash_column, const Tree& style, bool flow);

}  // namespace gpulint::yaml_edit

#endif  // GPULINT_ENGINE_YAML_EDIT_YAML_EDIT_INTERNAL_H_
