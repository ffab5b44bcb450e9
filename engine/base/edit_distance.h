// "Did you mean": the one rule for suggesting a name in place of a misspelt one
// (policy fields, rule names, resource names).
#ifndef GPULINT_ENGINE_BASE_EDIT_DISTANCE_H_
#define GPULINT_ENGINE_BASE_EDIT_DISTANCE_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace gpulint {

// Insertions, deletions and substitutions that turn `a` into `b`.
size_t EditDistance(std::string_view a, std::string_view b);

// The candidate `word` is most likely a misspelling of: one with the same
// letters ignoring case, else the nearest within two edits (the first of
// equals); "" when none is that close. Not more, even for long words: names
// that share a long prefix are not typos of each other (nvidia.com/gpumem is
// not nvidia.com/gpu, gpu.intel.com/i915 is not gpu.intel.com/xe), and a wrong
// suggestion is worse than none.
std::string ClosestWord(std::string_view word, const std::vector<std::string_view>& candidates);

}  // namespace gpulint

#endif  // GPULINT_ENGINE_BASE_EDIT_DISTANCE_H_
