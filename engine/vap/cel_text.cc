#include "engine/vap/cel_text.h"

#include <cstdio>

#include "engine/base/path.h"

namespace gpulint::cel {
namespace {

bool IsNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// A key AppendKey writes without brackets, as an RE2 pattern.
std::string PlainKeyPattern() {
  std::string out = "^[^";
  for (char c : kBracketedKeyChars) {
    if (c == '[' || c == ']' || c == '\\' || c == '^' || c == '-') out += '\\';
    out += c;
  }
  return out + "]+$";
}

}  // namespace

std::string Str(std::string_view text) {
  std::string out = "'";
  for (char c : text) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '\'':
        out += "\\'";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\x%02x", static_cast<unsigned char>(c));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out + "'";
}

std::string StrList(const std::vector<std::string>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + Str(items[i]);
  return out + "]";
}

std::string Fill(std::string_view text,
                 std::initializer_list<std::pair<std::string_view, std::string>> values) {
  std::string out;
  for (size_t i = 0; i < text.size();) {
    if (text[i] != '$') {
      out += text[i++];
      continue;
    }
    size_t end = i + 1;
    while (end < text.size() && IsNameChar(text[end])) ++end;
    std::string_view name = text.substr(i + 1, end - i - 1);
    const std::string* value = nullptr;
    for (const auto& [n, v] : values)
      if (n == name) value = &v;
    out += value ? *value : std::string(text.substr(i, end - i));
    i = end;
  }
  return out;
}

std::string Let(std::string_view var, std::string_view value, std::string_view body) {
  return "[" + std::string(value) + "].map(" + std::string(var) + ", " + std::string(body) + ")[0]";
}

std::string Names::Next(std::string_view stem) {
  return std::string(stem) + std::to_string(++next_);
}

PathExpr PathExpr::Literal(std::string_view path) {
  PathExpr p;
  p.suffix_ = path.empty() ? "" : "." + std::string(path);
  return p;
}

PathExpr PathExpr::Key(std::string_view key) const {
  PathExpr p = *this;
  std::string k = AppendKey("", key);
  p.suffix_ += k.front() == '[' ? k : "." + k;
  return p;
}

PathExpr PathExpr::Child(std::string_view child) const {
  PathExpr p = *this;
  if (!child.empty()) p.suffix_ += "." + std::string(child);
  return p;
}

PathExpr PathExpr::KeyExpr(std::string_view key_expr) const {
  return PathExpr(
      Fill("($k.matches(r'$re') ? ($p == '' ? $k : $p + '.' + $k) : $p + '[\"' + $k + '\"]')",
           {{"p", Cel()}, {"k", std::string(key_expr)}, {"re", PlainKeyPattern()}}));
}

PathExpr PathExpr::Index(std::string_view index_expr) const {
  return PathExpr(Cel() + " + '[' + string(" + std::string(index_expr) + ") + ']'");
}

std::string PathExpr::Cel() const {
  // An empty path takes a key or child with no '.' before it.
  std::string alone = suffix_.rfind('.', 0) == 0 ? suffix_.substr(1) : suffix_;
  if (base_.empty()) return Str(alone);
  if (suffix_.empty()) return base_;
  return "(" + base_ + " == '' ? " + Str(alone) + " : " + base_ + " + " + Str(suffix_) + ")";
}

std::string Field(std::string_view map_expr, std::string_view key) {
  return std::string(map_expr) + "[" + Str(key) + "]";
}

std::string HasField(std::string_view expr, std::string_view key) {
  return "(type(" + std::string(expr) + ") == map && " + Str(key) + " in " + std::string(expr) +
         ")";
}

std::string StringAt(std::string_view map_expr, std::string_view key) {
  std::string f = Field(map_expr, key);
  return "(" + Str(key) + " in " + std::string(map_expr) + " && type(" + f + ") == string ? " + f +
         " : '')";
}

std::string ScalarText(std::string_view expr) {
  return Fill(
      "(type($e) == string ? $e : type($e) == bool || type($e) == int || type($e) == uint || "
      "type($e) == double ? string($e) : '')",
      {{"e", std::string(expr)}});
}

}  // namespace gpulint::cel
