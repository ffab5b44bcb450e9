// shared-gpu-multiple-replicas: 2 replicas of a time-sliced or MPS GPU are not
// 2 GPUs (incident 4).
#include "engine/rule.h"
#include "engine/rules/rule_util.h"

namespace gpulint {
namespace {

// Why the pod lands on shared GPUs, or "".
std::string SharedReason(const PodInfo& pod) {
  for (const NodeClass* n : pod.candidates)
    if (n->has_gpu() && n->gpu.sharing != GpuSharing::kNone)
      return "node \"" + n->name + "\" shares each GPU (" + GpuSharingName(n->gpu.sharing) + ", " +
             std::to_string(n->gpu.replicas) + " replicas)";
  for (const auto& [key, value] : pod.placement.node_selector) {
    bool shared_product = key == "nvidia.com/gpu.product" && value.size() > 7 &&
                          value.substr(value.size() - 7) == "-SHARED";
    if (shared_product || key == "nvidia.com/gpu.sharing-strategy" ||
        (key == "nvidia.com/mps.capable" && value == "true"))
      return "its nodeSelector " + key + "=" + value + " selects shared GPUs";
  }
  return "";
}

void Check(const ObjectContext& ctx, Reporter& out) {
  for (const PodInfo& pod : ctx.pods) {
    std::string reason = SharedReason(pod);
    if (reason.empty()) continue;
    for (const ContainerInfo& c : pod.containers) {
      for (const std::string& gpu : ctx.policy.gpu_resources) {
        const ResourceEntry* e = c.Limit(gpu);
        if (!e) e = c.Request(gpu);
        if (!e || !e->valid || e->quantity <= Quantity::FromInt(1)) continue;
        out.Report(e->value, e->path,
                   ContainerLabel(c) + " asks for " + DescribeCount(e->quantity) + " " + gpu +
                       " but " + reason +
                       ": the replicas are slices of one card whose memory they all share, not " +
                       DescribeCount(e->quantity) + " GPUs");
      }
    }
  }
}

}  // namespace

extern const Rule kSharedGpuMultipleReplicasRule = {
    {"shared-gpu-multiple-replicas", Severity::kWarning,
     "More than one replica of a shared (MPS / time-sliced) GPU",
     "With MPS or time-slicing the device plugin advertises each GPU as N replicas (incident 4: "
     "one T4 as nvidia.com/gpu: 10). A request of 2 is two slices, which may be of the same "
     "card: no more compute or memory than one, and no isolation between them.",
     "Request one replica per container on shared nodes, or schedule multi-GPU work on nodes "
     "without sharing."},
    Check,
};

}  // namespace gpulint
