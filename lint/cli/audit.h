// `gpulint audit` without the API server: the objects a cluster lists go in
// one at a time (nodes, then workloads, then pods), a report comes out. The
// command (audit_command.cc) reads the cluster into it (audit_source.cc) and
// writes the report (audit_output.cc, audit_policy_report.cc). Internal to
// lint/.
//
// Workloads are judged with the webhook's Evaluate against the live node
// inventory, grouped as the webhook groups it. A pod owned by a controller is
// reported once, under its top owner in the cluster (the Deployment, not its
// ReplicaSet and pods; engine/base/owners.h); a bound pod is judged on its own
// node (spec.nodeName), as an in-place resize is. Each node's bound pods are
// summed as the scheduler counts them, and judged by the node rules
// (engine/rules/node_rules.h).
#ifndef GPULINT_LINT_CLI_AUDIT_H_
#define GPULINT_LINT_CLI_AUDIT_H_

#include <cstddef>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "engine/base/finding.h"
#include "engine/base/owners.h"
#include "engine/base/value.h"
#include "engine/cluster/inventory.h"
#include "engine/policy/policy.h"
#include "engine/rules/node_rules.h"
#include "engine/rules/rule.h"
#include "engine/base/verdict.h"
#include "engine/workload/workload.h"

namespace gpulint {

// The next pod a workload makes, as the webhook would see it: its pod
// template judged against every node it could land on, and mutated.
struct NextPod {
  std::vector<Finding> findings;
  std::vector<std::string> changes;  // what /mutate would change, in words
  std::string patch;                 // that change as a JSON patch; "" for none
  Verdict deny = Verdict::kAllow, warn = Verdict::kAllow, audit = Verdict::kAllow;
};
// The verdicts of each mode for `next`'s findings and changes.
void SetVerdicts(NextPod* next);

// A finding on running pods that the workload's template does not have (a
// pod of an older revision, a pod on a node it no longer fits), once for
// all the pods it was found on.
struct RunningFinding {
  Finding finding;  // as the first such pod was judged
  size_t pods = 0;
  std::string pod;   // the first such pod
  std::string node;  // its node
};

struct WorkloadReport {
  ObjectRef object;  // the top owner in the cluster, or a pod of its own
  bool bare_pod = false;
  size_t pods = 0;   // its running pods (and itself, for a bare pod)
  size_t owned = 0;  // the objects reported under it (ReplicaSets, Jobs, pods)
  NextPod next_pod;
  std::vector<RunningFinding> running;
  bool clean() const {
    return next_pod.findings.empty() && next_pod.changes.empty() && running.empty();
  }
};

struct NodeReport {
  NodeClass node;
  NodeUsage usage;
  std::vector<Finding> findings;
};

struct AuditReport {
  std::vector<NodeReport> nodes;          // by name
  std::vector<WorkloadReport> workloads;  // those with something to say, by namespace, name, kind
  size_t workloads_judged = 0;            // top owners and bare pods, clean ones included
  size_t pods = 0;                        // pods read (running, pending)
  size_t pods_pending = 0;                // not bound to a node
  size_t pods_on_unknown_nodes = 0;       // bound to a node not listed (judged on every node)
  size_t objects = 0;                     // workload objects read
  // Whether each node's pods were summed and its checks run: not in an
  // audit of one namespace, which sees only that namespace's pods.
  bool nodes_summed = true;
};

class ClusterAudit {
 public:
  // `sum_nodes`: sum each node's pods and run the node checks; false when the
  // pods come from one namespace, whose sums would leave out the others'.
  explicit ClusterAudit(const Policy& policy, bool sum_nodes = true)
      : policy_(policy), sum_nodes_(sum_nodes) {}

  // Nodes and DRA objects first: the inventory is built from them when the
  // first workload or pod comes. With no nodes (the list was refused),
  // workloads are judged against the policy's node classes.
  void AddNode(const Value& node, const std::string& source);
  // A DeviceClass or ResourceSlice. They count only once DraComplete says
  // that they are all of them; else the inventory knows no DRA (a resource
  // no node lists may be DRA's: a warning, not an error).
  void AddDraObject(const Value& object, const std::string& source);
  // The DRA objects added are all the cluster has (none where it does not
  // serve resource.k8s.io).
  void DraComplete() { dra_complete_ = true; }
  // Workload objects of the policy's workload table, before any pod.
  void AddWorkload(const Value& object);
  void AddPod(const Value& pod);
  AuditReport Finish();

  // Nodes (and DRA objects) that were not usable, with why.
  const std::vector<Error>& node_errors() const { return node_errors_; }

 private:
  struct Record {
    OwnedObject object;
    WorkloadReport report;
    bool folded = false;  // reported under its top owner
  };
  void Ready();  // builds the inventory once
  Record* RecordOf(const OwnedObject& owner);
  void AddRunning(const Finding& f, const std::string& pod, const std::string& node,
                  WorkloadReport* report);

  const Policy& policy_;
  const bool sum_nodes_;
  std::vector<NodeClass> node_list_;
  DraObjects dra_objects_;
  bool dra_complete_ = false, dra_unreadable_ = false;
  struct Node {
    NodeReport report;
    // The node alone: a pod bound to it is judged there, and finding its node
    // in the whole inventory would cost a look at every node, for every pod.
    Inventory alone;
  };
  std::map<std::string, Node, std::less<>> nodes_;
  std::vector<Error> node_errors_;
  bool ready_ = false;
  Inventory inventory_;
  OwnerIndex owners_;
  std::map<std::string, Record, std::less<>> records_;  // by "group/kind/namespace/name"
  std::vector<WorkloadReport> bare_pods_;               // with something to say
  size_t bare_pods_judged_ = 0;
  AuditReport totals_;
};

}  // namespace gpulint

#endif  // GPULINT_LINT_CLI_AUDIT_H_
