// What a resource's name says about it, read the way Kubernetes reads it.
#ifndef GPULINT_ENGINE_BASE_RESOURCE_NAMES_H_
#define GPULINT_ENGINE_BASE_RESOURCE_NAMES_H_

#include <string_view>

namespace gpulint {

inline constexpr std::string_view kHugePagesPrefix = "hugepages-";

// hugepages-<size> (v1helper.IsHugePageResourceName).
inline bool IsHugePages(std::string_view name) {
  return name.substr(0, kHugePagesPrefix.size()) == kHugePagesPrefix;
}

// The page size a hugepages resource names, as written: "2Mi" for
// hugepages-2Mi; "" for any other resource.
inline std::string_view HugePageSize(std::string_view name) {
  return IsHugePages(name) ? name.substr(kHugePagesPrefix.size()) : std::string_view();
}

}  // namespace gpulint

#endif  // GPULINT_ENGINE_BASE_RESOURCE_NAMES_H_
