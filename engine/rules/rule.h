// A rule: its metadata and one check function. Rules live one per file under
// engine/rules/ and are listed, explicitly, in engine/rules/registry.cc.
#ifndef GPULINT_ENGINE_RULES_RULE_H_
#define GPULINT_ENGINE_RULES_RULE_H_

#include <string>
#include <string_view>
#include <vector>

#include "engine/base/finding.h"
#include "engine/cluster/inventory.h"
#include "engine/policy/policy.h"
#include "engine/workload/workload.h"
#include "engine/workload/serving_runtimes.h"
#include "engine/workload/workload_coverage.h"

namespace gpulint {

// What a rule judges: one object (a manifest, an admission request), or one
// node by the pods bound to it (`gpulint audit`, which sums them).
enum class RuleScope { kObject, kNode };

struct RuleInfo {
  const char* name;       // stable kebab-case id
  Severity severity;      // default; the policy may override it
  const char* title;      // one line
  const char* rationale;  // why it matters, with what happened where it did
  const char* fix;        // what to do
  // A manifest that fires the rule, "---", and the same manifest fixed, shown
  // by `gpulint explain` and in the generated catalogue. Rules take it from
  // RuleExample() (generated/rule_examples.h), which compiles in their
  // testdata/rules/<rule>/fail-example.yaml and pass-example.yaml, golden
  // cases like the others there; a test runs both through the rule. Null when
  // absent.
  const char* example = nullptr;
  // What the rule counts as a GPU, for rules about GPUs (kGpuUse, kWholeGpus
  // in engine/rules/rule_util.h); null for the others.
  const char* gpus = nullptr;
  // For a rule that attaches repairs to its findings (FixIt): why a finding
  // of it goes without one, where the rule says no more. Null for the rules
  // that repair nothing.
  const char* no_fix = nullptr;
  // It judges pods against nodes and reports nothing without a node
  // inventory (the policy's node classes, --nodes, the webhook's node watch).
  // Its example says --nodes, and a test holds that without them it is quiet.
  bool needs_nodes = false;
  // Whether `gpulint export vap` holds it as CEL: null when it does (its CEL
  // is in engine/vap/cel_rules_*.cc, and vap_test holds the two together),
  // else why the API server cannot judge it as gpulint does. The export list
  // (`gpulint export vap --list`, docs/export.md) is generated from it.
  const char* not_cel = nullptr;
  RuleScope scope = RuleScope::kObject;
};

// The reason a node's rules (RuleScope::kNode) are not CEL.
inline constexpr char kNotCelNodeScope[] =
    "it judges a node by the pods bound to it, which gpulint audit sums; admission sees one "
    "object at a time";

// The reason the rules that judge a pod against nodes are not CEL.
inline constexpr char kNotCelNeedsNodes[] =
    "it judges a pod against the nodes it can run on, which only the node inventory (the "
    "webhook's node watch, gpulint check --nodes) knows";

// Everything a check may look at. Built once per object.
struct ObjectContext {
  const Value& object;
  ObjectRef ref;
  const std::string& file;
  const Policy& policy;
  const Inventory& inventory;
  std::vector<PodInfo> pods;
  std::vector<UncheckedShape> unchecked;  // containers the workload table missed
  bool fixes = false;                     // rules attach their repairs (EvaluateOptions::fixes)
  const ServingRuntimes* runtimes = nullptr;  // KServe runtimes in view (EvaluateOptions)
};

// Collects one rule's findings for one object.
class Reporter {
 public:
  Reporter(const RuleInfo& rule, Severity severity, const ObjectContext& ctx,
           std::vector<Finding>* out)
      : rule_(rule), severity_(severity), ctx_(ctx), out_(out) {}
  // `at` gives the line/column (may be null: the object's own position).
  // Returns the finding, for a rule to attach its repair to; it stays valid
  // until the next Report.
  Finding& Report(const Value* at, std::string path, std::string message);
  // A finding at another severity than the rule's default (its worst case),
  // unless the policy sets the rule's severity, which then wins.
  Finding& Report(const Value* at, std::string path, std::string message, Severity severity);
  // Whether to attach repairs (ObjectContext::fixes).
  bool fixes() const { return ctx_.fixes; }

 private:
  Finding& Add(const Value* at, std::string path, std::string message, Severity severity);

  const RuleInfo& rule_;
  Severity severity_;
  const ObjectContext& ctx_;
  std::vector<Finding>* out_;
};

struct NodeContext;  // engine/rules/node_rules.h
class NodeReporter;

struct Rule {
  RuleInfo info;
  // A rule of scope object: one object (Evaluate).
  void (*check)(const ObjectContext& ctx, Reporter& out);
  // A rule of scope node: one node by its pods (NodeFindings).
  void (*check_node)(const NodeContext& ctx, NodeReporter& out) = nullptr;
};

// All rules, in the order the registry lists them: those of objects, then
// those of nodes.
const std::vector<const Rule*>& AllRules();
const Rule* FindRule(std::string_view name);
// The rules that attach repairs to their findings (RuleInfo::no_fix set), in
// catalogue order: what `gpulint fix` repairs.
std::vector<std::string_view> FixingRules();
// The rules' names and titles, for the policy (spec.rules) to check against.
PolicyNames RuleNames();
// The rule whose name is closest to `name`, when it is close enough to be a
// typo ("did you mean"); else null.
const Rule* ClosestRule(std::string_view name);

}  // namespace gpulint

#endif  // GPULINT_ENGINE_RULES_RULE_H_
