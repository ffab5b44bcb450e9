#include "engine/base/owners.h"

#include <set>
#include <utility>

#include "engine/base/objects.h"

namespace gpulint {
namespace {

std::string NameKey(std::string_view api_version, std::string_view kind, std::string_view ns,
                    std::string_view name) {
  std::string key(ApiGroupOf(api_version));
  key += '/';
  key += kind;
  key += '/';
  key += ns;
  key += '/';
  key += name;
  return key;
}

}  // namespace

OwnedObject OwnerIndex::Read(const Value& object) {
  OwnedObject out;
  out.ref = RefOf(object);
  const Value* meta = object.Find("metadata");
  if (!meta) return out;
  out.uid = std::string(meta->StringAt("uid"));
  const Value* refs = meta->Find("ownerReferences");
  if (!refs || !refs->is_sequence()) return out;
  for (const Value& r : refs->items()) {
    OwnedObject::Owner owner;
    owner.uid = std::string(r.StringAt("uid"));
    owner.api_version = std::string(r.StringAt("apiVersion"));
    owner.kind = std::string(r.StringAt("kind"));
    owner.name = std::string(r.StringAt("name"));
    const Value* controller = r.Find("controller");
    owner.controller = controller && controller->text() == "true";
    if (!owner.kind.empty() && (!owner.uid.empty() || !owner.name.empty()))
      out.owners.push_back(std::move(owner));
  }
  return out;
}

void OwnerIndex::Add(OwnedObject object) {
  std::string key =
      NameKey(object.ref.api_version, object.ref.kind, object.ref.namespace_name, object.ref.name);
  if ((!object.uid.empty() && by_uid_.count(object.uid)) || by_name_.count(key)) return;
  size_t index = objects_.size();
  if (!object.uid.empty()) by_uid_.emplace(object.uid, index);
  by_name_.emplace(std::move(key), index);
  objects_.push_back(std::move(object));
}

const OwnedObject* OwnerIndex::Find(const OwnedObject::Owner& owner, const std::string& ns) const {
  if (!owner.uid.empty()) {
    auto it = by_uid_.find(owner.uid);
    if (it != by_uid_.end()) return &objects_[it->second];
  }
  auto it = by_name_.find(NameKey(owner.api_version, owner.kind, ns, owner.name));
  if (it == by_name_.end()) return nullptr;
  const OwnedObject& found = objects_[it->second];
  // A uid on both sides that differs: an owner of that name was deleted and
  // made again, and this is not it.
  if (!owner.uid.empty() && !found.uid.empty() && owner.uid != found.uid) return nullptr;
  return &found;
}

const OwnedObject* OwnerIndex::OwnerOf(const OwnedObject& object) const {
  const std::string& ns = object.ref.namespace_name;
  for (bool controller : {true, false}) {
    for (const OwnedObject::Owner& owner : object.owners) {
      if (owner.controller != controller) continue;
      if (const OwnedObject* found = Find(owner, ns)) return found;
    }
  }
  return nullptr;
}

const OwnedObject* OwnerIndex::TopOwner(const OwnedObject& object) const {
  const OwnedObject* top = OwnerOf(object);
  std::set<const OwnedObject*> seen;
  while (top && seen.insert(top).second) {
    const OwnedObject* next = OwnerOf(*top);
    if (!next || seen.count(next)) break;
    top = next;
  }
  return top;
}

}  // namespace gpulint
