// invalid-ignore: ignore annotations that silence nothing. A misspelt rule
// name, a container the object does not have, or a missing reason leaves the
// finding it was written for in place, while anyone reading the manifest
// believes it was accepted on purpose.
#include <algorithm>
#include <vector>

#include "engine/base/path.h"
#include "engine/rules/ignore.h"
#include "engine/rules/rule.h"
#include "engine/rules/rule_util.h"
#include "generated/rule_examples.h"

namespace gpulint {
namespace {

// What is wrong with one ignore annotation, or "" when it works.
std::string Problem(const IgnoreKey& key, const Value& value, std::string_view prefix,
                    const std::vector<std::string_view>& containers) {
  if (key.rule.empty()) return "names no rule";
  if (FindRule(key.rule) == nullptr) {
    std::string out = "names no rule gpulint has (\"" + std::string(key.rule) + "\")";
    if (const Rule* close = ClosestRule(key.rule))
      out += "; did you mean " + std::string(prefix) + close->info.name +
             (key.per_container ? "." + std::string(key.container) : "") + "?";
    return out;
  }
  if (FindRule(key.rule)->info.scope == RuleScope::kNode)
    return "names " + std::string(key.rule) +
           ", a rule of nodes, which no object's annotation silences (the policy's spec.rules "
           "turns it off)";
  if (key.per_container) {
    if (key.container.empty()) return "names no container after the '.'";
    if (std::find(containers.begin(), containers.end(), key.container) == containers.end()) {
      std::string out = "names container \"" + std::string(key.container) + "\", which ";
      if (containers.empty()) return out + "the object does not have: it has no containers";
      out += "the object does not have (it has ";
      for (size_t i = 0; i < containers.size(); ++i)
        out += (i ? ", \"" : "\"") + std::string(containers[i]) + "\"";
      return out + ")";
    }
  }
  if (!HasIgnoreReason(value))
    return "gives no reason: its value must say why the finding is acceptable";
  return "";
}

void CheckMetadata(const Value* metadata, const std::string& path, const ObjectContext& ctx,
                   const std::vector<std::string_view>& containers, Reporter& out) {
  const Value* annotations = metadata ? metadata->Find("annotations") : nullptr;
  if (!annotations || !annotations->is_mapping()) return;
  std::string_view prefix = ctx.policy.ignore_annotation_prefix;
  for (const auto& [key, value] : annotations->members()) {
    IgnoreKey ignore;
    if (!ParseIgnoreKey(key, prefix, &ignore)) continue;
    std::string problem = Problem(ignore, value, prefix, containers);
    if (problem.empty()) continue;
    out.Report(&value, AppendKey(path + ".annotations", key),
               "ignore annotation " + key + " silences nothing: it " + problem);
  }
}

void Check(const ObjectContext& ctx, Reporter& out) {
  std::vector<std::string_view> containers;
  for (const PodInfo& pod : ctx.pods)
    for (const ContainerInfo& c : pod.containers)
      if (std::find(containers.begin(), containers.end(), c.name) == containers.end())
        containers.push_back(c.name);
  const Value* metadata = ctx.object.Find("metadata");
  CheckMetadata(metadata, "metadata", ctx, containers, out);
  for (const PodInfo& pod : ctx.pods)
    if (pod.metadata && pod.metadata != metadata)
      CheckMetadata(pod.metadata, MetadataPath(pod), ctx, containers, out);
}

}  // namespace

extern const Rule kInvalidIgnoreRule = {
    {"invalid-ignore", Severity::kWarning, "An ignore annotation that silences nothing",
     "An ignore annotation is read only when it names a rule gpulint has (and, in the "
     "per-container form <rule>.<container>, a container the object has) and gives a reason. "
     "A misspelt rule name, a renamed container or an empty reason silences nothing: the finding "
     "it was written for still shows, while the manifest reads as if it had been accepted on "
     "purpose. A warning rather than an error: the annotation itself harms nothing, and the "
     "finding it meant to silence is still reported at its own severity, so the webhook need "
     "not deny the object twice over.",
     "Correct the rule name (gpulint rules lists them) or the container name, and give the "
     "reason as the annotation's value; delete the annotation if nothing needs silencing.",
     RuleExample("invalid-ignore"), /*gpus=*/nullptr,
     /*no_fix=*/nullptr, /*needs_nodes=*/false, /*not_cel=*/
     "its did-you-mean measures the edit distance from a misspelt name to every rule's, which CEL "
     "cannot"},
    Check,
};

}  // namespace gpulint
