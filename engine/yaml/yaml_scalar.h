// How a YAML scalar becomes a typed Value: the way sigs.k8s.io/yaml (go-yaml
// v2, YAML 1.1) resolves it, since that is what Kubernetes itself sees.
// Internal to the YAML loader.
#ifndef GPULINT_ENGINE_YAML_YAML_SCALAR_H_
#define GPULINT_ENGINE_YAML_YAML_SCALAR_H_

#include <string>
#include <string_view>

#include "engine/base/value.h"

namespace gpulint {

// `tag` is the scalar's expanded tag ("" when it has none, "tag:yaml.org,2002:int"
// for `!!int`); `plain` says it was written without quotes or block style.
// Sets *type and *text (ints in decimal, bools as "true"/"false", null as "").
// Returns false with *problem set when a standard tag does not fit the text
// (`!!int abc`); unknown tags leave the scalar a string.
bool ResolveScalar(std::string_view in, std::string_view tag, bool plain, Value::Type* type,
                   std::string* text, std::string* problem);

// Whether a mapping key is the merge key `<<` (plain, or tagged !!merge).
bool IsMergeKey(std::string_view in, std::string_view tag, bool plain);

}  // namespace gpulint

#endif  // GPULINT_ENGINE_YAML_YAML_SCALAR_H_
