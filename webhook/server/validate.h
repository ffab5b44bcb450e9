// /validate's verdict on one object, with what it measures it against: on an
// UPDATE the object as it was stored, so that deny mode refuses only the
// findings the update brings (ratcheting, docs/webhook.md).
#ifndef GPULINT_WEBHOOK_SERVER_VALIDATE_H_
#define GPULINT_WEBHOOK_SERVER_VALIDATE_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/base/value.h"
#include "webhook/server/admission.h"

namespace gpulint {

// What a review answers, before it is written as JSON.
struct Answer {
  bool allowed = true;
  int code = 0;  // status.code when denied
  std::string reason;
  std::string message;
  std::vector<std::string> warnings;
  std::string patch;  // JSONPatch text; empty for none
  // Key and value of each audit annotation; the API server prefixes the key
  // with the webhook's name.
  std::vector<std::pair<std::string, std::string>> audit_annotations;
};

// Which of an object's errors it already had, and so do not deny
// (ReviewOptions::allow_existing_violations). Neither: each error is new.
struct PriorState {
  // UPDATE: the object as stored. An error of the new object is existing when
  // this one, judged against the same snapshot, has one with the same rule,
  // path and message. Judged only when the new object has an error.
  const Value* old_object = nullptr;
  // CREATE by one of kube-controller-manager's workload controllers, of an
  // object it controls (MadeByWorkloadController): every error is existing,
  // said in these words ("made by ... from ...").
  std::string made_by;
};

// A value the client sent, quoted and cut short for a message.
std::string QuotedForReview(std::string_view text);

// Judges `object` in `mode` into `a` and `log`.
void Validate(const Value& object, const PriorState& baseline, const Snapshot& snap, Mode mode,
              Answer* a, ReviewLog* log);

// Who made this CREATE, when it is a workload controller of
// kube-controller-manager making an object it controls: "ReplicaSet
// \"web-6d4\" (its controller, system:serviceaccount:kube-system:
// replicaset-controller)". Empty otherwise. Such an object is its owner's
// template, which gpulint judged when the owner was written (or which
// predates gpulint): refusing it only hangs a rollout or keeps a drained
// node's pods from coming back.
std::string MadeByWorkloadController(const Value& request, const Value& object);

}  // namespace gpulint

#endif  // GPULINT_WEBHOOK_SERVER_VALIDATE_H_
