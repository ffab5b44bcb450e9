#include "engine/yaml/yaml_document.h"

#include <yaml.h>

#include <algorithm>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/yaml/loader.h"
#include "engine/yaml/yaml_scalar.h"

namespace gpulint {
namespace {

// Mappings with this many keys get a hash index for the duplicate check, so a
// hostile mapping of a million keys costs O(n), not O(n^2).
constexpr size_t kIndexThreshold = 16;
constexpr size_t kNotFound = static_cast<size_t>(-1);
constexpr size_t kFirstFrames = 16;  // nesting of a typical manifest, with room
constexpr size_t kFirstKeys = 8;     // keys of a typical mapping

std::string Quoted(std::string_view s) {
  std::string out;
  AppendJsonString(s, &out);
  return out;
}

// A mapping or sequence being built. Frames are reused from one collection to
// the next so their vectors keep their capacity.
struct Frame {
  Value value;
  std::string anchor;   // registered when the collection ends
  size_t nodes = 1;     // nodes in the subtree so far
  uint32_t height = 1;  // collection levels in the subtree
  // Mappings: the key waiting for its value, and what refuses duplicates.
  bool has_key = false;
  bool key_is_merge = false;
  std::string key;
  std::vector<uint32_t> key_lines;  // parallel to the members
  std::unordered_map<std::string, size_t> key_index;
  std::vector<Value> merges;  // values of `<<`, merged when the mapping ends
  bool streams_items = false;  // the root's `items`: its items go to the ItemSink
};

struct Anchor {
  Value value;
  size_t nodes = 0;
  uint32_t height = 0;
  bool complete = false;
};

// A finished node on its way into its parent, which moves *value in: a
// value is moved once, from where it was built to where it stays.
struct Node {
  Value* value;
  size_t nodes = 1;
  uint32_t height = 0;
  bool merge_key = false;
};

// Builds the tree from events with an explicit stack: nesting is refused at
// limits.max_depth before it costs anything, and nothing here recurses.
class Builder {
 public:
  Builder(const LoadLimits& limits, uint32_t first_line, const ItemSink* items)
      : limits_(limits), first_line_(first_line), items_(items) {}

  // Returns false with error() set when the document must be refused.
  bool Handle(const yaml_event_t& e);
  Value TakeRoot() { return std::move(root_); }
  const Error& error() const { return error_; }

 private:
  Mark ToMark(const yaml_mark_t& m) const {
    return {static_cast<uint32_t>(first_line_ + m.line + 1), static_cast<uint32_t>(m.column + 1)};
  }
  bool Fail(Mark mark, std::string message) {
    error_.mark = mark;
    error_.message = std::move(message);
    return false;
  }
  std::string DepthMessage() const {
    return "nesting is deeper than " + std::to_string(limits_.max_depth) + " levels";
  }
  bool OnScalar(const yaml_event_t& e);
  bool OnAlias(const yaml_event_t& e);
  bool OnCollectionStart(Mark mark, Value::Type type, const yaml_char_t* anchor);
  bool OnCollectionEnd();
  bool Add(const Node& node, std::string_view anchor);
  bool SetKey(Frame& f, const Node& node);
  bool AcceptKey(Frame& f, std::string text, Mark mark, bool merge);
  bool AddMergeValue(Frame& f, Value value);
  void ApplyMerges(Frame& f);
  bool Charge(size_t nodes, Mark mark);
  bool StreamsItems(Value::Type type, const yaml_char_t* anchor) const;

