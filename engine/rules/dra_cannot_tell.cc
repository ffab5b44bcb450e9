// dra-cannot-tell: where the answer hangs on DRA devices gpulint cannot judge
// (a selector it does not evaluate, a shared or tainted device), it says
// what it could not read, and refuses nothing.
#include "engine/rules/rule.h"
#include "engine/workload/dra_fit.h"
#include "generated/rule_examples.h"

namespace gpulint {
namespace {

// A pod whose devices surely fit on none of its candidates, but may on one.
void CheckPod(const PodInfo& pod, Reporter& out) {
  const Candidate* where = nullptr;
  const DeviceFit* undecided = nullptr;
  for (size_t i = 0; i < pod.candidates.size(); ++i) {
    const DeviceFit& fit = pod.device_fits[i];
    if (fit.answer == DeviceFit::Answer::kFits) return;
    if (fit.answer == DeviceFit::Answer::kCannotTell && !undecided) {
      undecided = &fit;
      where = &pod.candidates[i];
    }
  }
  if (!undecided) return;
  out.Report(pod.spec, pod.path,
             "gpulint cannot tell whether the pod's DRA devices can be allocated: on node \"" +
                 std::string(where->name) + "\"" +
                 (where->count > 1 ? " (and " + std::to_string(where->count - 1) + " alike)" : "") +
                 ", " + undecided->why + "; it is not refused for it");
}

void Check(const ObjectContext& ctx, Reporter& out) {
  for (const PodInfo& pod : ctx.pods)
    if (!pod.partial) CheckPod(pod, out);
  // A claim on its own, as vram-exceeds-gpu judges it.
  for (const DeviceRequestAt& r : ClaimRequests(ctx.object)) {
    if (!r.request.other_classes.empty() || r.request.capacity.empty() ||
        !IsGpuRequest(r.request, ctx.policy.gpu_device_classes))
      continue;
    RequestOnDevices on = JudgeRequestOnDevices(r.request, ctx.inventory);
    if (on.answer != RequestOnDevices::Answer::kCannotTell) continue;
    out.Report(r.node, r.path,
               "gpulint cannot tell whether any device can hold request \"" + r.request.name +
                   "\": " + on.why + "; it is not refused for it");
  }
}

}  // namespace

extern const Rule kDraCannotTellRule = {
    {"dra-cannot-tell", Severity::kInfo,
     "DRA devices gpulint cannot judge",
     "gpulint fits a pod's DRA devices (its claims, and extended resources a DeviceClass backs) "
     "against what drivers publish in ResourceSlices, with the classes' and requests' CEL "
     "selectors evaluated as the scheduler does. Where the answer hangs on something it does not "
     "evaluate (a CEL function or macro outside the forms drivers use, an attribute a selector "
     "reads without has() that a device lacks, a device shared by several claims, a tainted "
     "device a claim may tolerate) it cannot tell whether the devices fit, and it never refuses "
     "or fails a pod for that: it says what it could not read.",
     "Nothing is wrong with the workload for this. To have it judged, write the selector in the "
     "forms docs/dra.md lists, or check the pod's placement with `kubectl describe pod` after "
     "it is created.",
     RuleExample("dra-cannot-tell"), /*gpus=*/nullptr, /*no_fix=*/nullptr,
     /*needs_nodes=*/true,
     /*not_cel=*/kNotCelNeedsNodes},
    Check,
};

}  // namespace gpulint
