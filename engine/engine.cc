#include "engine/engine.h"

#include <algorithm>
#include <tuple>

#include "engine/base/objects.h"
#include "engine/rules/ignore.h"
#include "engine/rules/rule.h"
#include "engine/workload/workload.h"

namespace gpulint {
namespace {

const Value* AnnotationsOf(const Value* metadata) {
  return metadata ? metadata->Find("annotations") : nullptr;
}

// The object's ignore annotations that count (engine/rules/ignore.h), from its own
// metadata and its pod templates', read once per object rather than once per
// rule. Keys without a reason, or naming no rule, are left to invalid-ignore.
class Ignores {
 public:
  explicit Ignores(const ObjectContext& ctx) {
    const Value* metadata = ctx.object.Find("metadata");
    Collect(AnnotationsOf(metadata), ctx.policy.ignore_annotation_prefix);
    for (const PodInfo& pod : ctx.pods)
      if (pod.metadata != metadata)
        Collect(AnnotationsOf(pod.metadata), ctx.policy.ignore_annotation_prefix);
  }

  bool Object(std::string_view rule) const {
    for (const IgnoreKey& k : keys_)
      if (!k.per_container && k.rule == rule) return true;
    return false;
  }
  bool AnyContainer(std::string_view rule) const {
    for (const IgnoreKey& k : keys_)
      if (k.per_container && k.rule == rule) return true;
    return false;
  }
  bool Container(std::string_view rule, std::string_view container) const {
    for (const IgnoreKey& k : keys_)
      if (k.per_container && k.rule == rule && k.container == container) return true;
    return false;
  }

 private:
  void Collect(const Value* annotations, std::string_view prefix) {
    if (!annotations || !annotations->is_mapping()) return;
    const std::vector<Value::Member>& members = annotations->members();
    for (size_t i = 0; i < members.size(); ++i) {
      IgnoreKey key;
      if (!ParseIgnoreKey(members[i].first, prefix, &key) || !HasIgnoreReason(members[i].second))
        continue;
      // The first member of a name counts, as Find would give it.
      bool repeated = false;
      for (size_t j = 0; j < i && !repeated; ++j) repeated = members[j].first == members[i].first;
      if (!repeated) keys_.push_back(key);
    }
  }

  std::vector<IgnoreKey> keys_;  // views into the object, which outlives this
};

}  // namespace

Inventory BuildInventory(const Policy& policy, std::vector<NodeClass> nodes) {
  NodeGroups groups;
  for (size_t i = 0; i < policy.node_classes.size(); ++i) groups.Add(policy.node_classes[i], i);
  for (size_t i = 0; i < nodes.size(); ++i) groups.Add(std::move(nodes[i]), kFileNodeOrder + i);
  return groups.inventory();
}

std::vector<Finding> Evaluate(const Value& object, const std::string& file, const Policy& policy,
                              const Inventory& inventory, const EvaluateOptions& options) {
  std::vector<Finding> findings;
  Coverage* coverage = options.coverage;
  if (coverage) *coverage = Coverage::kNoWorkload;
  if (!object.is_mapping()) return findings;
  ObjectContext ctx{object, RefOf(object), file, policy, inventory, {}, {}};
  if (policy.ExemptNamespace(ctx.ref.namespace_name)) return findings;
  ctx.pods = ExtractPods(object, policy, inventory, options.claims);
  ctx.fixes = options.fixes;
  ctx.runtimes = options.runtimes;
  ctx.unchecked = FindUncheckedShapes(object, policy, ctx.pods);
  if (coverage && !ctx.unchecked.empty()) {
    *coverage = Coverage::kNotChecked;
  } else if (coverage && !ctx.pods.empty()) {
    *coverage = Coverage::kChecked;
  }
  const Ignores ignores(ctx);
  for (const Rule* rule : AllRules()) {
    std::string_view name = rule->info.name;
    if (!policy.RuleEnabled(name) || ignores.Object(name)) continue;
    Reporter reporter(rule->info, policy.RuleSeverity(name, rule->info.severity), ctx, &findings);
    size_t first = findings.size();
    rule->check(ctx, reporter);
    if (ignores.AnyContainer(name)) {
      findings.erase(std::remove_if(findings.begin() + static_cast<ptrdiff_t>(first),
                                    findings.end(),
                                    [&](const Finding& f) {
                                      return !f.container.empty() &&
                                             ignores.Container(name, f.container);
                                    }),
                     findings.end());
    }
  }
  std::stable_sort(findings.begin(), findings.end(), [](const Finding& a, const Finding& b) {
    return std::tie(a.mark.line, a.mark.column, a.rule) <
           std::tie(b.mark.line, b.mark.column, b.rule);
  });
  return findings;
}

Finding ParseErrorFinding(const Error& error) {
  Finding f;
  f.rule = "parse-error";
  f.severity = Severity::kError;
  if (const Rule* rule = FindRule("parse-error")) f.severity = rule->info.severity;
  f.message = error.message;
  f.file = error.file;
  f.mark = error.mark;
  return f;
}

}  // namespace gpulint
