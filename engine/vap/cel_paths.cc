#include "engine/vap/cel_paths.h"

#include <cstddef>

namespace gpulint::cel {
namespace {

std::string Pair(std::string_view value, std::string_view path) {
  return "{'v': dyn(" + std::string(value) + "), 'p': dyn(" + std::string(path) + ")}";
}

}  // namespace

Segments Split(std::string_view path) {
  Segments out;
  if (path.empty()) return out;
  size_t start = 0;
  while (true) {
    size_t dot = path.find('.', start);
    out.emplace_back(path.substr(start, dot == std::string_view::npos ? dot : dot - start));
    if (dot == std::string_view::npos) return out;
    start = dot + 1;
  }
}

bool IsWild(const std::string& s) { return s == "*" || s == "#"; }

size_t Wildcards(const Segments& segs) {
  size_t n = 0;
  for (const std::string& s : segs) n += IsWild(s);
  return n;
}

Segments Slice(const Segments& segs, size_t from, size_t to) {
  return Segments(segs.begin() + static_cast<std::ptrdiff_t>(from),
                  segs.begin() + static_cast<std::ptrdiff_t>(to));
}

Walk Descend(std::string value, PathExpr path, const Segments& segs) {
  Walk w{"", std::move(value), std::move(path)};
  for (const std::string& seg : segs) {
    w.cond += (w.cond.empty() ? "" : " && ") + HasField(w.value, seg);
    w.value = Field(w.value, seg);
    w.path = w.path.Key(seg);
  }
  if (w.cond.empty()) w.cond = "true";
  return w;
}

std::string Expand(const std::string& root, const PathExpr& path, const Segments& segs,
                   Names* names) {
  size_t at = 0;
  while (at < segs.size() && !IsWild(segs[at])) ++at;
  Walk pre = Descend(root, path, Slice(segs, 0, at));
  if (at == segs.size())
    return "(" + pre.cond + " ? [" + Pair(pre.value, pre.path.Cel()) + "] : [])";
  Segments rest = Slice(segs, at + 1, segs.size());
  std::string k = names->Next("k"), v = names->Next("v");
  std::string list = pre.value + ".transformList(" + k + ", " + v + ", " +
                     Expand(v, pre.path.Index(k), rest, names) + ").flatten()";
  // A map's values in the order of their keys: the API server's maps have
  // none of their own.
  std::string map = pre.value + ".map(" + k + ", " + k + ").sort().map(" + k + ", " +
                    Let(v, pre.value + "[" + k + "]", Expand(v, pre.path.KeyExpr(k), rest, names)) +
                    ").flatten()";
  return "(" + pre.cond + " ? (type(" + pre.value + ") == list ? " + list + " : " +
         (segs[at] == "*" ? "type(" + pre.value + ") == map ? " + map + " : " : "") + "[]) : [])";
}

}  // namespace gpulint::cel
