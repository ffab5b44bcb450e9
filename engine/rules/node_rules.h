// The rules of a node (RuleScope::kNode): they judge a node by the pods bound
// to it, summed as the scheduler sums them (the engine's PodInfo arithmetic:
// init containers, native sidecars, pod overhead, pod-level resources). They
// are in the registry like the others, so a policy turns each off or sets its
// severity (spec.rules); `gpulint audit`, which lists a cluster's bound pods,
// sums each node's (NodeUsage::Add) and asks NodeFindings.
#ifndef GPULINT_ENGINE_RULES_NODE_RULES_H_
#define GPULINT_ENGINE_RULES_NODE_RULES_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/base/finding.h"
#include "engine/cluster/inventory.h"
#include "engine/policy/policy.h"
#include "engine/rules/rule.h"
#include "engine/workload/workload.h"

namespace gpulint {

// The pods bound to a node, summed as the scheduler counts them.
struct NodeUsage {
  size_t pods = 0;
  ResourceList requests;  // PodInfo::FitRequest: init containers, sidecars, overhead, pod level
  ResourceList limits;    // PodInfo::EffectiveLimit, plus overhead where a limit is set
  size_t pods_without_memory_limit = 0;
  int64_t gpu_replicas = 0;  // of the policy's GPU resources, requested
  Quantity vram;             // declared (the VRAM resource or annotation), else the replica's share
  // On a node whose GPUs use its own memory (Policy::UnifiedMemory): the GPU
  // memory the pods declare, which the memory cgroup does not count and the
  // node's memory must hold beside their requests.
  Quantity gpu_memory;
  void Add(const PodInfo& pod, const NodeClass& node, const Policy& policy);
};

// What a node's rule looks at.
struct NodeContext {
  const NodeClass& node;
  const NodeUsage& usage;
  const Policy& policy;
};

// Collects one node rule's findings for one node, at the rule's severity as
// the policy sets it.
class NodeReporter {
 public:
  NodeReporter(const RuleInfo& rule, Severity severity, const NodeClass& node,
               std::vector<Finding>* out)
      : rule_(rule), severity_(severity), node_(node), out_(out) {}
  void Report(std::string message);

 private:
  const RuleInfo& rule_;
  Severity severity_;
  const NodeClass& node_;
  std::vector<Finding>* out_;
};

// The findings of the node rules the policy enables, in catalogue order.
std::vector<Finding> NodeFindings(const NodeClass& node, const NodeUsage& usage,
                                  const Policy& policy);

// The registry's node rules, in catalogue order (for SARIF's rule list).
std::vector<const RuleInfo*> NodeRules();

// node-memory-requests and node-memory-limits: `sum` of the pods' memory
// `what` ("requests", "limits") past what the node has for pods.
void ReportMemoryOver(const char* what, const Quantity& sum, const NodeContext& ctx,
                      NodeReporter& out);

}  // namespace gpulint

#endif  // GPULINT_ENGINE_RULES_NODE_RULES_H_
