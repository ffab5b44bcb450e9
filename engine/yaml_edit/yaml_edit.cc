// JSONPatch operations applied to a YAML document's text at the positions of
// the nodes they touch. Each op is planned on a fresh position tree of the
// text as it is by then, so ops that build on each other (add a map, then a
// key into it) see each other's edits.
#include "engine/yaml_edit/yaml_edit.h"

#include <string>
#include <utility>
#include <vector>

#include "engine/base/path.h"
#include "engine/yaml/loader.h"
#include "engine/yaml_edit/yaml_edit_internal.h"

namespace gpulint {
namespace {

using yaml_edit::AfterDash;
using yaml_edit::AfterKey;
using yaml_edit::FlowText;
using yaml_edit::KeyText;
using yaml_edit::kNone;
using yaml_edit::Node;
using yaml_edit::NodeKind;
using yaml_edit::ScalarStyle;
using yaml_edit::ScalarText;
using yaml_edit::Tree;

constexpr std::string_view kBom = "\xEF\xBB\xBF";

struct Edit {
  size_t begin = 0;
  size_t end = 0;
  std::string text;
};

// Where an op cannot be carried out in place, and why.
struct Refusal {
  size_t offset = 0;
  std::string message;
};

bool IsFlowCollection(const Node& n) {
  return (n.kind == NodeKind::kMapping || n.kind == NodeKind::kSequence) && n.flow;
}

// The start of the line after the one holding `offset`.
size_t LineAfter(std::string_view text, size_t offset) {
  size_t nl = text.find('\n', offset);
  return nl == std::string_view::npos ? text.size() : nl + 1;
}

std::string Spaces(uint32_t n) { return std::string(n, ' '); }

class Planner {
 public:
  Planner(std::string_view text, const Tree& tree) : text_(text), tree_(tree) {}

  // Plans `op`; false with *refusal when it cannot be done in place.
  bool Plan(const PatchOp& op, Edit* edit, Refusal* refusal);

 private:
  const Node& node(size_t i) const { return tree_.nodes[i]; }
  bool Refuse(size_t at, std::string message) {
    refusal_.offset = node(at).begin;
    refusal_.message = std::move(message);
    return false;
  }
  bool Resolve(const std::vector<std::string>& segments, size_t count, size_t* out);
  bool CheckAnchors(size_t at, const std::string& where);
  bool Replace(size_t target, const Value& value, Edit* edit);
  bool AddMember(size_t mapping, const std::string& key, const Value& value, Edit* edit);
  bool AddItem(size_t sequence, size_t before, const Value& value, Edit* edit);
  Edit FlowAppend(const Node& collection, const std::string& entry) const;

