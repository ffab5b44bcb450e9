// AdmissionReview in, AdmissionReview out: the webhook's only contact with the
// engine. Pure (no I/O, no clock), so every verdict can be tested without a
// socket, and the HTTP layer holds no rule logic.
#ifndef GPULINT_WEBHOOK_SERVER_ADMISSION_H_
#define GPULINT_WEBHOOK_SERVER_ADMISSION_H_

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/cluster/inventory.h"
#include "engine/policy/policy.h"
#include "engine/base/verdict.h"

namespace gpulint {

// What one review is judged against. Both pointers are immutable once
// published, so a request keeps the policy it started with while a reload
// swaps in the next one.
struct Snapshot {
  std::shared_ptr<const Policy> policy;
  std::shared_ptr<const Inventory> inventory;
  // Why no policy is loaded, when none is ("policy.yaml:3:5: spec.rules.foo:
  // unknown rule ..."): every review is then allowed, with a warning that
  // says so. A webhook without a valid policy never blocks the cluster.
  std::string problem;
};

// /validate judges, /mutate patches. /admit does both in one call: the
// chart's webhook.mutating.validatePods points the mutating webhook at it and
// takes pods off the validating one, so a pod costs the API server one
// webhook call instead of two (safe only where no other mutating webhook
// changes pods after gpulint's: docs/webhook.md).
enum class Endpoint { kValidate, kMutate, kAdmit };
inline constexpr Endpoint kEndpoints[] = {Endpoint::kValidate, Endpoint::kMutate, Endpoint::kAdmit};
const char* EndpointName(Endpoint e);  // "validate", "mutate", "admit"

// What the webhook does with a verdict, as Pod Security Admission's modes:
//  - kDeny: errors deny (/validate) and the patch is applied (/mutate);
//  - kWarn: allowed; each would-be denial is a warning kubectl prints, and the
//    patch that would be applied is a warning too;
//  - kAudit: allowed, nothing shown to the client; what would be denied or
//    patched goes to the log, the metrics and the API server's audit log
//    (auditAnnotations).
// The mode comes with each request (its URL path), so a namespace label can
// choose it through the webhook configurations' namespaceSelectors.
// The modes and their verdicts are the engine's one table (engine/base/verdict.h),
// which `gpulint audit` reports with too.
using Mode = Enforcement;

// Nesting allowed in a review body. Pod specs nest about 12 deep and the review
// adds 3; anything near this cap is an attack, refused before any recursion.
inline constexpr size_t kMaxReviewDepth = 128;
// What judging one review may take: its parsed tree at most `parse_budget`
// times the body's bytes (JsonLimits::max_tree_bytes, counted while the tree
// is built), and never less than kMinParseBudgetBytes, so that no small
// review is refused for its shape. A review over it is refused with HTTP 400
// before its tree grows any further. 0: no limit.
inline constexpr size_t kDefaultParseBudget = 12;
inline constexpr size_t kMinParseBudgetBytes = 1u << 20;
struct ReviewOptions {
  size_t parse_budget = kDefaultParseBudget;
  // Ratcheting (--allow-existing-violations): an error the object already had
  // does not deny. On UPDATE, one oldObject has too (same rule, path and
  // message, judged against the same snapshot); on CREATE of an object one of
  // kube-controller-manager's workload controllers makes for its owner, every
  // error (validate.h, MadeByWorkloadController). Such errors are warnings and
  // an `existing` audit annotation. false: each request is judged alone.
  bool allow_existing_violations = true;
};

// Kubernetes uids are 36 bytes; a longer one is not from an API server.
inline constexpr size_t kMaxUidBytes = 256;
// kube-apiserver passes warnings on as they are until all of a response's
// together pass 4096 characters, then cuts each to 256: cut here to 256, and
// keep 16 (4096 in all), so that what arrives is what was sent. 120, the
// length Kubernetes' docs suggest, lost the reason of a long finding.
inline constexpr size_t kMaxWarningBytes = 256;
inline constexpr size_t kMaxWarnings = 16;
inline constexpr size_t kMaxDenyMessageBytes = 4096;

// What the server logs and counts for one review.
struct ReviewLog {
  std::string uid;
  std::string api_version;  // of the review
  std::string kind;         // request.kind.kind, else object.kind
  std::string namespace_name;
  std::string name;  // request.name, else metadata.name, else metadata.generateName
  std::string operation;
  bool dry_run = false;
  // "allowed", "denied", "patched", "invalid" (HTTP 400: not a review),
  // "would_deny" and "would_patch" (audit and warn modes: allowed unchanged),
  // or "unenforced" (allowed: no valid policy is loaded).
  std::string decision;
  Mode mode = Mode::kDeny;
  std::string reason;  // why the engine was not asked, when it was not
  bool over_budget = false;  // refused (400): its tree would pass ReviewOptions' budget
  // Rule of each finding, in the engine's order (repeats kept for counting).
  std::vector<std::string> finding_rules;
  std::vector<std::string> finding_severities;
  // Errors not denied because the object already had them (ReviewOptions::
  // allow_existing_violations), and where: "the object before this update" or
  // "its owner ReplicaSet \"web-6d4\"".
  std::vector<std::string> existing;
  std::string existing_in;
  size_t patch_ops = 0;
  std::string unapplied_patch;  // audit and warn: the JSONPatch deny mode would return
  // Each ignore annotation that met a finding (engine Waiver), as
  // "ANNOTATION: \"REASON\"": honoured (its findings silenced) or refused
  // (the policy's exemptions.waiveErrors does not let it waive an error there).
  struct Waiver {
    std::string rule;
    std::string text;
    bool honoured = true;
  };
  std::vector<Waiver> waivers;
};

struct ReviewResult {
  int http_status = 200;
  std::string content_type;  // "application/json" or "text/plain; charset=utf-8"
  std::string body;
  ReviewLog log;
};

// Judges one request body. Never throws for any input; a body that is not an
// AdmissionReview gets HTTP 400, anything with a usable uid gets a review
// answered in the version it came in. Inputs the engine cannot evaluate are
// denied on /validate and /admit (never judged as if empty) and left alone on
// /mutate.
// Without a policy in the snapshot, every review is allowed with a warning
// naming the snapshot's problem.
ReviewResult HandleReview(Endpoint endpoint, std::string_view body, const Snapshot& snapshot,
                          Mode mode = Mode::kDeny, const ReviewOptions& options = {});

// Cuts `text` to at most `max_bytes`, ending in "..." when cut, never inside a
// UTF-8 sequence. Control characters become spaces (warnings end up in HTTP
// headers).
std::string TruncateForWarning(std::string_view text, size_t max_bytes);

}  // namespace gpulint

#endif  // GPULINT_WEBHOOK_SERVER_ADMISSION_H_
