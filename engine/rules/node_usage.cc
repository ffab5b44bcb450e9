// A node's pods summed, and the node rules run over the sums.
#include <optional>
#include <string>

#include "engine/cluster/gpu_memory.h"
#include "engine/rules/node_rules.h"
#include "engine/rules/rule_util.h"

namespace gpulint {
namespace {

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

// "99%": `part` of `whole`, rounded down; "" when `whole` is zero.
std::string Percent(const Quantity& part, const Quantity& whole) {
  if (whole.sign() <= 0) return "";
  return std::to_string(static_cast<long long>(part.nano() * 100 / whole.nano())) + "%";
}

std::string Pods(size_t n) { return std::to_string(n) + (n == 1 ? " pod" : " pods"); }

}  // namespace

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

void NodeReporter::Report(std::string message) {
  Finding f;
  f.rule = rule_.name;
  f.severity = severity_;
  f.object = {"v1", "Node", "", node_.name};
  f.message = std::move(message);
  out_->push_back(std::move(f));
}

std::vector<Finding> NodeFindings(const NodeClass& node, const NodeUsage& usage,
                                  const Policy& policy) {
  std::vector<Finding> out;
  NodeContext ctx{node, usage, policy};
  for (const Rule* rule : AllRules()) {
    const RuleInfo& info = rule->info;
    if (info.scope != RuleScope::kNode || !policy.RuleEnabled(info.name)) continue;
    NodeReporter reporter(info, policy.RuleSeverity(info.name, info.severity), node, &out);
    rule->check_node(ctx, reporter);
  }
  return out;
}

std::vector<const RuleInfo*> NodeRules() {
  std::vector<const RuleInfo*> out;
  for (const Rule* rule : AllRules())
    if (rule->info.scope == RuleScope::kNode) out.push_back(&rule->info);
  return out;
}

// On a unified-memory node the GPU memory the pods declare is the node's
// memory too.
void ReportMemoryOver(const char* what, const Quantity& sum, const NodeContext& ctx,
                      NodeReporter& out) {
  const NodeClass& node = ctx.node;
  const Policy& policy = ctx.policy;
  Quantity available = AvailableOn("memory", node, policy);
  std::string gpu_memory;
  Quantity total = sum;
  if (!ctx.usage.gpu_memory.is_zero()) {
    gpu_memory = " and " + Describe("memory", ctx.usage.gpu_memory, policy) +
                 " of GPU memory they declare (on this unified-memory GPU the node's memory, "
                 "which no cgroup counts)";
    total = Quantity::FromNano((sum + ctx.usage.gpu_memory).nano(), QuantityFormat::kBinarySI);
  }
  if (total.sign() <= 0 || total <= available) return;
  auto alloc = node.allocatable.find("memory");
  Quantity allocatable = alloc == node.allocatable.end() ? Quantity() : alloc->second;
  std::string percent = Percent(total, allocatable);
  std::string message = std::string("memory ") + what + " of its " + Pods(ctx.usage.pods) + " " +
                        Describe("memory", sum, policy) + gpu_memory +
                        (percent.empty() ? "" : ", " + percent + " of allocatable,") + " > " +
                        AvailableArithmetic("memory", node, policy) + ": " +
                        FormatBytes(total - available) + " over";
  if (std::string(what) == "limits" && ctx.usage.pods_without_memory_limit > 0)
    message +=
        "; and " + Pods(ctx.usage.pods_without_memory_limit) + " with no memory limit at all";
  out.Report(std::move(message));
}

}  // namespace gpulint
