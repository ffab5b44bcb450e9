#include "lint/input/owners.h"

#include "engine/base/objects.h"

namespace gpulint {
namespace {

std::string Key(std::string_view kind, std::string_view ns, std::string_view name) {
  std::string key(kind);
  key.append("/").append(ns).append("/").append(name);
  return key;
}

const Value* Metadata(const Value& object) {
  const Value* metadata = object.is_mapping() ? object.Find("metadata") : nullptr;
  return metadata && metadata->is_mapping() ? metadata : nullptr;
}

}  // namespace

OwnersInDocument::OwnersInDocument(const Value& document) {
  // A document with one object owns nothing of its own.
  if (!ListItems(document)) return;
  ForEachObject(document, [&](const Value& object) {
    const Value* metadata = Metadata(object);
    if (!metadata) return;
    std::string uid(metadata->StringAt("uid"));
    std::string_view name = metadata->StringAt("name");
    if (!uid.empty()) uids_.insert(uid);
    if (!name.empty())
      by_name_.emplace(Key(object.StringAt("kind"), metadata->StringAt("namespace"), name), uid);
  });
}

bool OwnersInDocument::HasOwner(const Value& object) const {
  const Value* metadata = Metadata(object);
  const Value* refs = metadata ? metadata->Find("ownerReferences") : nullptr;
  if (!refs || !refs->is_sequence() || (uids_.empty() && by_name_.empty())) return false;
  for (const Value& ref : refs->items()) {
    if (!ref.is_mapping()) continue;
    std::string_view uid = ref.StringAt("uid");
    if (!uid.empty() && uids_.count(std::string(uid))) return true;
    auto it = by_name_.find(
        Key(ref.StringAt("kind"), metadata->StringAt("namespace"), ref.StringAt("name")));
    if (it != by_name_.end() && (uid.empty() || it->second.empty())) return true;
  }
  return false;
}

}  // namespace gpulint
