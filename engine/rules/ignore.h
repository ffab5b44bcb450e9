// Ignore annotations, read in one place for Evaluate (which honours them) and
// the invalid-ignore rule (which reports the ones that cannot work):
//   <prefix><rule>: "<reason>"              the rule is off for the object
//   <prefix><rule>.<container>: "<reason>"  off for findings about that container
// Rule names never hold a '.' and container names are DNS labels, which cannot,
// so the first '.' after the prefix is where a container name starts.
#ifndef GPULINT_ENGINE_RULES_IGNORE_H_
#define GPULINT_ENGINE_RULES_IGNORE_H_

#include <string_view>

#include "engine/base/value.h"

namespace gpulint {

struct IgnoreKey {
  std::string_view rule;       // may be empty or unknown: the caller judges
  std::string_view container;  // empty: the whole object
  bool per_container = false;  // a '.' followed the rule name (even with nothing after it)
};

// Splits an annotation key. False when it does not start with `prefix` (or
// `prefix` is empty): not an ignore annotation at all.
bool ParseIgnoreKey(std::string_view key, std::string_view prefix, IgnoreKey* out);

// A reason counts when it is a string with more than spaces in it: an empty
// one would accept a finding without saying why.
bool HasIgnoreReason(const Value& value);

}  // namespace gpulint

#endif  // GPULINT_ENGINE_RULES_IGNORE_H_
