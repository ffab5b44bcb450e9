// Levenshtein distance, for "did you mean" suggestions (policy fields, rule names).
#ifndef GPULINT_ENGINE_BASE_EDIT_DISTANCE_H_
#define GPULINT_ENGINE_BASE_EDIT_DISTANCE_H_

#include <cstddef>
#include <string_view>

namespace gpulint {

// Insertions, deletions and substitutions that turn `a` into `b`.
size_t EditDistance(std::string_view a, std::string_view b);

}  // namespace gpulint

#endif  // GPULINT_ENGINE_BASE_EDIT_DISTANCE_H_
