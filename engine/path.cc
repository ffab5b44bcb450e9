#include "engine/path.h"

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

void Walk(const Value& node, const std::vector<std::string_view>& parts, size_t i,
          const std::string& at, const std::function<void(const Value&, const std::string&)>& fn) {
  if (i == parts.size()) {
    fn(node, at);
    return;
  }
  if (parts[i] == "*") {
    if (node.is_mapping()) {
      for (const auto& [key, child] : node.members())
        Walk(child, parts, i + 1, AppendKey(at, key), fn);
    } else if (node.is_sequence()) {
      for (size_t k = 0; k < node.items().size(); ++k)
        Walk(node.items()[k], parts, i + 1, at + "[" + std::to_string(k) + "]", fn);
    }
    return;
  }
  if (const Value* child = node.Find(parts[i]))
    Walk(*child, parts, i + 1, AppendKey(at, parts[i]), fn);
}

}  // namespace

std::string AppendKey(std::string_view path, std::string_view key) {
  bool plain = !key.empty() && key.find_first_of("./[]\" ~") == std::string_view::npos;
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

void ForEachAtPath(const Value& root, std::string_view pattern,
                   const std::function<void(const Value&, const std::string&)>& fn) {
  Walk(root, SplitDots(pattern), 0, "", fn);
}

}  // namespace gpulint
