#include "engine/rules/ignore.h"

namespace gpulint {

bool ParseIgnoreKey(std::string_view key, std::string_view prefix, IgnoreKey* out) {
  if (prefix.empty() || key.size() < prefix.size() || key.substr(0, prefix.size()) != prefix)
    return false;
  std::string_view rest = key.substr(prefix.size());
  size_t dot = rest.find('.');
  *out = IgnoreKey();
  out->rule = rest.substr(0, dot);
  if (dot != std::string_view::npos) {
    out->container = rest.substr(dot + 1);
    out->per_container = true;
  }
  return true;
}

bool HasIgnoreReason(const Value& value) {
  return value.is_string() && value.text().find_first_not_of(" \t\r\n") != std::string_view::npos;
}

}  // namespace gpulint
