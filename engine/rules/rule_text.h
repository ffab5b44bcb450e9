// The words a rule and its CEL twin (engine/vap/cel_rules_*.cc) both say: one
// constant each, so that gpulint's findings and the API server's denials
// cannot drift apart. A rule exported as CEL takes the fixed parts of its
// messages from here; the parts between them (a container's label, a
// quantity) are computed on each side.
#ifndef GPULINT_ENGINE_RULES_RULE_TEXT_H_
#define GPULINT_ENGINE_RULES_RULE_TEXT_H_

#include <string_view>

namespace gpulint::rule_text {

// gpu-request-limit-mismatch: CONTAINER: RESOURCE is requested (N) with no limit; ...
inline constexpr std::string_view kRequestWithoutLimit =
    ") with no limit; extended resources need limits equal to requests, the API server rejects "
    "this pod";
// gpu-request-limit-mismatch: CONTAINER: RESOURCE requests N but limits M; ...
inline constexpr std::string_view kRequestNotLimit =
    "; extended resources cannot be overcommitted, the API server rejects this pod";
// gpu-fractional: CONTAINER: RESOURCE N is not a whole number; ... (VRAM RESOURCE)
inline constexpr std::string_view kGpuNotWhole =
    " is not a whole number; GPUs are allocated whole (share one with MPS or time-slicing "
    "replicas, or size memory with ";

}  // namespace gpulint::rule_text

#endif  // GPULINT_ENGINE_RULES_RULE_TEXT_H_
