// What every Kubernetes object has: an apiVersion, a kind, metadata, and for a
// List, items.
#ifndef GPULINT_ENGINE_BASE_OBJECTS_H_
#define GPULINT_ENGINE_BASE_OBJECTS_H_

#include <functional>
#include <string_view>

#include "engine/base/finding.h"
#include "engine/base/value.h"

namespace gpulint {

// "apps/v1" -> "apps"; "v1" -> "".
std::string_view ApiGroupOf(std::string_view api_version);
// The object's apiVersion, kind, namespace and name (else generateName).
ObjectRef RefOf(const Value& object);

// `kind: List` (and *List kinds such as NodeList) hold objects in `items`:
// the `items` sequence of such a root, or null when `root` is not a list.
const Value* ListItems(const Value& root);
// Calls `fn` for each item of a list, or for `root` itself when it is not one.
void ForEachObject(const Value& root, const std::function<void(const Value&)>& fn);

}  // namespace gpulint

#endif  // GPULINT_ENGINE_BASE_OBJECTS_H_
