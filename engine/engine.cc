#include "engine/engine.h"

#include <algorithm>
#include <tuple>

#include "engine/rule.h"
#include "engine/workload.h"

namespace gpulint {
namespace {

const Value* AnnotationsOf(const Value* metadata) {
  return metadata ? metadata->Find("annotations") : nullptr;
}

// An ignore annotation (`ignore.gpulint.io/<rule>: <reason>`) on the object
// or on any of its pod templates turns the rule off for the object. A reason
// is required: an empty one does not count. The key is matched in its two
// parts rather than joined: this runs for every rule of every object.
bool Ignored(const ObjectContext& ctx, std::string_view rule) {
  std::string_view prefix = ctx.policy.ignore_annotation_prefix;
  auto has = [&](const Value* annotations) {
    if (!annotations || !annotations->is_mapping()) return false;
    for (const Value::Member& m : annotations->members()) {
      std::string_view key = m.first;
      if (key.size() == prefix.size() + rule.size() && key.substr(0, prefix.size()) == prefix &&
          key.substr(prefix.size()) == rule) {
        // The first member of that name, as Find would give.
        return m.second.is_string() && !m.second.text().empty();
      }
    }
    return false;
  };
  if (has(AnnotationsOf(ctx.object.Find("metadata")))) return true;
  for (const PodInfo& pod : ctx.pods)
    if (has(AnnotationsOf(pod.metadata))) return true;
  return false;
}

bool Exempt(const ObjectRef& ref, const Policy& policy) {
  return !ref.namespace_name.empty() &&
         std::find(policy.exempt_namespaces.begin(), policy.exempt_namespaces.end(),
                   ref.namespace_name) != policy.exempt_namespaces.end();
}

}  // namespace

void Reporter::Report(const Value* at, std::string path, std::string message) {
  Add(at, std::move(path), std::move(message), severity_);
}

void Reporter::Report(const Value* at, std::string path, std::string message, Severity milder) {
  Add(at, std::move(path), std::move(message), ctx_.policy.RuleSeverity(rule_.name, milder));
}

void Reporter::Add(const Value* at, std::string path, std::string message, Severity severity) {
  Finding f;
  f.rule = rule_.name;
  f.severity = severity;
  f.message = std::move(message);
  f.file = ctx_.file;
  f.mark = at && at->mark().line ? at->mark() : ctx_.object.mark();
  f.object = ctx_.ref;
  f.path = std::move(path);
  out_->push_back(std::move(f));
}

Inventory BuildInventory(const Policy& policy, std::vector<NodeClass> nodes) {
  Inventory inv;
  inv.classes = policy.node_classes;
  for (NodeClass& n : nodes) inv.classes.push_back(std::move(n));
  return inv;
}

std::vector<Finding> Evaluate(const Value& object, const std::string& file, const Policy& policy,
                              const Inventory& inventory) {
  std::vector<Finding> findings;
  if (!object.is_mapping()) return findings;
  ObjectContext ctx{object, RefOf(object), file, policy, inventory, {}};
  if (Exempt(ctx.ref, policy)) return findings;
  ctx.pods = ExtractPods(object, policy, inventory);
  for (const Rule* rule : AllRules()) {
    if (!policy.RuleEnabled(rule->info.name) || Ignored(ctx, rule->info.name)) continue;
    Reporter reporter(rule->info, policy.RuleSeverity(rule->info.name, rule->info.severity), ctx,
                      &findings);
    rule->check(ctx, reporter);
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
