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
  struct Key {
    IgnoreKey parsed;
    std::string_view annotation, reason;  // views into the object, which outlives this
  };

  explicit Ignores(const ObjectContext& ctx) {
    const Value* metadata = ctx.object.Find("metadata");
    Collect(AnnotationsOf(metadata), ctx.policy.ignore_annotation_prefix);
    for (const PodInfo& pod : ctx.pods)
      if (pod.metadata != metadata)
        Collect(AnnotationsOf(pod.metadata), ctx.policy.ignore_annotation_prefix);
  }

  bool Names(std::string_view rule) const {
    return std::any_of(keys_.begin(), keys_.end(),
                       [&](const Key& k) { return k.parsed.rule == rule; });
  }
  // The annotation that silences a finding of `rule` about `container` ("":
  // none): the container's own, else the object-wide one; null for none.
  const Key* For(std::string_view rule, std::string_view container) const {
    const Key* whole = nullptr;
    for (const Key& k : keys_) {
      if (k.parsed.rule != rule) continue;
      if (!k.parsed.per_container) {
        if (!whole) whole = &k;
      } else if (!container.empty() && k.parsed.container == container) {
        return &k;
      }
    }
    return whole;
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
      if (!repeated) keys_.push_back({key, members[i].first, members[i].second.text()});
    }
  }

  std::vector<Key> keys_;
};

// The findings of one rule, from `first` on, that an ignore annotation meets:
// removed where the policy honours it, kept and marked where it does not;
// each annotation noted once in *waivers (when given).
void ApplyIgnores(const Ignores& ignores, const ObjectContext& ctx, std::string_view rule,
                  size_t first, std::vector<Finding>* findings, std::vector<Waiver>* waivers) {
  std::string_view ns = ctx.ref.namespace_name;
  auto note = [&](const Ignores::Key& key, const Finding& f, bool honoured) {
    if (!waivers) return;
    std::string container(key.parsed.per_container ? key.parsed.container : "");
    auto same = [&](const Waiver& w) {
      return w.annotation == key.annotation && w.honoured == honoured;
    };
    auto it = std::find_if(waivers->begin(), waivers->end(), same);
    if (it == waivers->end()) {
      waivers->push_back({std::string(rule), container, std::string(key.annotation),
                          std::string(key.reason), f.severity, 0, honoured});
      it = waivers->end() - 1;
    }
    it->severity = std::max(it->severity, f.severity);
    ++it->findings;
  };
  size_t kept = first;
  for (size_t i = first; i < findings->size(); ++i) {
    Finding& f = (*findings)[i];
    const Ignores::Key* key = ignores.For(rule, f.container);
    bool honoured = key && ctx.policy.WaiverHonoured(ns, rule, f.severity);
    if (key) note(*key, f, honoured);
    if (honoured) continue;
    if (key)
      f.message += " (" + std::string(key->annotation) + " waives no error in namespace \"" +
                   std::string(ns) + "\": the policy's exemptions.waiveErrors does not list it)";
    if (kept != i) (*findings)[kept] = std::move(f);
    ++kept;
  }
  findings->resize(kept);
}

}  // namespace

Inventory BuildInventory(const Policy& policy, std::vector<NodeClass> nodes,
                         std::shared_ptr<const DraInventory> dra) {
  NodeGroups groups;
  for (size_t i = 0; i < policy.node_classes.size(); ++i) groups.Add(policy.node_classes[i], i);
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (dra) nodes[i].devices = dra->DevicesOf(nodes[i]);
    groups.Add(std::move(nodes[i]), kFileNodeOrder + i);
  }
  Inventory inventory = groups.inventory();
  inventory.dra = std::move(dra);
  return inventory;
}

Inventory BuildInventoryFrom(const Policy& policy, NodesFile file) {
  std::shared_ptr<const DraInventory> dra;
  if (!file.dra.empty()) dra = DraInventory::Make(std::move(file.dra));
  return BuildInventory(policy, std::move(file.nodes), std::move(dra));
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
    if (rule->info.scope != RuleScope::kObject || !policy.RuleEnabled(name)) continue;
    Reporter reporter(rule->info, policy.RuleSeverity(name, rule->info.severity), ctx, &findings);
    size_t first = findings.size();
    // A rule an annotation silences still runs: the policy may not honour
    // the annotation, and one it honours is reported with what it waived.
    rule->check(ctx, reporter);
    if (ignores.Names(name)) ApplyIgnores(ignores, ctx, name, first, &findings, options.waivers);
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
