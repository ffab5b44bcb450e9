#include "engine/json/json_tree_builder.h"

#include <algorithm>
#include <iterator>

#include "engine/base/path.h"

namespace gpulint {
namespace {

// Objects with more members than this find duplicate keys through an index.
constexpr size_t kIndexThreshold = 16;
// An entry of that index, besides its key's text: the node of an
// unordered_map<std::string, size_t> (next pointer, key, value, hash) and its
// bucket.
constexpr size_t kIndexEntryBytes = sizeof(void*) + sizeof(std::string) + sizeof(size_t) +
                                    sizeof(size_t) + sizeof(void*);

// Bytes a string holds outside itself: none while its text fits inside.
size_t HeapBytes(const std::string& s) {
  const char* data = s.data();
  const char* self = reinterpret_cast<const char*>(&s);
  bool inside = data >= self && data < self + sizeof(s);
  return inside ? 0 : s.capacity() + 1;
}

}  // namespace

std::string JsonTreeBuilder::Path() const {
  std::string path;
  for (const Frame& f : stack_) {
    if (f.type == Value::Type::kMapping && f.count == 0) break;  // no key read yet
    path += '/';
    path += f.type == Value::Type::kMapping
                ? EscapePointerSegment(members_[f.start + f.count - 1].first)
                : std::to_string(f.count);
  }
  return path;
}

bool JsonTreeBuilder::OverBudget() {
  over_budget_ = true;
  return Fail("the tree would take more than " + std::to_string(max_tree_bytes_) +
              " bytes, at " + (stack_.empty() ? std::string("/") : Path()));
}

// Room for one more on a stack: grown, doubling, only once the budget allows.
template <typename T>
bool JsonTreeBuilder::Room(std::vector<T>* stack) {
  if (stack->size() < stack->capacity()) return true;
  size_t grown = std::max<size_t>(16, 2 * stack->capacity());
  if (!Spend((grown - stack->capacity()) * sizeof(T))) return false;
  stack->reserve(grown);
  return true;
}

bool JsonTreeBuilder::Open(Value::Type type) {
  if (stack_.size() >= max_depth_) {
    return Fail("nesting is deeper than " + std::to_string(max_depth_) + " levels");
  }
  Frame& f = stack_.emplace_back();
  f.type = type;
  f.start = type == Value::Type::kMapping ? members_.size() : items_.size();
  return true;
}

bool JsonTreeBuilder::StreamsItem() const {
  if (!items_sink_ || stack_.size() != 2 || stack_[1].type != Value::Type::kSequence) return false;
  const Frame& root = stack_[0];
  return root.type == Value::Type::kMapping &&
         members_[root.start + root.count - 1].first == "items";
}

bool JsonTreeBuilder::Close() {
  Frame& f = stack_.back();
  bool mapping = f.type == Value::Type::kMapping;
  // The container's own vector, allocated at its size (no items when streamed).
  size_t n = mapping ? f.count : items_.size() - f.start;
  if (!Spend(n * (mapping ? sizeof(Value::Member) : sizeof(Value)))) return false;
  Value v(f.type);
  if (mapping) {
    auto first = members_.begin() + static_cast<ptrdiff_t>(f.start);
    std::vector<Value::Member>& members = v.mutable_members();
    members.reserve(n);
    members.insert(members.end(), std::make_move_iterator(first),
                   std::make_move_iterator(members_.end()));
    members_.erase(first, members_.end());
  } else {
    auto first = items_.begin() + static_cast<ptrdiff_t>(f.start);
    std::vector<Value>& items = v.mutable_items();
    items.reserve(n);
    items.insert(items.end(), std::make_move_iterator(first),
                 std::make_move_iterator(items_.end()));
    items_.erase(first, items_.end());
  }
  stack_.pop_back();
  return Add(std::move(v));
}

// A value's own size is in the stack that holds it until its container
// closes (the stacks are counted at their capacity), its text here.
bool JsonTreeBuilder::Add(Value v) {
  if (max_tree_bytes_ != 0 && v.is_scalar() && !Spend(HeapBytes(v.text()))) return false;
  if (stack_.empty()) {
    root_ = std::move(v);
    return true;
  }
  Frame& f = stack_.back();
  if (f.type == Value::Type::kSequence) {
    if (StreamsItem()) {
      items_sink_(v);  // counted, for the paths of errors, but not kept
    } else {
      if (!Room(&items_)) return false;
      items_.push_back(std::move(v));
    }
    ++f.count;
  } else {
    members_.back().second = std::move(v);  // Key put the member there
  }
  return true;
}

bool JsonTreeBuilder::Key(std::string key) {
  Frame& f = stack_.back();
  bool duplicate = false;
  if (!f.index.empty()) {
    duplicate = !f.index.emplace(key, f.count).second;
  } else {
    for (size_t i = f.start; i < f.start + f.count; ++i)
      duplicate = duplicate || members_[i].first == key;
    if (!duplicate && f.count + 1 == kIndexThreshold) {
      for (size_t i = 0; i < f.count; ++i) f.index.emplace(members_[f.start + i].first, i);
      f.index.emplace(key, f.count);
    }
  }
  if (!duplicate && !Room(&members_)) return false;
  members_.emplace_back(std::move(key), Value());
  ++f.count;
  if (duplicate) {
    std::string quoted;
    AppendJsonString(members_.back().first, &quoted);
    return Fail("duplicate key " + quoted + " at " + Path());
  }
  if (max_tree_bytes_ == 0) return true;
  size_t bytes = HeapBytes(members_.back().first);
  if (!f.index.empty()) {
    // The index keeps a copy of each key: of every key so far when it was
    // made just now, else of this one.
    size_t first = f.count == kIndexThreshold ? f.start : f.start + f.count - 1;
    for (size_t i = first; i < f.start + f.count; ++i)
      bytes += kIndexEntryBytes + HeapBytes(members_[i].first);
  }
  return Spend(bytes);
}

}  // namespace gpulint
