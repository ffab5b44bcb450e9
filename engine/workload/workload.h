// Every workload's pods, found by the policy's template paths, with their
// containers' resources parsed once so no rule cares whether a pod sits in a
// Deployment, a CronJob or a PyTorchJob.
#ifndef GPULINT_ENGINE_WORKLOAD_WORKLOAD_H_
#define GPULINT_ENGINE_WORKLOAD_WORKLOAD_H_

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/finding.h"
#include "engine/base/value.h"
#include "engine/cluster/inventory.h"
#include "engine/policy/policy.h"
#include "engine/quantity/quantity.h"
#include "engine/workload/dra.h"

namespace gpulint {

enum class ContainerRole { kInit, kSidecar, kApp };  // sidecar: init with restartPolicy Always
const char* ContainerRoleName(ContainerRole r);      // "initContainer", "sidecar", "container"

// A quantity as written in a resource list, with where it was written.
struct ResourceEntry {
  std::string name;    // "memory", "nvidia.com/gpu"
  const Value* value;  // the node as written
  std::string path;    // ...resources.limits.memory
  bool valid = false;
  Quantity quantity;    // as the API server stores it (milli-rounded); set when valid
  QuantityError error;  // set when not valid
  // The quantity as the user wrote it, when the mutating webhook's memory
  // headroom has been taken back out of `quantity` (see ExtractPods); else
  // empty, and Text() is the value's own text.
  std::string unmutated;
  std::string_view Text() const { return unmutated.empty() ? value->text() : unmutated; }
};

struct ContainerInfo {
  const Value* node = nullptr;
  std::string path;     // spec.template.spec.containers[0]
  std::string pointer;  // /spec/template/spec/containers/0
  ContainerRole role = ContainerRole::kApp;
  std::string name;
  std::string image;
  // The field holding requests and limits: "resources", or what the kind's
  // workloads entry names (Kubeflow Trainer's "resourcesPerNode").
  std::string resources_field = "resources";
  std::vector<ResourceEntry> requests;
  std::vector<ResourceEntry> limits;
  // The GPU device requests (of the policy's GPU device classes) that the
  // container's DRA claims (resources.claims) reach, where the claim or its
  // template is in view; `claim` names the pod's claim for each.
  struct GpuClaim {
    std::string claim;
    DeviceRequest request;
  };
  std::vector<GpuClaim> gpu_claims;

  const ResourceEntry* Request(std::string_view resource) const;
  const ResourceEntry* Limit(std::string_view resource) const;
  // The request the API server would default: requests[r], else limits[r]
  // (valid entries only); zero when neither is set.
  Quantity EffectiveRequest(std::string_view resource) const;
  // Sum over the policy's GPU resources of the (valid) limit, else request.
  // Device-plugin GPUs only: DRA devices are not counted here (a MIG slice
  // is not a GPU's VRAM, and a claim may ask for All devices).
  Quantity GpuCount(const Policy& policy) const;
  // Whether the container uses GPUs, of any vendor and by any means: a limit
  // of the policy's gpuResources (whole NVIDIA, AMD or Intel GPUs; valid or
  // not, above zero), a request or limit of otherGpuAssignments.resources
  // (MIG profiles, GPU-sharing plugins' shares), or a DRA claim that reaches
  // a GPU device class. Every rule about GPU containers asks this.
  bool UsesGpus(const Policy& policy) const;
  // Whether resources.claims names any DRA claim, GPU or not, resolved or not.
  bool HasClaims() const;
  // Whether the container is privileged: it sees every device of its node.
  bool Privileged() const;
  // The value of env var `name` when set with a plain value; nullptr otherwise.
  const Value* Env(std::string_view name) const;
};

// What a node's DRA devices make of a pod's demands on them (dra_fit.h).
struct DeviceFit {
  enum class Answer { kFits, kNo, kCannotTell };
  Answer answer = Answer::kFits;
  // kNo: why, in the scheduler's terms ("nvidia.com/gpu 5 > 4 devices of
  // DeviceClass gpu.nvidia.com"); kCannotTell: what could not be read.
  std::string why;
};

struct PodInfo {
  // The PodTemplateSpec (or the Pod itself) holding metadata and spec; null
  // for pod specs found without a template (KServe predictors).
  const Value* template_node = nullptr;
  std::string template_pointer;     // "" for a Pod, "/spec/template", ...
  const Value* metadata = nullptr;  // may be null
  const Value* spec = nullptr;
  std::string path;     // path of the pod spec: "spec", "spec.template.spec", ...
  std::string pointer;  // JSON pointer of the pod spec: "/spec", "/spec/template/spec"
  std::vector<ContainerInfo> containers;
  // Pod-level resources (spec.resources; beta, on by default, since 1.34).
  // Only the supported ones are kept: cpu, memory, hugepages-*.
  std::vector<ResourceEntry> requests;
  std::vector<ResourceEntry> limits;
  // spec.overhead (the RuntimeClass's sandbox), added to the pod's requests
  // where the scheduler fits it.
  std::vector<ResourceEntry> overhead;
  // The pod's DRA claims (spec.resourceClaims) that its containers use but
  // whose ResourceClaim or ResourceClaimTemplate is not in view: gpulint
  // cannot tell what devices they bring, and counts none.
  struct UnresolvedClaim {
    const Value* node;
    std::string path;    // spec.resourceClaims[0]
    std::string name;    // the pod's name for the claim
    std::string source;  // "ResourceClaimTemplate \"gpu-template\""
  };
  std::vector<UnresolvedClaim> unresolved_claims;
  // The pod's DRA claims (spec.resourceClaims) whose ResourceClaim or
  // ResourceClaimTemplate is in view, each with its device requests: the
  // scheduler allocates every one of them with the pod, used by a container
  // or not.
  struct Claim {
    std::string name;  // the pod's name for the claim
    std::vector<DeviceRequest> requests;
  };
  std::vector<Claim> claims;
  Placement placement;
  // Candidate nodes of the inventory (all that pass nodeName, selector,
  // affinity and taints), a group of alike nodes per entry.
  std::vector<Candidate> candidates;
  // For each candidate, whether its DRA devices hold what the pod asks of
  // them (its claims' requests, and the extended resources DeviceClasses back
  // there); kFits for all when it asks none, or the inventory knows no DRA.
  std::vector<DeviceFit> device_fits;
  bool can_reach_gpu_node = false;  // see Policy: inventory, else taints/labels/images
  std::string gpu_reach_reason;     // why: "tolerates the nvidia.com/gpu taint", ...
  // Why the pod is a GPU node agent (engine/workload/node_agent.h), which no mutation
  // changes and no GPU-visibility rule blames; "" when it is not one.
  std::string node_agent;
  // Defaults merged into other objects' pods (a KServe runtime's: the
  // workloads entry's `partial`), never run as written: rules about what a
  // pod leaves out or where it lands skip it, and nothing mutates it.
  bool partial = false;

