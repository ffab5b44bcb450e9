// The workload table's dotted paths ("spec.tasks.*.template") followed in
// CEL, as engine/base/path.h's ForEachAtPath follows them. Internal to
// engine/vap.
#ifndef GPULINT_ENGINE_VAP_CEL_PATHS_H_
#define GPULINT_ENGINE_VAP_CEL_PATHS_H_

#include <string>
#include <string_view>
#include <vector>

#include "engine/vap/cel_text.h"

namespace gpulint::cel {

// A path's segments. "*" is every item of a list or every value of a map;
// "#", which only the generator writes, every item of a list and nothing of
// a map (a `containerLists` path's items).
using Segments = std::vector<std::string>;
Segments Split(std::string_view path);
bool IsWild(const std::string& segment);
size_t Wildcards(const Segments& segments);
Segments Slice(const Segments& segments, size_t from, size_t to);

// A walk with no wildcard: the condition that every field is there, the
// value reached and its path (CEL expressions).
struct Walk {
  std::string cond, value;
  PathExpr path;
};
Walk Descend(std::string value, PathExpr path, const Segments& segments);

// The values at `segments` below `root` (whose path is `path`), as a CEL list
// of {'v': value, 'p': path}: a list's items in order, a map's values in the
// order of their keys.
std::string Expand(const std::string& root, const PathExpr& path, const Segments& segments,
                   Names* names);

}  // namespace gpulint::cel

#endif  // GPULINT_ENGINE_VAP_CEL_PATHS_H_
