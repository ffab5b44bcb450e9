// Unified diffs, as `diff -u` prints them, for `gpulint fix --diff`: a review
// shows what fix would change without the whole file.
#ifndef GPULINT_LINT_OUTPUT_UNIFIED_DIFF_H_
#define GPULINT_LINT_OUTPUT_UNIFIED_DIFF_H_

#include <string>
#include <string_view>

namespace gpulint {

// The diff from `before` to `after` with "--- a/PATH" and "+++ b/PATH"
// headers and hunks of three lines of context; "" when the texts are equal. A
// last line without a newline is marked "\ No newline at end of file". Lines
// are matched by Myers' algorithm, so a diff is as short as can be.
std::string UnifiedDiff(std::string_view before, std::string_view after, std::string_view path);

}  // namespace gpulint

#endif  // GPULINT_LINT_OUTPUT_UNIFIED_DIFF_H_
