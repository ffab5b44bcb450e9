// shared-gpu-multiple-replicas: 2 replicas of a time-sliced or MPS GPU are not
// 2 GPUs (incident 4).
#include <algorithm>

#include "engine/rules/rule.h"
#include "engine/rules/rule_util.h"
#include "generated/rule_examples.h"

namespace gpulint {
namespace {

struct Sharing {
  std::string reason;  // why the pod lands on shared GPUs; "" when it does not
  bool only_mps = false;  // every GPU node it can reach shares by MPS
};

// Why the pod lands on shared GPUs, and whether it can land nowhere else than
// on GPUs shared by MPS. Only GPU nodes that can hold the pod count: an 8-GPU
// pod never lands on a node whose one GPU is cut into 4 replicas (and
// exceeds-allocatable says so when that is all there is).
Sharing SharingOf(const PodInfo& pod, const Policy& policy) {
  Sharing sharing;
  bool all_mps = true, any_gpu = false, any_holds = false;
  int64_t wanted = pod.GpuCount(policy);
  for (const Candidate& candidate : pod.candidates) {
    const NodeClass* n = candidate.node;
    if (!n->has_gpu()) continue;
    any_gpu = true;
    if (n->gpu.count * std::max<int64_t>(1, n->gpu.replicas) < wanted) continue;
    any_holds = true;
    all_mps = all_mps && n->gpu.sharing == GpuSharing::kMps;
    if (sharing.reason.empty() && n->gpu.sharing != GpuSharing::kNone)
      sharing.reason = "node \"" + std::string(candidate.name) + "\" shares each GPU (" +
                       GpuSharingName(n->gpu.sharing) + ", " + std::to_string(n->gpu.replicas) +
                       " replicas)";
  }
  if (any_gpu) {
    sharing.only_mps = any_holds && all_mps;
    return sharing;
  }
  for (const auto& [key, value] : pod.placement.node_selector) {
    bool shared_product = key == "nvidia.com/gpu.product" && value.size() > 7 &&
                          value.substr(value.size() - 7) == "-SHARED";
    bool mps = (key == "nvidia.com/gpu.sharing-strategy" && value == "mps") ||
               (key == "nvidia.com/mps.capable" && value == "true");
    if (shared_product || mps || key == "nvidia.com/gpu.sharing-strategy")
      return {"its nodeSelector " + key + "=" + value + " selects shared GPUs", mps};
  }
  return sharing;
}

void Check(const ObjectContext& ctx, Reporter& out) {
  for (const PodInfo& pod : ctx.pods) {
    if (pod.partial) continue;  // a runtime's defaults, never run as written
    Sharing sharing = SharingOf(pod, ctx.policy);
    if (sharing.reason.empty()) continue;
    for (const ContainerInfo& c : pod.containers) {
      for (const std::string& gpu : ctx.policy.gpu_resources) {
        const ResourceEntry* e = c.Limit(gpu);
        if (!e) e = c.Request(gpu);
        if (!e || !e->valid || e->quantity <= Quantity::FromInt(1)) continue;
        std::string msg = ContainerLabel(c) + " asks for " + DescribeCount(e->quantity) + " " +
                          gpu + " but " + sharing.reason;
        // NVIDIA's device plugin (0.15 and later) refuses every request of
        // more than one MPS replica at the kubelet: where the pod can land
        // only on MPS nodes, it can never start.
        if (sharing.only_mps)
          out.Report(e->value, e->path,
                     msg + ": the device plugin refuses more than one MPS replica per container, "
                           "so the pod would never start");
        else
          out.Report(e->value, e->path,
                     msg + ": the replicas are slices of one card whose memory they all share, "
                           "not " + DescribeCount(e->quantity) + " GPUs",
                     Severity::kWarning);
      }
    }
  }
}

}  // namespace

extern const Rule kSharedGpuMultipleReplicasRule = {
    {"shared-gpu-multiple-replicas", Severity::kError,
     "More than one replica of a shared (MPS / time-sliced) GPU",
     "With MPS or time-slicing the device plugin advertises each GPU as N replicas (one T4 "
     "as nvidia.com/gpu: 10, for instance). Under MPS, NVIDIA's device plugin (0.15 and later) refuses "
     "a container more than one replica at the kubelet, so such a pod never starts: an error. "
     "Under time-slicing a request of 2 is two slices, which may be of the same card: no more "
     "compute or memory than one, and no isolation between them: a warning.",
     "Request one replica per container on shared nodes, or schedule multi-GPU work on nodes "
     "without sharing.",
     RuleExample("shared-gpu-multiple-replicas"), kWholeGpus,
     /*no_fix=*/nullptr, /*needs_nodes=*/false, /*not_cel=*/kNotCelNeedsNodes},
    Check,
};

}  // namespace gpulint
