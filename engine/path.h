// Field paths: the workload table's template paths ("spec.tasks.*.template")
// and the paths findings report ("spec.containers[0].resources.limits[\"nvidia.com/gpu\"]").
#ifndef GPULINT_ENGINE_PATH_H_
#define GPULINT_ENGINE_PATH_H_

#include <functional>
#include <string>
#include <string_view>

#include "engine/value.h"

namespace gpulint {

// path + "." + key, or path + "[\"key\"]" when the key has characters that
// would make the dotted form ambiguous ('.', '/', '[', '"', ' ').
std::string AppendKey(std::string_view path, std::string_view key);
// "a" + "b" -> "a.b"; "" + "b" -> "b"; "a" + "" -> "a".
std::string JoinPath(std::string_view path, std::string_view child);

// Calls fn for every value at a dotted template path, where "*" stands for
// every value of a mapping or every item of a sequence; "" is `root` itself.
// The second argument is the concrete path of the value found.
void ForEachAtPath(const Value& root, std::string_view pattern,
                   const std::function<void(const Value&, const std::string&)>& fn);

}  // namespace gpulint

#endif  // GPULINT_ENGINE_PATH_H_