  // Kubernetes' effective pod request for `resource`: the larger of
  // sum(app containers) + sum(sidecars) and, for each init container, its own
  // request plus the sidecars started before it; a pod-level request replaces
  // that sum, and with none, a pod-level limit stands for a request no
  // container makes (the API server's defaulting). Limits alike: a pod-level
  // limit replaces the containers' sum.
  Quantity EffectiveRequest(std::string_view resource) const;
  Quantity EffectiveLimit(std::string_view resource) const;
  // What the scheduler fits on a node: EffectiveRequest plus spec.overhead.
  Quantity FitRequest(std::string_view resource) const;
  // Every resource the pod names: in its containers' requests and limits, its
  // pod-level resources and its overhead.
  std::set<std::string> ResourceNames() const;
  // The pod-level entry for `resource` (valid or not), or null.
  const ResourceEntry* PodRequest(std::string_view resource) const;
  const ResourceEntry* PodLimit(std::string_view resource) const;
  // Annotation on the pod template (or Pod), else nullptr.
  const Value* Annotation(std::string_view key) const;
  int64_t GpuCount(const Policy& policy) const;  // effective GPU request, whole GPUs
  // Whether any container sets a GPU limit or request (valid or not): of
  // gpuResources, or a MIG slice.
  bool AsksForGpus(const Policy& policy) const;
  // Whether a scheduler that assigns GPUs itself marks the pod (a label or
  // annotation of otherGpuAssignments.podKeys: KAI's gpu-fraction, KubeShare).
  bool SchedulerAssignsGpus(const Policy& policy) const;
  // The pod's one app container, or null when it has several (or none): the
  // container a pod-level VRAM annotation stands for when no container asks
  // for a GPU.
  const ContainerInfo* OnlyAppContainer() const;
};

// The pods of `object` per the policy's workload table. Objects that carry no
// pods yield none. A pod that the mutation gave memory headroom (recorded in
// the policy's headroom annotation) is read as the user wrote it: each
// container's memory request and limit less what was recorded for it, at most
// the per-GPU headroom of its GPUs, so validating a mutated pod gives the
// verdict its original gets and messages quote the user's numbers.
// `claims`, when given, resolves the pods' DRA claims (else every claim a
// container uses is unresolved).
std::vector<PodInfo> ExtractPods(const Value& object, const Policy& policy,
                                 const Inventory& inventory, const DeviceClaims* claims = nullptr);

}  // namespace gpulint

#endif  // GPULINT_ENGINE_WORKLOAD_WORKLOAD_H_
