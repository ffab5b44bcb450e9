#include "engine/base/path.h"

#include <vector>

namespace gpulint {
namespace {

std::vector<std::string_view> SplitDots(std::string_view pattern) {
  std::vector<std::string_view> parts;
  while (!pattern.empty()) {
    size_t dot = pattern.find('.');
    parts.push_back(pattern.substr(0, dot));
    if (dot == std::string_view::npos) break;
    pattern.remove_prefix(dot + 1);
  }
  return parts;
}

FieldRef Member(const FieldRef& at, std::string_view key) {
  return {AppendKey(at.path, key), at.pointer + "/" + EscapePointerSegment(key)};
}

FieldRef Item(const FieldRef& at, size_t index) {
  std::string i = std::to_string(index);
  return {at.path + "[" + i + "]", at.pointer + "/" + i};
}

void Walk(const Value& node, const std::vector<std::string_view>& parts, size_t i,
          const FieldRef& at, const std::function<void(const Value&, const FieldRef&)>& fn) {
  if (i == parts.size()) {
    fn(node, at);
    return;
  }
  if (parts[i] == "*") {
    if (node.is_mapping()) {
      for (const auto& [key, child] : node.members())
        Walk(child, parts, i + 1, Member(at, key), fn);
    } else if (node.is_sequence()) {
      for (size_t k = 0; k < node.items().size(); ++k)
        Walk(node.items()[k], parts, i + 1, Item(at, k), fn);
    }
    return;
  }
  if (const Value* child = node.Find(parts[i]))
    Walk(*child, parts, i + 1, Member(at, parts[i]), fn);
}

}  // namespace

std::string AppendKey(std::string_view path, std::string_view key) {
  bool plain = !key.empty() && key.find_first_of(kBracketedKeyChars) == std::string_view::npos;
  std::string out(path);
  if (plain) {
    if (!out.empty()) out += '.';
    out += key;
  } else {
    out += "[\"";
    out += key;
    out += "\"]";
  }
  return out;
}

std::string JoinPath(std::string_view path, std::string_view child) {
  if (path.empty()) return std::string(child);
  if (child.empty()) return std::string(path);
  std::string out(path);
  out += '.';
  out += child;
  return out;
}

std::string EscapePointerSegment(std::string_view segment) {
  std::string out;
  out.reserve(segment.size());
  for (char c : segment) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

void ForEachAtPath(const Value& root, std::string_view pattern,
                   const std::function<void(const Value&, const FieldRef&)>& fn) {
  Walk(root, SplitDots(pattern), 0, FieldRef{}, fn);
}

bool SplitPointer(std::string_view path, std::vector<std::string>* out, std::string* err) {
  out->clear();
  if (path.empty()) return true;
  if (path[0] != '/') {
    if (err) *err = "a JSON pointer must be empty or start with \"/\"";
    return false;
  }
  std::string segment;
  for (size_t i = 1; i <= path.size(); ++i) {
    if (i == path.size() || path[i] == '/') {
      out->push_back(std::move(segment));
      segment.clear();
    } else if (path[i] == '~') {
      char next = i + 1 < path.size() ? path[i + 1] : '\0';
      if (next != '0' && next != '1') {
        if (err)
          *err = "\"~" + std::string(next ? 1 : 0, next) +
                 "\" is not an escape of a JSON pointer (\"~0\" is \"~\", \"~1\" is \"/\")";
        return false;
      }
      segment += next == '0' ? '~' : '/';
      ++i;
    } else {
      segment += path[i];
    }
  }
  return true;
}

}  // namespace gpulint
