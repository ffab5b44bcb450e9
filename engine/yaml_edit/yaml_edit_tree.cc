// Where each node of a YAML document sits in its text, read from libyaml's
// events: begin and end of every node, where each key is, block or flow style,
// anchors and aliases, and the indentation the document uses.
#include <yaml.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "engine/yaml/yaml_document.h"
#include "engine/yaml/yaml_scalar.h"
#include "engine/yaml_edit/yaml_edit_internal.h"

namespace gpulint::yaml_edit {
namespace {

bool IsContinuationByte(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// libyaml counts positions in characters; edits need bytes.
class Offsets {
 public:
  explicit Offsets(std::string_view text) : size_(text.size()) {
    if (std::none_of(text.begin(), text.end(), [](char c) { return c & 0x80; })) return;
    for (size_t i = 0; i < text.size(); ++i)
      if (!IsContinuationByte(text[i])) starts_.push_back(i);
    starts_.push_back(text.size());
  }
  size_t Byte(size_t char_index) const {
    if (starts_.empty()) return std::min(char_index, size_);
    return char_index < starts_.size() ? starts_[char_index] : size_;
  }

 private:
  size_t size_;
  std::vector<size_t> starts_;  // byte offset of each character; empty for ASCII text
};

struct Open {
  size_t node = kNone;
  bool has_key = false;
  bool key_merge = false;
  std::string key;
  size_t key_begin = 0, key_end = 0;
  uint32_t key_column = 0;
  size_t last_end = 0;  // where the last entry ends
};

class Builder {
 public:
  Builder(std::string_view text, Tree* tree) : text_(text), offsets_(text), tree_(tree) {}

  bool Handle(const yaml_event_t& e);
  const Error& error() const { return error_; }

 private:
  bool Fail(const yaml_mark_t& at, std::string message) {
    error_.mark = MarkAt(text_, offsets_.Byte(at.index));
    error_.message = std::move(message);
    return false;
  }
  Node Start(const yaml_event_t& e, NodeKind kind, const yaml_char_t* anchor) const {
    Node n;
    n.kind = kind;
    n.begin = offsets_.Byte(e.start_mark.index);
    n.end = offsets_.Byte(e.end_mark.index);
    n.column = static_cast<uint32_t>(e.start_mark.column);
    if (anchor) n.anchor = reinterpret_cast<const char*>(anchor);
    return n;
  }
  bool ExpectingKey() const {
    return !stack_.empty() && tree_->nodes[stack_.back().node].kind == NodeKind::kMapping &&
           !stack_.back().has_key;
  }
  size_t Attach(Node n);
  bool OnScalar(const yaml_event_t& e);
  bool OnStart(const yaml_event_t& e, NodeKind kind);
  void OnEnd(const yaml_event_t& e);

  std::string_view text_;
  Offsets offsets_;
  Tree* tree_;
  std::vector<Open> stack_;
  Error error_;
};

size_t Builder::Attach(Node n) {
  std::vector<Node>& nodes = tree_->nodes;
  size_t index = nodes.size();
  if (!stack_.empty()) {
    Open& open = stack_.back();
    n.parent = open.node;
    if (nodes[open.node].kind == NodeKind::kMapping) {
      n.key = std::move(open.key);
      n.key_begin = open.key_begin;
      n.key_end = open.key_end;
      n.key_column = open.key_column;
      n.merge_value = open.key_merge;
      open.has_key = false;
    }
    if (n.merge_value) {
      nodes[open.node].has_merge = true;
    } else {
      nodes[open.node].children.push_back(index);
    }
    open.last_end = n.end;
  }
  nodes.push_back(std::move(n));
  return index;
}

bool Builder::OnScalar(const yaml_event_t& e) {
  const auto& s = e.data.scalar;
  std::string_view in(reinterpret_cast<const char*>(s.value), s.length);
  std::string_view tag = s.tag ? reinterpret_cast<const char*>(s.tag) : "";
  bool plain = s.style == YAML_PLAIN_SCALAR_STYLE;
  Value::Type type;
  std::string text, problem;
  if (!ResolveScalar(in, tag, plain, &type, &text, &problem)) return Fail(e.start_mark, problem);
  Node n = Start(e, NodeKind::kScalar, s.anchor);
  if (ExpectingKey()) {
    Open& open = stack_.back();
    open.has_key = true;
    open.key_merge = IsMergeKey(in, tag, plain);
    open.key = std::move(text);
    open.key_begin = n.begin;
    open.key_end = n.end;
    open.key_column = n.column;
    return true;
  }
  switch (s.style) {
    case YAML_SINGLE_QUOTED_SCALAR_STYLE:
      n.style = ScalarStyle::kSingle;
      break;
    case YAML_DOUBLE_QUOTED_SCALAR_STYLE:
      n.style = ScalarStyle::kDouble;
      break;
    case YAML_LITERAL_SCALAR_STYLE:
    case YAML_FOLDED_SCALAR_STYLE:
      n.style = s.style == YAML_LITERAL_SCALAR_STYLE ? ScalarStyle::kLiteral : ScalarStyle::kFolded;
      // libyaml ends a block scalar after its trailing blank lines; what
      // follows the value belongs after its last line of text.
      while (n.end > n.begin + 1 &&
             std::string_view(" \t\r\n").find(text_[n.end - 1]) != std::string_view::npos)
        --n.end;
      break;
    default:
      n.null = plain && type == Value::Type::kNull;
  }
  Attach(std::move(n));
  return true;
}

bool Builder::OnStart(const yaml_event_t& e, NodeKind kind) {
  if (ExpectingKey())
    return Fail(e.start_mark, "a key that is a mapping or a sequence cannot be edited in place");
  bool mapping = kind == NodeKind::kMapping;
  Node n = Start(e, kind, mapping ? e.data.mapping_start.anchor : e.data.sequence_start.anchor);
  n.flow = mapping ? e.data.mapping_start.style == YAML_FLOW_MAPPING_STYLE
                   : e.data.sequence_start.style == YAML_FLOW_SEQUENCE_STYLE;
  n.end = n.begin;
  Open open;
  open.node = Attach(std::move(n));
  open.last_end = tree_->nodes[open.node].begin;
  stack_.push_back(std::move(open));
  return true;
}

void Builder::OnEnd(const yaml_event_t& e) {
  Node& n = tree_->nodes[stack_.back().node];
  // A block collection's end event comes where the next token starts, maybe
  // lines later, after comments: it ends with its last entry instead.
  n.end = n.flow ? offsets_.Byte(e.end_mark.index) : stack_.back().last_end;
  stack_.pop_back();
  if (!stack_.empty()) stack_.back().last_end = n.end;
}

bool Builder::Handle(const yaml_event_t& e) {
  switch (e.type) {
    case YAML_SCALAR_EVENT:
      return OnScalar(e);
    case YAML_ALIAS_EVENT: {
      if (ExpectingKey()) return Fail(e.start_mark, "an alias as a key cannot be edited in place");
      tree_->aliased.insert(reinterpret_cast<const char*>(e.data.alias.anchor));
      Node n = Start(e, NodeKind::kAlias, nullptr);
      n.anchor = reinterpret_cast<const char*>(e.data.alias.anchor);
      Attach(std::move(n));
      return true;
    }
    case YAML_MAPPING_START_EVENT:
      return OnStart(e, NodeKind::kMapping);
    case YAML_SEQUENCE_START_EVENT:
      return OnStart(e, NodeKind::kSequence);
    case YAML_MAPPING_END_EVENT:
    case YAML_SEQUENCE_END_EVENT:
      OnEnd(e);
      return true;
    default:
      return true;
  }
}

// The indentation the document already uses, so new lines look like old ones.
void DetectStyle(std::string_view text, Tree* tree) {
  if (text.find("\r\n") != std::string_view::npos) tree->newline = "\r\n";
  const std::vector<Node>& nodes = tree->nodes;
  if (nodes.empty()) return;
  tree->json = nodes[0].kind != NodeKind::kScalar && nodes[0].flow;
  bool indent_found = false, sequence_found = false;
  for (const Node& n : nodes) {
    if (n.parent == kNone || n.flow) continue;
    const Node& parent = nodes[n.parent];
    if (parent.kind != NodeKind::kMapping || parent.flow) continue;
    if (n.kind == NodeKind::kMapping && !indent_found && n.column > parent.column) {
      tree->indent = n.column - parent.column;
      indent_found = true;
    } else if (n.kind == NodeKind::kSequence && !sequence_found && n.column >= parent.column) {
      tree->sequence_indent = n.column - parent.column;
      sequence_found = true;
    }
  }
}

}  // namespace

Mark MarkAt(std::string_view text, size_t offset) {
  offset = std::min(offset, text.size());
  Mark mark{1, 1};
  size_t line_start = 0;
  for (size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++mark.line;
      line_start = i + 1;
    }
  }
  for (size_t i = line_start; i < offset; ++i)
    if (!IsContinuationByte(text[i])) ++mark.column;
  return mark;
}

bool BuildTree(std::string_view text, Tree* tree, Error* error) {
  *tree = Tree();
  yaml_parser_t parser;
  if (!yaml_parser_initialize(&parser)) {
    error->message = "out of memory";
    return false;
  }
  yaml_parser_set_input_string(&parser, reinterpret_cast<const unsigned char*>(text.data()),
                               text.size());
  Builder builder(text, tree);
  bool ok = true;
  for (bool done = false; ok && !done;) {
    yaml_event_t event;
    if (!yaml_parser_parse(&parser, &event)) {
      *error = LibyamlError(parser, text, 0);
      ok = false;
      break;
    }
    done = event.type == YAML_STREAM_END_EVENT;
    ok = builder.Handle(event);
    yaml_event_delete(&event);
    if (!ok) *error = builder.error();
  }
  yaml_parser_delete(&parser);
  if (ok) DetectStyle(text, tree);
  return ok;
}

}  // namespace gpulint::yaml_edit
