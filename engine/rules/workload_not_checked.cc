// workload-not-checked: containers gpulint could not reach, said out loud so
// that a clean run means the workloads were checked, not that they were missed.
#include "engine/base/objects.h"
#include "engine/rules/rule.h"
#include "engine/workload/workload_coverage.h"
#include "generated/rule_examples.h"

namespace gpulint {
namespace {

// containerLists shapes are found at an item: a container too.
const char* WhatIs(const std::string& field) {
  return field == "containers" || field == "containerLists" ? "the container" : "the pod spec";
}

// `group: ""` for the core group, as a policy must write it.
std::string GroupText(std::string_view group) {
  return group.empty() ? "\"\"" : std::string(group);
}

std::string KindText(const ObjectRef& ref) {
  return "kind " + ref.kind + " (group " + GroupText(ApiGroupOf(ref.api_version)) + ")";
}

void Check(const ObjectContext& ctx, Reporter& out) {
  if (ctx.unchecked.empty()) return;
  const WorkloadKind* known = ctx.policy.FindWorkload(ctx.ref.api_version, ctx.ref.kind);
  for (const UncheckedShape& s : ctx.unchecked) {
    if (!s.gpu_resource.empty()) {
      out.Report(s.node, s.path,
                 KindText(ctx.ref) + " asks for " + s.gpu_resource + " at " + s.path +
                     ", outside any container gpulint can read: the pods it makes were not "
                     "checked");
      continue;
    }
    if (!s.found.empty()) {
      out.Report(s.node, s.path,
                 s.path + " is " + s.found + " where the workloads entry for " +
                     KindText(ctx.ref) + " expects " + s.expected + "; it was not checked");
      continue;
    }
    std::string where = std::string(WhatIs(s.field)) + " at " + s.path;
    std::string entry = s.field + ": [" + (s.pattern.empty() ? "\"\"" : s.pattern) + "]";
    if (known) {
      out.Report(s.node, s.path,
                 where + " is not reached by the workloads entry for " + KindText(ctx.ref) +
                     " and was not checked; add " + entry +
                     " to that entry in a policy (an entry replaces the built-in one whole: "
                     "copy its paths too)");
    } else {
      out.Report(s.node, s.path,
                 KindText(ctx.ref) + " is not in gpulint's workload table: " + where +
                     " was not checked; teach gpulint its shape with this policy entry: "
                     "workloads: [{group: " +
                     GroupText(ApiGroupOf(ctx.ref.api_version)) + ", kind: " + ctx.ref.kind +
                     ", " + entry + "}]");
    }
  }
}

}  // namespace

extern const Rule kWorkloadNotCheckedRule = {
    {"workload-not-checked", Severity::kWarning,
     "Containers gpulint does not know how to reach",
     "gpulint finds pods through its workload table: for each kind, where its pod templates, "
     "pod specs and containers sit. An object of a kind the table does not know, or a field the "
     "table's entry does not name, is not checked at all, so a GPU container with no memory "
     "limit inside it would pass in silence, and a clean run would mean nothing. gpulint looks "
     "through every object for what carries containers (a containers list with images, a "
     "mapping with an image and resources, resources that ask for GPUs) or asks for GPUs "
     "outside any container (an inference flavour's limits, a Spark executor's gpu), and "
     "reports what it could not reach. A warning by default: the object may be fine; `gpulint check --strict` "
     "makes it an error.",
     "Teach gpulint the kind's shape with the policy entry the message gives (spec.workloads in a "
     ".gpulint.yaml or --policy file: templates for pod templates, podSpecs for pod specs, "
     "containers for single containers, containerLists for lists of them), or, if the object "
     "is not a workload, silence the rule for it with an ignore annotation and a reason.",
     RuleExample("workload-not-checked"), /*gpus=*/nullptr,
     /*no_fix=*/nullptr, /*needs_nodes=*/false, /*not_cel=*/
     "it looks for containers at any depth of an object, and CEL has no recursion"},
    Check,
};

}  // namespace gpulint