  std::string_view text_;
  const Tree& tree_;
  std::string pointer_;
  Refusal refusal_;
};

bool Planner::Resolve(const std::vector<std::string>& segments, size_t count, size_t* out) {
  size_t at = 0;
  for (size_t i = 0; i < count; ++i) {
    const Node& n = node(at);
    if (n.kind == NodeKind::kAlias)
      return Refuse(at, "it goes through the alias *" + n.anchor + "; edit what the anchor &" +
                            n.anchor + " holds by hand");
    size_t next = kNone;
    if (n.kind == NodeKind::kMapping) {
      for (size_t child : n.children)
        if (node(child).key == segments[i]) next = child;
      if (next == kNone && n.has_merge)
        return Refuse(at, "\"" + segments[i] + "\" comes from a merge key (<<); edit it by hand");
      if (next == kNone) return Refuse(at, "\"" + segments[i] + "\" is not in the text");
    } else if (n.kind == NodeKind::kSequence) {
      size_t index = std::stoul(segments[i]);  // ApplyPatch has checked it
      next = n.children[index];
    }
    at = next;
  }
  if (node(at).kind == NodeKind::kAlias)
    return Refuse(at, "it goes through the alias *" + node(at).anchor + "; edit what the anchor &" +
                          node(at).anchor + " holds by hand");
  *out = at;
  return true;
}

// An edit inside an anchored node would change every alias of it as well.
bool Planner::CheckAnchors(size_t at, const std::string& where) {
  for (size_t i = at; i != kNone; i = node(i).parent) {
    const std::string& anchor = node(i).anchor;
    if (!anchor.empty() && tree_.aliased.count(anchor))
      return Refuse(i, "it is inside the anchor &" + anchor + ", which the alias *" + anchor +
                           " shares; the edit would change both");
  }
  return true;
}

bool Planner::Plan(const PatchOp& op, Edit* edit, Refusal* refusal) {
  pointer_ = op.path;
  bool ok = [&] {
    std::vector<std::string> segments;
    SplitPointer(op.path, &segments);  // ApplyPatch has accepted it
    if (op.op == "remove") return Refuse(0, "remove is not supported by the text editor");
    if (segments.empty()) return Refuse(0, "the whole document cannot be replaced in place");
    size_t parent = 0;
    if (!Resolve(segments, segments.size() - 1, &parent) || !CheckAnchors(parent, op.path))
      return false;
    const Node& p = node(parent);
    const std::string& last = segments.back();
    if (p.kind == NodeKind::kMapping) {
      for (size_t child : p.children)
        if (node(child).key == last) return op.op == "test" || Replace(child, op.value, edit);
      if (op.op == "test") return true;
      if (op.op == "add") return AddMember(parent, last, op.value, edit);
      return Refuse(parent, "\"" + last + "\" " +
                                (p.has_merge ? "comes from a merge key (<<); edit it by hand"
                                             : "is not in the text"));
    }
    size_t index = last == "-" ? p.children.size() : std::stoul(last);
    if (op.op == "test") return true;
    if (op.op == "add") return AddItem(parent, index, op.value, edit);
    size_t target = p.children[index];
    if (node(target).kind == NodeKind::kAlias)
      return Refuse(target, "it is the alias *" + node(target).anchor);
    return Replace(target, op.value, edit);
  }();
  if (!ok) *refusal = refusal_;
  return ok;
}

bool Planner::Replace(size_t target, const Value& value, Edit* edit) {
  const Node& n = node(target);
  if (n.kind == NodeKind::kAlias) return Refuse(target, "it is the alias *" + n.anchor);
  const Node& parent = node(n.parent);
  bool in_place = parent.flow || IsFlowCollection(n) ||
                  (n.kind == NodeKind::kScalar && !n.null && value.is_scalar());
  if (in_place) {
    ScalarStyle style = n.kind == NodeKind::kScalar ? n.style : ScalarStyle::kPlain;
    std::string text = value.is_scalar() ? ScalarText(value, parent.flow, tree_.json, style)
                                         : FlowText(value, tree_.json);
    *edit = Edit{n.begin, n.end, std::move(text)};
    return true;
  }
  if (parent.kind == NodeKind::kMapping) {
    // From just after the colon: a block value starts on the next line.
    size_t colon = n.key_end;
    while (colon < text_.size() && (text_[colon] == ' ' || text_[colon] == '\t')) ++colon;
    if (colon >= text_.size() || text_[colon] != ':')
      return Refuse(target, "its key is not followed by \":\" on the same line");
    size_t end = n.begin == n.end ? colon + 1 : n.end;
    *edit = Edit{colon + 1, end, AfterKey(value, parent.column, tree_, false)};
    return true;
  }
  std::string text = n.begin == n.end ? " " : "";
  *edit = Edit{n.begin, n.end, text + AfterDash(value, parent.column, tree_, false)};
  return true;
}

// ", entry" after the last entry of a flow collection (on a line of its own,
// at the last entry's column, when entries are one per line), or the entry
// alone inside empty brackets.
Edit Planner::FlowAppend(const Node& collection, const std::string& entry) const {
  if (collection.children.empty()) return Edit{collection.begin + 1, collection.begin + 1, entry};
  const Node& last = node(collection.children.back());
  size_t entry_begin = collection.kind == NodeKind::kMapping ? last.key_begin : last.begin;
  uint32_t column = collection.kind == NodeKind::kMapping ? last.key_column : last.column;
  bool own_line = text_.substr(collection.begin, entry_begin - collection.begin).find('\n') !=
                  std::string_view::npos;
  std::string sep = own_line ? "," + tree_.newline + Spaces(column) : ", ";
  return Edit{last.end, last.end, sep + entry};
}

bool Planner::AddMember(size_t mapping, const std::string& key, const Value& value, Edit* edit) {
  const Node& m = node(mapping);
  if (m.flow) {
    if (m.children.empty() && m.has_merge)
      return Refuse(mapping, "a flow mapping with only a merge key (<<) cannot be extended");
    std::string entry =
        KeyText(key, true, tree_.json) + ": " +
        (value.is_scalar() ? ScalarText(value, true, tree_.json, ScalarStyle::kPlain)
                           : FlowText(value, tree_.json));
    *edit = FlowAppend(m, entry);
    return true;
  }
  bool flow = !m.children.empty() && IsFlowCollection(node(m.children.back()));
  size_t at = LineAfter(text_, m.end);
  std::string text =
      at == text_.size() && !text_.empty() && text_.back() != '\n' ? tree_.newline : "";
  text += Spaces(m.column) + KeyText(key, false, false) + ":" +
          AfterKey(value, m.column, tree_, flow) + tree_.newline;
  *edit = Edit{at, at, std::move(text)};
  return true;
}

bool Planner::AddItem(size_t sequence, size_t before, const Value& value, Edit* edit) {
  const Node& s = node(sequence);
  std::string flow_entry = value.is_scalar()
                               ? ScalarText(value, true, tree_.json, ScalarStyle::kPlain)
                               : FlowText(value, tree_.json);
  if (s.flow) {
    if (before == s.children.size()) {
      *edit = FlowAppend(s, flow_entry);
    } else {
      size_t at = node(s.children[before]).begin;
      *edit = Edit{at, at, flow_entry + ", "};
    }
    return true;
  }
  bool flow = !s.children.empty() && IsFlowCollection(node(s.children.back()));
  std::string line =
      Spaces(s.column) + "- " + AfterDash(value, s.column, tree_, flow) + tree_.newline;
  if (before == s.children.size()) {
    size_t at = LineAfter(text_, s.end);
    if (at == text_.size() && !text_.empty() && text_.back() != '\n') line = tree_.newline + line;
    *edit = Edit{at, at, std::move(line)};
    return true;
  }
  // Before an item whose dash starts its line.
  size_t item = s.children[before];
  size_t dash = node(item).begin;
  while (dash > 0 && text_[dash - 1] == ' ') --dash;
  size_t line_start = dash > 0 ? text_.rfind('\n', dash - 2) : std::string_view::npos;
  line_start = line_start == std::string_view::npos ? 0 : line_start + 1;
  if (dash == 0 || text_[dash - 1] != '-' ||
      text_.substr(line_start, dash - 1 - line_start).find_first_not_of(' ') !=
          std::string_view::npos)
    return Refuse(item, "the item does not start its own line");
  *edit = Edit{line_start, line_start, std::move(line)};
  return true;
}

// JSON equality where mappings compare as sets: a merge key (<<) may put a
// member written in the text at another place in the loader's order.
bool SameTree(const Value& a, const Value& b) {
  if (a.type() != b.type()) return false;
  if (a.is_sequence()) {
    if (a.items().size() != b.items().size()) return false;
    for (size_t i = 0; i < a.items().size(); ++i)
      if (!SameTree(a.items()[i], b.items()[i])) return false;
    return true;
  }
  if (a.is_mapping()) {
    if (a.members().size() != b.members().size()) return false;
    for (const Value::Member& m : a.members()) {
      const Value* other = b.Find(m.first);
      if (!other || !SameTree(m.second, *other)) return false;
    }
    return true;
  }
  return a.text() == b.text();
}

// The document in `text` as the loader reads it; false unless there is
// exactly one and it reads without error.
bool ReadBack(std::string_view text, Value* root, Error* error) {
  size_t documents = 0;
  bool ok = true;
  Error io_error;
  LoadYamlString(
      text, "", LoadLimits{},
      [&](Document&& doc) {
        if (++documents == 1) {
          ok = doc.ok;
          *error = doc.error;
          *root = std::move(doc.root);
        }
        return true;
      },
      &io_error);
  if (documents != 1) {
    error->mark = {};
    error->message = documents == 0 ? "the text holds no document"
                                    : "the text holds more than "
                                      "one document";
    return false;
  }
  return ok;
}

bool Fail(Error* error, Mark mark, std::string message) {
  *error = Error();
  error->mark = mark;
  error->message = std::move(message);
  return false;
}

}  // namespace

bool EditYamlDocument(std::string_view text, const std::vector<PatchOp>& ops, std::string* out,
                      Error* error) {
  // The tree first: an op that does not apply is refused with ApplyPatch's
  // message before any text is touched.
  Value expected;
  if (!ReadBack(text, &expected, error)) return false;
  if (!ApplyPatch(ops, &expected, error)) return false;

  std::string_view bom = text.substr(0, 3) == kBom ? kBom : std::string_view();
  std::string body(text.substr(bom.size()));
  for (size_t i = 0; i < ops.size(); ++i) {
    Tree tree;
    Error tree_error;
    if (!yaml_edit::BuildTree(body, &tree, &tree_error)) {
      *error = tree_error;
      return false;
    }
    Edit edit;
    Refusal refusal;
    if (!Planner(body, tree).Plan(ops[i], &edit, &refusal)) {
      return Fail(error, yaml_edit::MarkAt(body, refusal.offset),
                  "cannot edit " + (ops[i].path.empty() ? "the document" : ops[i].path) +
                      " in place: " + refusal.message);
    }
    if (ops[i].op != "test") body.replace(edit.begin, edit.end - edit.begin, edit.text);
  }
  std::string edited = std::string(bom) + body;
  Value actual;
  Error read_error;
  if (!ReadBack(edited, &actual, &read_error) || !SameTree(actual, expected)) {
    return Fail(
        error, Mark{1, 1},
        "editing the text in place would not give the patched document" +
            (read_error.message.empty() ? std::string() : " (" + read_error.ToString() + ")") +
            "; the document is left as it was");
  }
  *out = std::move(edited);
  return true;
}

}  // namespace gpulint
