// The engine's front door: objects + policy + node inventory -> findings.
// Pure: no I/O, no globals that change, no clock. Both front ends call this.
#ifndef GPULINT_ENGINE_ENGINE_H_
#define GPULINT_ENGINE_ENGINE_H_

#include <string>
#include <vector>

#include "engine/base/finding.h"
#include "engine/base/objects.h"
#include "engine/base/value.h"
#include "engine/cluster/inventory.h"
#include "engine/policies.h"
#include "engine/policy/policy.h"
#include "engine/workload/dra.h"
#include "engine/workload/serving_runtimes.h"
#include "engine/workload/workload_coverage.h"

namespace gpulint {

// The policy's node classes plus real nodes (from --nodes or the API server).
Inventory BuildInventory(const Policy& policy, std::vector<NodeClass> nodes);

// An ignore annotation that met findings of its rule (engine/rules/ignore.h):
// honoured, they are gone from Evaluate's findings; not honoured (an error
// the policy's exemptions.waiveErrors does not let an annotation waive
// there), they stay, each saying so.
struct Waiver {
  std::string rule;
  std::string container;   // "" for the object-wide annotation
  std::string annotation;  // its key: ignore.gpulint.io/exceeds-allocatable
  std::string reason;      // its value
  Severity severity = Severity::kInfo;  // the most severe finding it met
  size_t findings = 0;                  // how many it met
  bool honoured = true;
};

struct EvaluateOptions {
  // The DRA ResourceClaims and ResourceClaimTemplates seen before the object
  // in its input, which resolve its pods' claims; null: none in view.
  const DeviceClaims* claims = nullptr;
  // When given, set to whether the object's workloads were checked
  // (engine/workload/workload_coverage.h); an exempt object carries none.
  Coverage* coverage = nullptr;
  // Rules attach their repairs to their findings (Finding::fix), for
  // `gpulint fix`.
  bool fixes = false;
  // When given, every ignore annotation that met a finding, honoured or not:
  // the webhook logs, counts and records each in the audit log.
  std::vector<Waiver>* waivers = nullptr;
  // KServe ServingRuntimes and ClusterServingRuntimes seen before the object
  // in its input, which an InferenceService's predictor is merged with; null:
  // none in view.
  const ServingRuntimes* runtimes = nullptr;
};

// What an input holds that other objects' pods refer to, as far as it has
// been read: DRA claims and templates, KServe serving runtimes. A front end
// adds each object as it reads it, and evaluates the next ones with it.
struct InView {
  DeviceClaims claims;
  ServingRuntimes runtimes;
  void Add(const Value& object) {
    if (!claims.Add(object)) runtimes.Add(object);
  }
  // Options that resolve against what is in view.
  EvaluateOptions Options() const {
    EvaluateOptions options;
    options.claims = &claims;
    options.runtimes = &runtimes;
    return options;
  }
};

// Findings for one object (not a List: see ForEachObject), honouring the
// policy's rule settings, exempt namespaces and ignore annotations (those the
// policy honours: Policy::WaiverHonoured). `file` is
// copied into each finding (empty for webhook input). Findings are ordered by
// position, then rule name. The pods are extracted once, for every rule.
std::vector<Finding> Evaluate(const Value& object, const std::string& file, const Policy& policy,
                              const Inventory& inventory, const EvaluateOptions& options);
inline std::vector<Finding> Evaluate(const Value& object, const std::string& file,
                                     const Policy& policy, const Inventory& inventory,
                                     const DeviceClaims* claims = nullptr,
                                     Coverage* coverage = nullptr) {
  return Evaluate(object, file, policy, inventory, EvaluateOptions{claims, coverage, false, nullptr});
}

// The finding for a document that could not be read (rule "parse-error").
Finding ParseErrorFinding(const Error& error);

}  // namespace gpulint

#endif  // GPULINT_ENGINE_ENGINE_H_
