// no-matching-node: with a node inventory, a pod that can land on none of it
// stays Pending (or its selectors are wrong). The finding points at what
// rules the nodes out (a nodeSelector key, the required node affinity, the
// tolerations), and a gap of the inventory is said as one: a label every real
// node of its kind carries that no node of the inventory has, or an inventory
// of GPU nodes only against a pod that asks for no GPU.
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "engine/base/path.h"
#include "engine/rules/rule.h"
#include "engine/rules/rule_util.h"
#include "generated/rule_examples.h"

namespace gpulint {
namespace {

// Who puts a label on nodes, when it is one a real node list always has
// ("kubelet puts on every node"): "" for any other label.
std::string WhoSets(std::string_view key, const std::set<std::string>& keys) {
  static constexpr std::string_view kKubelet[] = {
      "kubernetes.io/arch", "kubernetes.io/os", "kubernetes.io/hostname", "beta.kubernetes.io/arch",
      "beta.kubernetes.io/os"};
  static constexpr std::string_view kCloudProvider[] = {
      "node.kubernetes.io/instance-type", "beta.kubernetes.io/instance-type",
      "topology.kubernetes.io/zone", "topology.kubernetes.io/region",
      "failure-domain.beta.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/region"};
  static constexpr std::pair<std::string_view, std::string_view> kManaged[] = {
      {"cloud.google.com/", "GKE puts on its nodes"},
      {"eks.amazonaws.com/", "EKS puts on its nodes"},
      {"k8s.amazonaws.com/", "EKS puts on its nodes"},
      {"karpenter.sh/", "Karpenter puts on its nodes"},
      {"karpenter.k8s.aws/", "Karpenter puts on its nodes"},
      {"kubernetes.azure.com/", "AKS puts on its nodes"},
      {"feature.node.kubernetes.io/", "Node Feature Discovery puts on every node it runs on"},
      {"nvidia.com/gpu.deploy.", "the GPU Operator puts on every GPU node"}};
  for (std::string_view k : kKubelet)
    if (key == k) return "kubelet puts on every node";
  for (std::string_view k : kCloudProvider)
    if (key == k) return "the cloud provider puts on every node of a cloud";
  for (const auto& [prefix, who] : kManaged)
    if (key.rfind(prefix, 0) == 0) return std::string(who);
  // GPU Feature Discovery labels each GPU node with all of these at once.
  bool gfd = keys.count("nvidia.com/gpu.product") > 0;
  for (std::string_view prefix : {"nvidia.com/gpu.", "nvidia.com/cuda.", "nvidia.com/mig."})
    if (gfd && key.rfind(prefix, 0) == 0)
      return "GPU Feature Discovery puts on every GPU node, beside nvidia.com/gpu.product";
  return "";
}

std::set<std::string> LabelKeys(const Inventory& inventory) {
  std::set<std::string> keys;
  for (const auto& group : inventory.groups) {
    for (const auto& [key, value] : group->shape.labels) keys.insert(key);
    for (const auto& [key, count] : group->own_label_keys) keys.insert(key);
  }
  return keys;
}

// Whether some node of the inventory has label `key` = `value`.
bool SomeNodeHas(const Inventory& inventory, const std::string& key, const std::string& value) {
  for (const auto& group : inventory.groups) {
    auto it = group->shape.labels.find(key);
    if (it != group->shape.labels.end() && it->second == value) return true;
    for (const auto& member : group->members) {
      auto own = member->own_labels.find(key);
      if (own != member->own_labels.end() && own->second == value) return true;
    }
  }
  return false;
}

// A label the pod's placement needs that no node of the inventory has at
// all: a nodeSelector key, or one that every term of its required node
// affinity needs (In, Exists, Gt, Lt).
struct MissingLabel {
  std::string key;
  std::string path;
  const Value* node = nullptr;
};

std::optional<MissingLabel> FindMissingLabel(const PodInfo& pod, const std::set<std::string>& keys) {
  const Value* selector = pod.spec->Find("nodeSelector");
  for (const auto& [key, value] : pod.placement.node_selector)
    if (!keys.count(key))
      return MissingLabel{key, AppendKey(pod.path + ".nodeSelector", key),
                          selector ? selector->Find(key) : pod.spec};
  const Value* terms = pod.placement.required_affinity
                           ? pod.placement.required_affinity->Find("nodeSelectorTerms")
                           : nullptr;
  if (!terms || !terms->is_sequence() || terms->items().empty()) return std::nullopt;
  std::optional<MissingLabel> first;
  for (size_t t = 0; t < terms->items().size(); ++t) {
    const Value* expressions = terms->items()[t].Find("matchExpressions");
    std::optional<MissingLabel> in_term;
    if (expressions && expressions->is_sequence())
      for (size_t e = 0; e < expressions->items().size() && !in_term; ++e) {
        const Value& x = expressions->items()[e];
        std::string_view op = x.StringAt("operator");
        std::string key(x.StringAt("key"));
        if ((op == "In" || op == "Exists" || op == "Gt" || op == "Lt") && !keys.count(key))
          in_term = MissingLabel{key,
                                 pod.path +
                                     ".affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuring"
                                     "Execution.nodeSelectorTerms[" +
                                     std::to_string(t) + "].matchExpressions[" +
                                     std::to_string(e) + "]",
                                 &x};
      }
    if (!in_term) return std::nullopt;  // this term may match
    if (!first) first = in_term;
  }
  return first;
}

// Where to point when no gap explains it: the nodeSelector key no node
// matches, else the required node affinity, else the tolerations, else the
// node name, else the pod spec.
std::pair<std::string, const Value*> Culprit(const PodInfo& pod, const Inventory& inventory) {
  const Value* selector = pod.spec->Find("nodeSelector");
  for (const auto& [key, value] : pod.placement.node_selector)
    if (!SomeNodeHas(inventory, key, value))
      return {AppendKey(pod.path + ".nodeSelector", key), selector ? selector->Find(key) : pod.spec};
  bool selector_or_affinity = false, taint = false;
  for (const auto& group : inventory.groups) {
    std::string why = ExclusionReason(pod.placement, group->shape);
    selector_or_affinity = selector_or_affinity || why.find("affinity/selector") != std::string::npos;
    taint = taint || why.find("taint") != std::string::npos;
  }
  if (selector_or_affinity && pod.placement.required_affinity)
    return {pod.path + ".affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution",
            pod.placement.required_affinity};
  if (!pod.placement.node_name.empty())
    return {pod.path + ".nodeName", pod.spec->Find("nodeName")};
  if (taint && pod.spec->Find("tolerations"))
    return {pod.path + ".tolerations", pod.spec->Find("tolerations")};
  return {pod.path, pod.spec};
}

// Whether the pod is a CPU pod that only a GPU taint keeps off every node:
// it asks for no resource of a domain (a device) and no DRA claim, tolerates no GPU taint
// (it does not mean to run on GPU nodes), and every node of the inventory
// passes its selectors but carries a GPU taint. An inventory of GPU nodes
// only, then: a cluster's node list would have others.
bool OnlyGpuNodesForACpuPod(const PodInfo& pod, const ObjectContext& ctx) {
  for (const ContainerInfo& c : pod.containers) {
    if (c.HasClaims()) return false;
    for (const auto* list : {&c.requests, &c.limits})
      for (const ResourceEntry& e : *list)
        if (e.name.find('/') != std::string::npos) return false;  // a device of some kind
  }
  for (const Toleration& t : pod.placement.tolerations)
    for (const std::string& key : ctx.policy.gpu_taint_keys)
      if (t.key == key || (t.key.empty() && t.op == "Exists")) return false;
  for (const auto& group : ctx.inventory.groups) {
    if (ExclusionReason(pod.placement, group->shape).find("taint") == std::string::npos)
      return false;
    bool gpu_taint = false;
    for (const Taint& t : group->shape.taints)
      for (const std::string& key : ctx.policy.gpu_taint_keys)
        gpu_taint = gpu_taint || (t.key == key && !Tolerates(pod.placement, t));
    if (!gpu_taint) return false;
  }
  return true;
}

void Check(const ObjectContext& ctx, Reporter& out) {
  if (ctx.inventory.empty()) return;
  // A DaemonSet puts a pod on each node that can run one, and none where
  // none can: nothing stays Pending. Worth knowing, not a fault.
  bool daemon_set = ctx.ref.kind == "DaemonSet";
  // Every label key of the inventory: read only for a pod no node can run,
  // never for the others (at 5,000 nodes, reading them for every object made
  // `check --nodes` ten times slower).
  std::optional<std::set<std::string>> all_keys;
  for (const PodInfo& pod : ctx.pods) {
    if (pod.partial) continue;  // a runtime's defaults, never run as written
    if (!pod.candidates.empty()) continue;
    if (!all_keys) all_keys = LabelKeys(ctx.inventory);
    const std::set<std::string>& keys = *all_keys;
    size_t n = ctx.inventory.size();
    std::string head = "0/" + std::to_string(n) + " node" + (n == 1 ? "" : "s") +
                       " in the inventory can run the pod: ";
    std::string tail =
        daemon_set ? "; the DaemonSet runs no pod on these nodes" : "; it would stay Pending";
    if (std::optional<MissingLabel> missing = FindMissingLabel(pod, keys)) {
      std::string who = WhoSets(missing->key, keys);
      if (!who.empty()) {
        out.Report(missing->node, missing->path,
                   head + "no node of the inventory has label " + missing->key + ", which " + who +
                       ": the inventory does not list the nodes this pod is for, or not as "
                       "kubectl shows them; fit not checked",
                   Severity::kInfo);
      } else {
        out.Report(missing->node, missing->path,
                   head + "no node of the inventory has label " + missing->key + tail,
                   daemon_set ? Severity::kInfo : Severity::kWarning);
      }
      continue;
    }
    if (OnlyGpuNodesForACpuPod(pod, ctx)) {
      auto [path, node] = Culprit(pod, ctx.inventory);
      out.Report(node, path,
                 head + "every node of the inventory carries a GPU taint and the pod asks for no "
                        "GPU: the inventory lists no node for pods without GPUs, as a whole "
                        "cluster's node list would; fit not checked",
                 Severity::kInfo);
      continue;
    }
    auto [path, node] = Culprit(pod, ctx.inventory);
    out.Report(node, path, head + ExclusionSummary(pod.placement, ctx.inventory) + tail,
               daemon_set ? Severity::kInfo : Severity::kWarning);
  }
}

}  // namespace

extern const Rule kNoMatchingNodeRule = {
    {"no-matching-node", Severity::kWarning, "No known node can run the pod",
     "With node classes in the policy or --nodes, gpulint knows where pods can land. A pod whose "
     "selectors, affinity or missing tolerations rule out every node stays Pending; often a "
     "label value is misspelt or the GPU taint is not tolerated. The finding points at the "
     "nodeSelector key, the node affinity or the tolerations that rule the nodes out. A "
     "DaemonSet that matches no node only runs no pod there (info). A gap of the inventory is "
     "said as one, an info: a label that kubelet, the cloud provider, GPU Feature Discovery or "
     "a managed cluster (GKE, EKS, Karpenter, AKS) puts on its nodes that no node of the "
     "inventory has, or an inventory whose every node carries a GPU taint against a pod that "
     "asks for no GPU.",
     "Check nodeSelector / affinity values against the node labels, and tolerate the GPU taint "
     "(nvidia.com/gpu: NoSchedule) on GPU pods.",
     RuleExample("no-matching-node"), /*gpus=*/nullptr, /*no_fix=*/nullptr,
     /*needs_nodes=*/true,
     /*not_cel=*/kNotCelNeedsNodes},
    Check,
};

}  // namespace gpulint
