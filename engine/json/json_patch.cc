// RFC 6902 JSONPatch on the engine's Value tree: writing a patch as JSON, and
// applying one (what `gpulint fix` does to files, and what tests do to check
// that a patch means what the webhook says it means).
#include "engine/json/json_patch.h"

#include <cstddef>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/base/path.h"

namespace gpulint {
namespace {

// The pointer of the first `n` segments, for messages: "/spec/containers", or
// "the document root" for none.
std::string Where(const std::vector<std::string>& segments, size_t n) {
  if (n == 0) return "the document root";
  std::string out;
  for (size_t i = 0; i < n; ++i) out += "/" + EscapePointerSegment(segments[i]);
  return out;
}

// An array index as RFC 6901 writes it: "0" or digits without a leading zero.
bool ParseIndex(std::string_view s, size_t* out) {
  if (s.empty() || s.size() > 18 || (s.size() > 1 && s[0] == '0')) return false;
  size_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<size_t>(c - '0');
  }
  *out = v;
  return true;
}

// Resolves the index `segment` of `array` (at segments[0..depth)). `allow_end`
// accepts "-" and size() (where add inserts).
bool ResolveIndex(const Value& array, const std::vector<std::string>& segments, size_t depth,
                  bool allow_end, size_t* index, std::string* err) {
  const std::string& s = segments[depth];
  size_t size = array.items().size();
  if (s == "-") {
    if (allow_end) {
      *index = size;
      return true;
    }
    *err = "index \"-\" (past the end) in " + Where(segments, depth) + " is only valid for add";
    return false;
  }
  if (!ParseIndex(s, index)) {
    *err = "invalid array index \"" + s + "\" in " + Where(segments, depth);
    return false;
  }
  if (*index > size || (*index == size && !allow_end)) {
    *err = "index out of range: " + s + " in " + Where(segments, depth) + " (" +
           std::to_string(size) + (size == 1 ? " item)" : " items)");
    return false;
  }
  return true;
}

// The value at segments[0..depth) (depth > 0 steps from `root`).
Value* Descend(Value* root, const std::vector<std::string>& segments, size_t depth,
               std::string* err) {
  Value* at = root;
  for (size_t i = 0; i < depth; ++i) {
    if (at->is_mapping()) {
      Value* child = nullptr;
      for (Value::Member& m : at->mutable_members())
        if (m.first == segments[i]) child = &m.second;
      if (!child) {
        *err = "path not found: no member \"" + segments[i] + "\" in " + Where(segments, i);
        return nullptr;
      }
      at = child;
    } else if (at->is_sequence()) {
      size_t index = 0;
      if (!ResolveIndex(*at, segments, i, false, &index, err)) return nullptr;
      at = &at->mutable_items()[index];
    } else {
      *err = "path not found: " + Where(segments, i) + " is a scalar (" + TypeName(at->type()) +
             "), not an object or array";
      return nullptr;
    }
  }
  return at;
}

bool NumberText(const Value& v) {
  return v.type() == Value::Type::kInt || v.type() == Value::Type::kFloat;
}

// JSON equality (RFC 6902 "test"): members in any order, numbers by value.
bool JsonEqual(const Value& a, const Value& b) {
  if (NumberText(a) && NumberText(b)) {
    if (a.text() == b.text()) return true;
    // "1" and "1.0" are one number; the test op is the only place that
    // compares numbers, and only for equality.
    return std::strtold(a.text().c_str(), nullptr) == std::strtold(b.text().c_str(), nullptr);
  }
  if (a.type() != b.type()) return false;
  if (a.is_sequence()) {
    if (a.items().size() != b.items().size()) return false;
    for (size_t i = 0; i < a.items().size(); ++i)
      if (!JsonEqual(a.items()[i], b.items()[i])) return false;
    return true;
  }
  if (a.is_mapping()) {
    if (a.members().size() != b.members().size()) return false;
    for (const Value::Member& m : a.members()) {
      const Value* other = b.Find(m.first);
      if (!other || !JsonEqual(m.second, *other)) return false;
    }
    return true;
  }
  return a.is_null() || a.text() == b.text();
}

enum class OpKind { kAdd, kRemove, kReplace, kTest };

bool KindOf(const std::string& op, OpKind* kind) {
  static const std::pair<const char*, OpKind> kKinds[] = {{"add", OpKind::kAdd},
                                                          {"remove", OpKind::kRemove},
                                                          {"replace", OpKind::kReplace},
                                                          {"test", OpKind::kTest}};
  for (const auto& [name, k] : kKinds) {
    if (op == name) {
      *kind = k;
      return true;
    }
  }
  return false;
}

// Does add and remove on the last segment inside `parent`; for replace, test
// and an add onto an existing member, sets *target to the value they act on.
bool ActInParent(OpKind kind, const Value& value, const std::vector<std::string>& segments,
                 Value* parent, Value** target, std::string* err) {
  size_t last = segments.size() - 1;
  const std::string& key = segments[last];
  if (parent->is_mapping()) {
    std::vector<Value::Member>& members = parent->mutable_members();
    for (auto it = members.begin(); it != members.end(); ++it) {
      if (it->first != key) continue;
      if (kind == OpKind::kRemove) {
        members.erase(it);
      } else {
        *target = &it->second;
      }
      return true;
    }
    if (kind != OpKind::kAdd) {
      *err = "path not found: no member \"" + key + "\" in " + Where(segments, last);
      return false;
    }
    members.emplace_back(key, value);
    return true;
  }
  if (parent->is_sequence()) {
    size_t index = 0;
    if (!ResolveIndex(*parent, segments, last, kind == OpKind::kAdd, &index, err)) return false;
    std::vector<Value>& items = parent->mutable_items();
    auto at = items.begin() + static_cast<ptrdiff_t>(index);
    if (kind == OpKind::kAdd) {
      items.insert(at, value);
    } else if (kind == OpKind::kRemove) {
      items.erase(at);
    } else {
      *target = &*at;
    }
    return true;
  }
  *err = "path not found: " + Where(segments, last) + " is a scalar (" + TypeName(parent->type()) +
         "), not an object or array";
  return false;
}

bool ApplyOne(const PatchOp& op, Value* doc, std::string* err) {
  OpKind kind;
  if (!KindOf(op.op, &kind)) {
    *err = "unknown op \"" + op.op + "\" (supported: add, remove, replace, test)";
    return false;
  }
  std::vector<std::string> segments;
  if (!SplitPointer(op.path, &segments, err)) return false;
  Value* target = doc;
  if (segments.empty()) {
    if (kind == OpKind::kRemove) {
      *err = "cannot remove the document root";
      return false;
    }
  } else {
    Value* parent = Descend(doc, segments, segments.size() - 1, err);
    target = nullptr;
    if (!parent || !ActInParent(kind, op.value, segments, parent, &target, err)) return false;
    if (!target) return true;  // added or removed
  }
  if (kind != OpKind::kTest) {
    *target = op.value;  // add onto an existing member replaces it, as replace does
    return true;
  }
  if (JsonEqual(*target, op.value)) return true;
  *err = "test failed: " +
         (segments.empty() ? std::string("the document") : Where(segments, segments.size())) +
         " is " + ToJson(*target) + ", expected " + ToJson(op.value);
  return false;
}

}  // namespace

std::string PatchToJson(const std::vector<PatchOp>& ops) {
  std::string out = "[";
  for (const PatchOp& op : ops) {
    if (out.size() > 1) out += ',';
    out += "{\"op\":";
    AppendJsonString(op.op, &out);
    out += ",\"path\":";
    AppendJsonString(op.path, &out);
    if (op.op != "remove") {
      out += ",\"value\":";
      out += ToJson(op.value);
    }
    out += '}';
  }
  out += ']';
  return out;
}

bool ApplyPatch(const std::vector<PatchOp>& ops, Value* doc, Error* error) {
  // Applied to a copy so that a failing op leaves the document as it was.
  Value result = *doc;
  for (size_t i = 0; i < ops.size(); ++i) {
    std::string err;
    if (!ApplyOne(ops[i], &result, &err)) {
      if (error) {
        *error = Error();
        error->message =
            "ops[" + std::to_string(i) + "] (" + ops[i].op + " \"" + ops[i].path + "\"): " + err;
      }
      return false;
    }
  }
  *doc = std::move(result);
  return true;
}

}  // namespace gpulint
