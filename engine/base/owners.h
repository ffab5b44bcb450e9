// Which object owns which, as metadata.ownerReferences say: a Pod is owned
// by its ReplicaSet, which is owned by its Deployment. Reporting an object
// under its top owner among the objects in view says a finding once, for the
// object a person wrote, not again for each ReplicaSet and Pod it made.
#ifndef GPULINT_ENGINE_BASE_OWNERS_H_
#define GPULINT_ENGINE_BASE_OWNERS_H_

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "engine/base/finding.h"
#include "engine/base/value.h"

namespace gpulint {

// One object in view, and where its owner references point.
struct OwnedObject {
  std::string uid;  // may be empty (a manifest written by hand)
  ObjectRef ref;
  struct Owner {
    std::string uid;
    std::string api_version, kind, name;
    bool controller = false;
  };
  std::vector<Owner> owners;  // metadata.ownerReferences, in order
};

// The objects in view (a cluster's workloads, or a run's documents), to find
// each one's top owner. An owner reference names its owner by uid; where the
// owner in view has no uid, or the reference none, by API group, kind and
// name in the object's own namespace (owners are never in another one).
class OwnerIndex {
 public:
  // Reads an object's identity and owner references.
  static OwnedObject Read(const Value& object);

  // Puts `object` in view. An object added twice (same uid, or same group,
  // kind, namespace and name) is kept once.
  void Add(OwnedObject object);
  void Add(const Value& object) { Add(Read(object)); }

  // The top owner of `object` in view: its controller reference's owner
  // (else the first other reference's owner in view), then that owner's, up
  // while the owner is in view. Null when no owner of `object` is in view
  // (the object stands on its own). Cycles, which no API server makes, stop.
  const OwnedObject* TopOwner(const OwnedObject& object) const;
  const OwnedObject* TopOwner(const Value& object) const { return TopOwner(Read(object)); }

  size_t size() const { return objects_.size(); }

 private:
  const OwnedObject* Find(const OwnedObject::Owner& owner, const std::string& ns) const;
  // The owner of `object` to follow, or null.
  const OwnedObject* OwnerOf(const OwnedObject& object) const;

  std::vector<OwnedObject> objects_;
  std::map<std::string, size_t, std::less<>> by_uid_;
  std::map<std::string, size_t, std::less<>> by_name_;  // "group/kind/namespace/name"
};

}  // namespace gpulint

#endif  // GPULINT_ENGINE_BASE_OWNERS_H_