  const LoadLimits& limits_;
  uint32_t first_line_;
  const ItemSink* items_;
  std::vector<Frame> frames_;
  size_t depth_ = 0;  // frames_[0, depth_) are open
  std::unordered_map<std::string, Anchor> anchors_;
  size_t open_anchors_ = 0;
  size_t expanded_ = 0;
  int documents_ = 0;
  Value root_;
  Error error_;
};

size_t FindKey(const Frame& f, const std::string& key) {
  if (!f.key_index.empty()) {
    auto it = f.key_index.find(key);
    return it == f.key_index.end() ? kNotFound : it->second;
  }
  const std::vector<Value::Member>& members = f.value.members();
  for (size_t i = 0; i < members.size(); ++i)
    if (members[i].first == key) return i;
  return kNotFound;
}

void IndexKey(Frame& f, const std::string& key, uint32_t line) {
  f.key_lines.push_back(line);
  if (!f.key_index.empty()) {
    f.key_index.emplace(key, f.key_lines.size() - 1);
  } else if (f.key_lines.size() == kIndexThreshold) {
    const std::vector<Value::Member>& members = f.value.members();
    for (size_t i = 0; i < members.size(); ++i) f.key_index.emplace(members[i].first, i);
    f.key_index.emplace(key, f.key_lines.size() - 1);
  }
}

bool Builder::Handle(const yaml_event_t& e) {
  switch (e.type) {
    case YAML_DOCUMENT_START_EVENT:
      // The loader cuts the stream at every marker, so a second document can
      // only be text on the line of a "..." marker.
      if (documents_++ > 0) {
        return Fail(ToMark(e.start_mark), "unexpected text after the document end marker \"...\"");
      }
      return true;
    case YAML_SCALAR_EVENT:
      return OnScalar(e);
    case YAML_ALIAS_EVENT:
      return OnAlias(e);
    case YAML_SEQUENCE_START_EVENT:
      return OnCollectionStart(ToMark(e.start_mark), Value::Type::kSequence,
                               e.data.sequence_start.anchor);
    case YAML_MAPPING_START_EVENT:
      return OnCollectionStart(ToMark(e.start_mark), Value::Type::kMapping,
                               e.data.mapping_start.anchor);
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT:
      return OnCollectionEnd();
    default:
      return true;
  }
}

bool Builder::OnScalar(const yaml_event_t& e) {
  const auto& s = e.data.scalar;
  Mark mark = ToMark(e.start_mark);
  if (s.length > limits_.max_scalar_bytes) {
    return Fail(mark, "scalar is larger than " + ByteSizeText(limits_.max_scalar_bytes));
  }
  std::string_view in(reinterpret_cast<const char*>(s.value), s.length);
  std::string_view tag = s.tag ? std::string_view(reinterpret_cast<const char*>(s.tag)) : "";
  bool plain = s.style == YAML_PLAIN_SCALAR_STYLE;
  Value::Type type;
  std::string text;
  std::string problem;
  if (!ResolveScalar(in, tag, plain, &type, &text, &problem)) return Fail(mark, problem);
  // Nearly every scalar is a key or a value with no anchor: those go straight
  // into the frame, with no Node made, moved and dropped for each (what Add
  // and SetKey would do). A scalar is a leaf: it adds a node and no height.
  if (s.anchor == nullptr && depth_ > 0) {
    Frame& f = frames_[depth_ - 1];
    if (f.value.is_mapping() && !f.has_key) {
      ++f.nodes;
      if (type == Value::Type::kNull) return Fail(mark, "a mapping key must not be null");
      return AcceptKey(f, std::move(text), mark, IsMergeKey(in, tag, plain));
    }
    if (f.value.is_sequence()) {
      // A streamed item goes the long way, through Add, to the ItemSink.
      if (!f.streams_items) {
        ++f.nodes;
        f.value.mutable_items().push_back(Value::Scalar(type, std::move(text), mark));
        return true;
      }
    } else if (!f.key_is_merge) {
      ++f.nodes;
      f.has_key = false;
      f.value.mutable_members().emplace_back(std::move(f.key),
                                             Value::Scalar(type, std::move(text), mark));
      return true;
    }
  }
  Value value = Value::Scalar(type, std::move(text), mark);
  Node node{&value};
  node.merge_key = IsMergeKey(in, tag, plain);
  return Add(node, s.anchor ? reinterpret_cast<const char*>(s.anchor) : "");
}

bool Builder::OnAlias(const yaml_event_t& e) {
  std::string name = reinterpret_cast<const char*>(e.data.alias.anchor);
  Mark mark = ToMark(e.start_mark);
  auto it = anchors_.find(name);
  if (it == anchors_.end())
    return Fail(mark, "alias *" + name + " has no anchor &" + name + " before it");
  const Anchor& anchor = it->second;
  if (!anchor.complete) return Fail(mark, "alias *" + name + " refers to a node that contains it");
  if (depth_ + anchor.height > limits_.max_depth) return Fail(mark, DepthMessage());
  if (!Charge(anchor.nodes, mark)) return false;
  Value copy = anchor.value;
  copy.set_mark(mark);
  Node node{&copy};
  node.nodes = anchor.nodes;
  node.height = anchor.height;
  return Add(node, "");
}

// Copies made for aliases are what a billion-laughs document multiplies.
bool Builder::Charge(size_t nodes, Mark mark) {
  expanded_ += nodes;
  if (expanded_ <= limits_.max_alias_expansion) return true;
  return Fail(mark, "aliases expand to more than " + std::to_string(limits_.max_alias_expansion) +
                        " nodes");
}

bool Builder::OnCollectionStart(Mark mark, Value::Type type, const yaml_char_t* anchor) {
  if (depth_ >= limits_.max_depth) return Fail(mark, DepthMessage());
  if (depth_ > 0) {
    const Frame& parent = frames_[depth_ - 1];
    if (parent.value.is_mapping() && !parent.has_key) {
      return Fail(mark, std::string("a mapping key must be a scalar, not a ") + TypeName(type));
    }
  }
  if (depth_ == frames_.size()) {
    // A Builder lives for one document: growing these one by one was an
    // allocation and a copy every few keys of every document.
    if (frames_.empty()) frames_.reserve(kFirstFrames);
    frames_.emplace_back().key_lines.reserve(kFirstKeys);
  }
  Frame& f = frames_[depth_++];
  f.value = Value(type);
  f.value.set_mark(mark);
  f.anchor.clear();
  f.nodes = 1;
  f.height = 1;
  f.has_key = false;
  f.key_lines.clear();
  if (!f.key_index.empty()) f.key_index.clear();  // clearing an empty one still sets its buckets
  f.merges.clear();
  f.streams_items = StreamsItems(type, anchor);
  if (anchor != nullptr) {
    f.anchor = reinterpret_cast<const char*>(anchor);
    anchors_[f.anchor] = Anchor{};  // any alias to it before it ends is a self reference
    ++open_anchors_;
  }
  return true;
}

// The sequence being opened is the root mapping's `items`, whose items are
// wanted one by one. An anchored one stays whole: an alias to it must copy it.
bool Builder::StreamsItems(Value::Type type, const yaml_char_t* anchor) const {
  if (items_ == nullptr || depth_ != 2 || type != Value::Type::kSequence || anchor != nullptr) {
    return false;
  }
  const Frame& root = frames_[0];
  return root.value.is_mapping() && root.has_key && !root.key_is_merge && root.key == "items";
}

bool Builder::OnCollectionEnd() {
  Frame& f = frames_[depth_ - 1];
  if (!f.merges.empty()) ApplyMerges(f);
  // f stays where it is (Add reaches only the frames below it), so its value
  // moves straight into the parent.
  Node node{&f.value};
  node.nodes = f.nodes;
  node.height = f.height;
  --depth_;
  if (!f.anchor.empty()) --open_anchors_;
  return Add(node, f.anchor);
}

bool Builder::Add(const Node& node, std::string_view anchor) {
  if (!anchor.empty()) {
    // Anchors inside anchors would copy the same nodes again and again.
    if (open_anchors_ > 0 && !Charge(node.nodes, node.value->mark())) return false;
    anchors_[std::string(anchor)] = Anchor{*node.value, node.nodes, node.height, true};
  }
  if (depth_ == 0) {
    root_ = std::move(*node.value);
    return true;
  }
  Frame& f = frames_[depth_ - 1];
  f.nodes += node.nodes;
  f.height = std::max(f.height, node.height + 1);
  if (f.streams_items) {
    // Freed when it has been seen, before the next item is read.
    Value item = std::move(*node.value);
    (*items_)(item);
    return true;
  }
  if (f.value.is_sequence()) {
    f.value.mutable_items().push_back(std::move(*node.value));
    return true;
  }
  if (!f.has_key) return SetKey(f, node);
  f.has_key = false;
  if (f.key_is_merge) return AddMergeValue(f, std::move(*node.value));
  f.value.mutable_members().emplace_back(std::move(f.key), std::move(*node.value));
  return true;
}

bool Builder::SetKey(Frame& f, const Node& node) {
  const Value& key = *node.value;
  if (!key.is_scalar()) {
    return Fail(key.mark(),
                std::string("a mapping key must be a scalar, not a ") + TypeName(key.type()));
  }
  if (key.is_null()) return Fail(key.mark(), "a mapping key must not be null");
  return AcceptKey(f, key.text(), key.mark(), node.merge_key);
}

bool Builder::AcceptKey(Frame& f, std::string text, Mark mark, bool merge) {
  f.has_key = true;
  f.key_is_merge = merge;
  if (merge) return true;
  size_t first = FindKey(f, text);
  if (first != kNotFound) {
    return Fail(mark, "duplicate key " + Quoted(text) + " (first at line " +
                          std::to_string(f.key_lines[first]) + ")");
  }
  f.key = std::move(text);
  IndexKey(f, f.key, mark.line);
  return true;
}

bool Builder::AddMergeValue(Frame& f, Value value) {
  bool ok = value.is_mapping();
  if (value.is_sequence()) {
    ok = std::all_of(value.items().begin(), value.items().end(),
                     [](const Value& v) { return v.is_mapping(); });
  }
  if (!ok) {
    return Fail(value.mark(),
                "the value of the merge key \"<<\" must be a mapping or a sequence of mappings");
  }
  f.merges.push_back(std::move(value));
  return true;
}

// YAML's merge: keys written in the mapping win over merged ones, and earlier
// merged mappings win over later ones.
void Builder::ApplyMerges(Frame& f) {
  auto merge_from = [&f](Value& source) {
    for (Value::Member& m : source.mutable_members()) {
      if (FindKey(f, m.first) != kNotFound) continue;
      IndexKey(f, m.first, m.second.mark().line);
      f.value.mutable_members().push_back(std::move(m));
    }
  };
  for (Value& merge : f.merges) {
    if (merge.is_mapping()) {
      merge_from(merge);
    } else {
      for (Value& item : merge.mutable_items()) merge_from(item);
    }
  }
  f.merges.clear();
}

}  // namespace

std::string ByteSizeText(size_t bytes) {
  constexpr size_t kMiB = size_t{1} << 20;
  if (bytes >= kMiB && bytes % kMiB == 0) return std::to_string(bytes / kMiB) + " MiB";
  if (bytes >= 1024 && bytes % 1024 == 0) return std::to_string(bytes / 1024) + " KiB";
  return std::to_string(bytes) + " bytes";
}

bool ParseYamlDocument(std::string_view text, uint32_t first_line, const LoadLimits& limits,
                       const ItemSink* items, Value* root, Error* error) {
  yaml_parser_t parser;
  if (!yaml_parser_initialize(&parser)) {
    error->mark = {first_line + 1, 0};
    error->message = "out of memory";
    return false;
  }
  yaml_parser_set_input_string(&parser, reinterpret_cast<const unsigned char*>(text.data()),
                               text.size());
  Builder builder(limits, first_line, items);
  bool ok = true;
  for (bool done = false; ok && !done;) {
    yaml_event_t event;
    if (!yaml_parser_parse(&parser, &event)) {
      Error e = LibyamlError(parser, text, first_line);
      error->mark = e.mark;
      error->message = std::move(e.message);
      ok = false;
      break;
    }
    done = event.type == YAML_STREAM_END_EVENT;
    ok = builder.Handle(event);
    yaml_event_delete(&event);
    if (!ok) {
      error->mark = builder.error().mark;
      error->message = builder.error().message;
    }
  }
  yaml_parser_delete(&parser);
  if (ok) *root = builder.TakeRoot();
  return ok;
}

}  // namespace gpulint
