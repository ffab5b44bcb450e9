// Nodes at risk now: what the pods bound to a node request and limit, summed
// as the scheduler sums them (the engine's PodInfo arithmetic: init
// containers, native sidecars, pod overhead, pod-level resources), against
// allocatable less the policy's reserve (the arithmetic exceeds-allocatable
// shows, rule_util.h); and the GPU sharing and VRAM advertising that a pod's
// own manifest cannot show.
#include <optional>
#include <string>

#include "engine/cluster/gpu_memory.h"
#include "engine/rules/rule_util.h"
#include "lint/cli/audit.h"

namespace gpulint {
namespace {

const RuleInfo kNodeMemoryRequests = {
    "node-memory-requests", Severity::kError,
    "The memory the pods on a node request exceeds allocatable minus the reserved headroom",
    "The scheduler fits requests to allocatable; it knows nothing of the policy's headroom, nor "
    "of the host memory outside the pods' cgroups: on a discrete GPU the driver's (about 120 "
    "MiB per CUDA context and 1.2% of what a process pins, measured on an H200), on a "
    "unified-memory GPU (Grace Hopper, GB10, MI300A) all the GPU memory the pods use, which "
    "the sum here counts. On the V100 node of the field report, requests stood at 99% of "
    "allocatable with 3.3 GiB left for the system, kubelet and ten daemon pods, and the node "
    "hung when the job used its request.",
    "Move or shrink the pods named on the node (their requests are in the workloads' findings), "
    "or size requests in G rather than Gi (500Gi is 536.9 GB), so that the sum stays under the "
    "available figure shown."};

const RuleInfo kNodeMemoryLimits = {
    "node-memory-limits", Severity::kWarning,
    "The memory limits of the pods on a node add up past allocatable minus the reserved headroom",
    "Limits may exceed what the node has, and the kernel settles it when the pods use them: "
    "with memory outside the pods' cgroups (the driver's on a discrete GPU; an OpenGL/EGL "
    "renderer's, 31 GB on the T4 node of the field report; the GPU memory itself on a "
    "unified-memory GPU), the node runs out before any cgroup does, and hangs instead of "
    "OOM-killing (that T4 node, lost with its neighbours one after the other).",
    "Lower the limits of the largest pods on the node, or give GPU pods limits that leave the "
    "per-GPU headroom free (gpulint's mutation does it for new pods)."};

const RuleInfo kNodeVramNotAdvertised = {
    "node-vram-not-advertised", Severity::kWarning,
    "A GPU node does not advertise its VRAM while the policy's VRAM mutation is on",
    "The mutation gives GPU containers a VRAM request only toward nodes that advertise the VRAM "
    "resource, so on this node VRAM is not scheduled at all: five pods of 12 GB each can land on "
    "one 48 GB GPU, and the fifth crash-loops (the RTX 8000 of the field report).",
    "Run gpulint-webhook with --advertise-vram (the chart's vram.advertise), or patch the node's "
    "status once with 'gpulint node-patch'. A node with no nvidia.com/gpu.memory label needs GPU "
    "Feature Discovery, or the VRAM given by hand."};

const RuleInfo kNodeGpuSharing = {
    "node-gpu-sharing", Severity::kError,
    "The pods on a node with shared GPUs (MPS or time-slicing) ask for more than its GPUs have",
    "A replica of a shared GPU is a slice of one card whose memory every replica shares. When "
    "the pods bound to the node ask for more replicas than its GPUs are cut into, or declare "
    "more VRAM than its GPUs hold, they run out of GPU memory at run time, not at scheduling.",
    "Lower the VRAM the pods declare, spread them over more nodes, or cut the GPUs into fewer, "
    "larger replicas."};

// Adds `q` to `list[resource]`. Sums of bytes are written in binary units, as
// `kubectl describe node` writes them, whatever unit the pods used.
void AddTo(ResourceList* list, const std::string& resource, const Quantity& q,
           const Policy& policy) {
  QuantityFormat format =
      IsByteResource(resource, policy) ? QuantityFormat::kBinarySI : QuantityFormat::kDecimalSI;
  Quantity& sum = (*list)[resource];
  sum = Quantity::FromNano((sum + q).nano(), format);
}

// The overhead of `pod` for `resource` (spec.overhead), zero for none.
Quantity OverheadOf(const PodInfo& pod, const std::string& resource) {
  for (const ResourceEntry& e : pod.overhead)
    if (e.name == resource && e.valid) return e.quantity;
  return Quantity();
}

// Whether the kernel bounds the pod's memory: a pod-level limit, or one on
// every container.
bool MemoryBounded(const PodInfo& pod) {
  if (const ResourceEntry* l = pod.PodLimit("memory"); l && l->valid) return true;
  for (const ContainerInfo& c : pod.containers) {
    const ResourceEntry* l = c.Limit("memory");
    if (!l || !l->valid) return false;
  }
  return !pod.containers.empty();
}

Finding NodeFinding(const RuleInfo& rule, const NodeClass& node, std::string message,
                    Severity severity) {
  Finding f;
  f.rule = rule.name;
  f.severity = severity;
  f.object = {"v1", "Node", "", node.name};
  f.message = std::move(message);
  return f;
}

// "99%": `part` of `whole`, rounded down; "" when `whole` is zero.
std::string Percent(const Quantity& part, const Quantity& whole) {
  if (whole.sign() <= 0) return "";
  return std::to_string(static_cast<long long>(part.nano() * 100 / whole.nano())) + "%";
}

std::string Pods(size_t n) { return std::to_string(n) + (n == 1 ? " pod" : " pods"); }

// The memory check for "requests" or "limits". On a unified-memory node the
// GPU memory the pods declare is the node's memory too.
void CheckMemory(const RuleInfo& rule, const char* what, const Quantity& sum, const NodeClass& node,
                 const NodeUsage& usage, const Policy& policy, std::vector<Finding>* out) {
  Quantity available = AvailableOn("memory", node, policy);
  std::string gpu_memory;
  Quantity total = sum;
  if (!usage.gpu_memory.is_zero()) {
    gpu_memory = " and " + Describe("memory", usage.gpu_memory, policy) +
                 " of GPU memory they declare (on this unified-memory GPU the node's memory, "
                 "which no cgroup counts)";
    total = Quantity::FromNano((sum + usage.gpu_memory).nano(), QuantityFormat::kBinarySI);
  }
  if (total.sign() <= 0 || total <= available) return;
  auto alloc = node.allocatable.find("memory");
  Quantity allocatable = alloc == node.allocatable.end() ? Quantity() : alloc->second;
  std::string percent = Percent(total, allocatable);
  std::string message = std::string("memory ") + what + " of its " + Pods(usage.pods) + " " +
                        Describe("memory", sum, policy) + gpu_memory +
                        (percent.empty() ? "" : ", " + percent + " of allocatable,") + " > " +
                        AvailableArithmetic("memory", node, policy) + ": " +
                        FormatBytes(total - available) + " over";
  if (std::string(what) == "limits" && usage.pods_without_memory_limit > 0)
    message += "; and " + Pods(usage.pods_without_memory_limit) + " with no memory limit at all";
  out->push_back(NodeFinding(rule, node, std::move(message), rule.severity));
}

}  // namespace

const std::vector<const RuleInfo*>& NodeChecks() {
  static const std::vector<const RuleInfo*> checks = {&kNodeMemoryRequests, &kNodeMemoryLimits,
                                                      &kNodeVramNotAdvertised, &kNodeGpuSharing};
  return checks;
}

void NodeUsage::Add(const PodInfo& pod, const NodeClass& node, const Policy& policy) {
  ++pods;
  for (const std::string& r : pod.ResourceNames()) {
    Quantity request = pod.FitRequest(r);
    if (!request.is_zero()) AddTo(&requests, r, request, policy);
    // As `kubectl describe node` sums them: the overhead counts toward a
    // limit that is set.
    Quantity limit = pod.EffectiveLimit(r);
    if (!limit.is_zero()) AddTo(&limits, r, limit + OverheadOf(pod, r), policy);
  }
  if (!MemoryBounded(pod)) ++pods_without_memory_limit;
  gpu_replicas += pod.GpuCount(policy);
  bool unified = policy.UnifiedMemory(node);
  bool shared = node.gpu.sharing != GpuSharing::kNone && node.gpu.replicas > 1;
  if (!shared && !unified) return;
  std::optional<Quantity> per_gpu = VramForPods(node.gpu, policy.vram_model);
  for (const ContainerInfo& c : pod.containers) {
    if (!c.UsesGpus(policy)) continue;
    std::optional<VramDeclaration> declared = DeclaredVram(pod, c, policy);
    if (unified && declared) gpu_memory = gpu_memory + declared->declared;
    if (!shared) continue;
    if (declared) {
      vram = vram + declared->scheduled;  // as the VRAM resource counts it
    } else if (per_gpu) {
      // Undeclared: the replica's share, as the mutation would declare it.
      vram = vram + Quantity::FromInt(per_gpu->Value() / node.gpu.replicas, per_gpu->format()) *
                        c.GpuCount(policy).Value();
    }
  }
}

std::vector<Finding> NodeFindings(const NodeClass& node, const NodeUsage& usage,
                                  const Policy& policy) {
  std::vector<Finding> out;
  auto find = [](const ResourceList& list, const char* r) {
    auto it = list.find(r);
    return it == list.end() ? Quantity() : it->second;
  };
  CheckMemory(kNodeMemoryRequests, "requests", find(usage.requests, "memory"), node, usage, policy,
              &out);
  CheckMemory(kNodeMemoryLimits, "limits", find(usage.limits, "memory"), node, usage, policy, &out);
  if (node.has_gpu() && policy.mutations.vram && !node.allocatable.count(policy.vram_resource)) {
    std::string gpus = std::to_string(node.gpu.count) + (node.gpu.count == 1 ? " GPU" : " GPUs") +
                       (node.gpu.model.empty() ? "" : " (" + node.gpu.model + ")");
    std::optional<Quantity> vram = AdvertisedVram(node, policy.vram_model);
    out.push_back(NodeFinding(
        kNodeVramNotAdvertised, node,
        "its " + gpus + " hold " +
            (vram ? FormatBytes(*vram) + " of VRAM for pods"
                  : std::string("VRAM of no known size (no nvidia.com/gpu.memory label)")) +
            ", and it does not advertise " + policy.vram_resource +
            " while the policy's VRAM mutation is on: VRAM is not scheduled on it",
        kNodeVramNotAdvertised.severity));
  }
  bool shared = node.gpu.sharing != GpuSharing::kNone && node.gpu.replicas > 1;
  if (shared) {
    int64_t slices = node.gpu.count * node.gpu.replicas;
    std::string mode = GpuSharingName(node.gpu.sharing);
    if (usage.gpu_replicas > slices) {
      out.push_back(NodeFinding(
          kNodeGpuSharing, node,
          "its pods ask for " + std::to_string(usage.gpu_replicas) + " replicas of its " +
              std::to_string(node.gpu.count) + " GPUs shared by " + mode + " into " +
              std::to_string(node.gpu.replicas) + " replicas each (" + std::to_string(slices) + ")",
          kNodeGpuSharing.severity));
    }
    std::optional<Quantity> total = AdvertisedVram(node, policy.vram_model);
    if (total && usage.vram > *total) {
      out.push_back(NodeFinding(kNodeGpuSharing, node,
                                "its pods declare " + FormatBytes(usage.vram) +
                                    " of VRAM (a replica's share where "
                                    "they declare none) on GPUs shared by " +
                                    mode + " that hold " + FormatBytes(*total) + ": " +
                                    FormatBytes(usage.vram - *total) + " over",
                                kNodeGpuSharing.severity));
    }
  }
  return out;
}

}  // namespace gpulint
