// gpu-request-limit-mismatch: extended resources (GPUs, the VRAM resource)
// cannot be overcommitted: requests must equal limits, and limits must be set.
#include "engine/base/path.h"
#include "engine/rules/rule.h"
#include "engine/rules/rule_text.h"
#include "engine/rules/rule_util.h"
#include "generated/rule_examples.h"

namespace gpulint {
namespace {

// The repair of a request with no limit: the limit set to the request.
FixIt AddLimit(const ContainerInfo& c, const ResourceEntry& request) {
  std::string limits_pointer = c.pointer + "/resources/limits";
  const Value* limits = c.node->Find("resources")->Find("limits");
  PatchOp op{"add", limits_pointer + "/" + EscapePointerSegment(request.name), *request.value};
  if (!limits || !limits->is_mapping()) {
    Value map(Value::Type::kMapping);
    map.mutable_members().push_back({request.name, *request.value});
    op = PatchOp{limits ? "replace" : "add", limits_pointer, std::move(map)};
  }
  return FixIt{{std::move(op)},
               "add limit " + std::string(request.Text()) +
                   " (equal to the request: extended resources need limits equal to requests)",
               ""};
}

// The repair of a request that differs from its limit: the request set to the
// limit, which is what the device plugin hands out.
FixIt RequestToLimit(const ContainerInfo& c, const ResourceEntry& request,
                     const ResourceEntry& limit) {
  return FixIt{
      {PatchOp{"replace", c.pointer + "/resources/requests/" + EscapePointerSegment(request.name),
               *limit.value}},
      std::string(request.Text()) + " -> " + std::string(limit.Text()) +
          " (the limit: what the device plugin allocates; extended resources need "
          "requests equal to limits)",
      ""};
}

void CheckContainer(const ContainerInfo& c, Reporter& out) {
  for (const ResourceEntry& req : c.requests) {
    if (!req.valid || !IsExtendedResource(req.name)) continue;
    const ResourceEntry* lim = c.Limit(req.name);
    if (!lim) {
      Finding& f = out.Report(
          req.value, req.path,
          ContainerLabel(c) + ": " + req.name + " is requested (" + DescribeCount(req.quantity) +
              std::string(rule_text::kRequestWithoutLimit));
      if (out.fixes()) f.fix = AddLimit(c, req);
    } else if (lim->valid && lim->quantity != req.quantity) {
      Finding& f = out.Report(
          req.value, req.path,
          ContainerLabel(c) + ": " + req.name + " requests " + DescribeCount(req.quantity) +
              " but limits " + DescribeCount(lim->quantity) +
              std::string(rule_text::kRequestNotLimit));
      if (out.fixes()) f.fix = RequestToLimit(c, req, *lim);
    }
  }
}

void Check(const ObjectContext& ctx, Reporter& out) {
  for (const PodInfo& pod : ctx.pods)
    for (const ContainerInfo& c : pod.containers) CheckContainer(c, out);
}

}  // namespace

extern const Rule kGpuRequestLimitMismatchRule = {
    {"gpu-request-limit-mismatch", Severity::kError,
     "GPU (extended resource) requests differ from limits",
     "GPUs and other extended resources are allocated whole and cannot be overcommitted: the API "
     "server rejects a pod whose requests differ from its limits, after the mutating webhooks "
     "have run. A limit alone is fine: the request defaults to it.",
     "Set only limits (e.g. `nvidia.com/gpu: 2`), or set requests equal to limits.",
     RuleExample("gpu-request-limit-mismatch"), kWholeGpus, kNoRepair},
    Check,
};

}  // namespace gpulint
