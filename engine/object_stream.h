// One input's objects, judged in the order they are read: the one loop from a
// document to judged objects that `gpulint check`, both passes of `gpulint
// fix` and the goldens share, so that they cannot disagree on what an input
// holds.
//
// For each object of a document (the document itself, or each item of a
// List), in order:
//   - a mapping with neither apiVersion nor kind (a workflow, a compose file,
//     a values file) is no Kubernetes object: said so, and not judged;
//   - it is put in view (InView: DRA claims and templates, KServe runtimes)
//     for the objects after it, in this document and the next ones;
//   - an object that another object of the document owns (a Pod its
//     ReplicaSet made, as `kubectl get all -o json` prints them) is folded
//     under its top owner and not judged: a finding is said once, for the
//     object a person wrote (engine/base/owners.h);
//   - the rest are evaluated with what is in view.
#ifndef GPULINT_ENGINE_OBJECT_STREAM_H_
#define GPULINT_ENGINE_OBJECT_STREAM_H_

#include <functional>
#include <string>
#include <vector>

#include "engine/engine.h"

namespace gpulint {

// One object of a document, as the stream judged it.
struct JudgedObject {
  const Value& object;  // a mapping: the document, or an item of its List
  std::string pointer;  // where it is in the document (JSON pointer): "" or "/items/N"
  std::string shown;    // the same as a field path: "" or "items[N]"
  // Has an apiVersion or a kind, however broken: a Kubernetes object. Else it
  // is not judged (no findings, no coverage) and puts nothing in view.
  bool kubernetes = true;
  // Owned by another object of the document: folded under it, not judged
  // (no findings, no coverage).
  bool under_owner = false;
  Coverage coverage = Coverage::kNoWorkload;
  std::vector<Finding> findings;
};

class ObjectStream {
 public:
  // `fixes`: the rules attach their repairs (EvaluateOptions::fixes), for
  // `gpulint fix`. The policy and inventory outlive the stream.
  ObjectStream(const Policy& policy, const Inventory& inventory, bool fixes = false)
      : policy_(policy), inventory_(inventory), fixes_(fixes) {}

  // Judges the objects of one document read from `file` (copied into each
  // finding) and calls `each` with each, in order. Scalars and other
  // non-mapping items are skipped: the engine has nothing to say of them.
  void Judge(const Value& document, const std::string& file,
             const std::function<void(JudgedObject&)>& each);

  // `object` judged as the stream judges now, with what is in view: inside
  // `each`, how the object being judged would be judged once changed (fix's
  // second look, with its units repaired).
  std::vector<Finding> Rejudge(const Value& object, const std::string& file) const;

 private:
  EvaluateOptions Options() const;

  const Policy& policy_;
  const Inventory& inventory_;
  const bool fixes_;
  InView seen_;  // what the objects read so far put in view
};

}  // namespace gpulint

#endif  // GPULINT_ENGINE_OBJECT_STREAM_H_
