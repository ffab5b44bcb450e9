// Field paths: the workload table's template paths ("spec.tasks.*.template")
// and the paths findings report ("spec.containers[0].resources.limits[\"nvidia.com/gpu\"]").
#ifndef GPULINT_ENGINE_BASE_PATH_H_
#define GPULINT_ENGINE_BASE_PATH_H_

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/value.h"

namespace gpulint {

// The characters that make a key ambiguous in the dotted form.
inline constexpr std::string_view kBracketedKeyChars = "./[]\" ~";
// path + "." + key, or path + "[\"key\"]" when the key is empty or has one of
// kBracketedKeyChars.
std::string AppendKey(std::string_view path, std::string_view key);
// "a" + "b" -> "a.b"; "" + "b" -> "b"; "a" + "" -> "a".
std::string JoinPath(std::string_view path, std::string_view child);

// One JSON pointer segment: "~" as "~0", "/" as "~1" (RFC 6901).
std::string EscapePointerSegment(std::string_view segment);
// Splits a JSON pointer into its unescaped segments: "" is the whole document
// and has none. False, with *error when given, when `pointer` is not one (no
// leading "/", a "~" that is not "~0" or "~1").
bool SplitPointer(std::string_view pointer, std::vector<std::string>* segments,
                  std::string* error = nullptr);

// Where a value sits in an object, in both forms: the dotted path findings
// report and the JSON pointer patches use (the dotted form quotes odd keys in a
// way a pointer cannot be read back from).
struct FieldRef {
  std::string path;     // spec.tasks[0].template
  std::string pointer;  // /spec/tasks/0/template
};

// Calls fn for every value at a dotted template path, where "*" stands for
// every value of a mapping or every item of a sequence; "" is `root` itself.
void ForEachAtPath(const Value& root, std::string_view pattern,
                   const std::function<void(const Value&, const FieldRef&)>& fn);

}  // namespace gpulint

#endif  // GPULINT_ENGINE_BASE_PATH_H_
