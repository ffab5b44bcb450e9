#include "engine/json/json_tree_builder.h"

#include <iterator>

#include "engine/base/path.h"

namespace gpulint {
namespace {

// Objects with more members than this find duplicate keys through an index.
constexpr size_t kIndexThreshold = 16;

}  // namespace

std::string JsonTreeBuilder::Path() const {
  std::string path;
  for (const Frame& f : stack_) {
    path += '/';
    path += f.type == Value::Type::kMapping
                ? EscapePointerSegment(members_[f.start + f.count - 1].first)
                : std::to_string(f.count);
  }
  return path;
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
  Value v(f.type);
  if (f.type == Value::Type::kMapping) {
    auto first = members_.begin() + static_cast<ptrdiff_t>(f.start);
    std::vector<Value::Member>& members = v.mutable_members();
    members.reserve(f.count);
    members.insert(members.end(), std::make_move_iterator(first),
                   std::make_move_iterator(members_.end()));
    members_.erase(first, members_.end());
  } else {
    auto first = items_.begin() + static_cast<ptrdiff_t>(f.start);
    std::vector<Value>& items = v.mutable_items();
    items.reserve(static_cast<size_t>(items_.end() - first));  // none when streamed
    items.insert(items.end(), std::make_move_iterator(first),
                 std::make_move_iterator(items_.end()));
    items_.erase(first, items_.end());
  }
  stack_.pop_back();
  return Add(std::move(v));
}

bool JsonTreeBuilder::Add(Value v) {
  if (stack_.empty()) {
    root_ = std::move(v);
    return true;
  }
  Frame& f = stack_.back();
  if (f.type == Value::Type::kSequence) {
    if (StreamsItem()) {
      items_sink_(v);  // counted, for the paths of errors, but not kept
    } else {
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
  members_.emplace_back(std::move(key), Value());
  ++f.count;
  if (duplicate) {
    std::string quoted;
    AppendJsonString(members_.back().first, &quoted);
    return Fail("duplicate key " + quoted + " at " + Path());
  }
  return true;
}

}  // namespace gpulint
