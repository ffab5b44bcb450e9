// Objects judged under their owner. A dump of a cluster (`kubectl get all -A
// -o json`, one List) holds a Deployment, the ReplicaSets it made and the
// Pods they made, each pod template the Deployment's own: judged one by one,
// every finding would be reported for each of them. An object whose
// metadata.ownerReferences name another object of the same document (by uid;
// else by kind and name in its namespace, when either side has no uid) is
// not judged on its own: its findings are its owner's.
//
// The document is the unit: kubectl prints whatever it gets as one List, and
// a document is in memory whole while a stream of them is not, so a run
// stays flat in memory and its output in input order. The webhook judges
// every object alone, as the API server hands it one (a pod the ReplicaSet
// controller creates is all there is).
#ifndef GPULINT_LINT_INPUT_OWNERS_H_
#define GPULINT_LINT_INPUT_OWNERS_H_

#include <string>
#include <unordered_map>
#include <unordered_set>

#include "engine/base/value.h"

namespace gpulint {

class OwnersInDocument {
 public:
  // Reads the objects of `document` (a List's items, or the document itself).
  explicit OwnersInDocument(const Value& document);
  // Whether one of the document's objects owns `object`.
  bool HasOwner(const Value& object) const;

 private:
  std::unordered_set<std::string> uids_;
  // "kind/namespace/name" -> uid ("" when it has none)
  std::unordered_map<std::string, std::string> by_name_;
};

}  // namespace gpulint

#endif  // GPULINT_LINT_INPUT_OWNERS_H_
