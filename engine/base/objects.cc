#include "engine/base/objects.h"

#include <string>

namespace gpulint {

std::string_view ApiGroupOf(std::string_view api_version) {
  size_t slash = api_version.find('/');
  return slash == std::string_view::npos ? std::string_view() : api_version.substr(0, slash);
}

ObjectRef RefOf(const Value& object) {
  ObjectRef ref;
  ref.api_version = std::string(object.StringAt("apiVersion"));
  ref.kind = std::string(object.StringAt("kind"));
  if (const Value* md = object.Find("metadata")) {
    ref.namespace_name = std::string(md->StringAt("namespace"));
    ref.name = std::string(md->StringAt("name", md->StringAt("generateName")));
  }
  return ref;
}

const Value* ListItems(const Value& root) {
  std::string_view kind = root.StringAt("kind");
  const Value* items = root.Find("items");
  if (kind.size() >= 4 && kind.substr(kind.size() - 4) == "List" && items != nullptr &&
      items->is_sequence()) {
    return items;
  }
  return nullptr;
}

void ForEachObject(const Value& root, const std::function<void(const Value&)>& fn) {
  if (const Value* items = ListItems(root)) {
    for (const Value& item : items->items()) fn(item);
    return;
  }
  fn(root);
}

}  // namespace gpulint
