// The version gpulint reports (`gpulint version`, SARIF's tool.driver.version).
#ifndef GPULINT_LINT_OUTPUT_VERSION_H_
#define GPULINT_LINT_OUTPUT_VERSION_H_

#include <string_view>

#ifndef GPULINT_VERSION
#define GPULINT_VERSION "0.1.0"
#endif

namespace gpulint {
inline constexpr std::string_view kVersion = GPULINT_VERSION;
}  // namespace gpulint

#endif  // GPULINT_LINT_OUTPUT_VERSION_H_
