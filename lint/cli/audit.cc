#include "lint/cli/audit.h"

#include <algorithm>
#include <tuple>
#include <utility>

#include "engine/base/objects.h"
#include "engine/engine.h"
#include "engine/json/json_patch.h"
#include "engine/mutate/mutate.h"

namespace gpulint {
namespace {

// The key of an object among the records: its API group, kind, namespace and
// name, as OwnerIndex tells objects apart.
std::string KeyOf(const ObjectRef& ref) {
  return std::string(ApiGroupOf(ref.api_version)) + "/" + ref.kind + "/" + ref.namespace_name +
         "/" + ref.name;
}

// `pod` without spec.nodeName: a pod bound to a node that was not listed is
// judged as its next incarnation would be, against every node.
Value Unbound(const Value& pod) {
  Value copy = pod;
  for (Value::Member& m : copy.mutable_members()) {
    if (m.first != "spec") continue;
    auto& members = m.second.mutable_members();
    members.erase(std::remove_if(members.begin(), members.end(),
                                 [](const Value::Member& x) { return x.first == "nodeName"; }),
                  members.end());
  }
  return copy;
}

void Judge(const Value& object, const Policy& policy, const Inventory& inventory, NextPod* next) {
  next->findings = Evaluate(object, "", policy, inventory);
  std::vector<PatchOp> ops = Mutate(object, policy, inventory, &next->changes);
  if (!ops.empty()) next->patch = PatchToJson(ops);
  SetVerdicts(next);
}

bool SameSubject(const Finding& a, const Finding& b) {
  return a.rule == b.rule && a.container == b.container;
}

}  // namespace

void SetVerdicts(NextPod* next) {
  bool errors = false, others = false;
  for (const Finding& f : next->findings) (f.severity == Severity::kError ? errors : others) = true;
  // As the webhook answers: the one table (engine/base/verdict.h).
  bool changes = !next->changes.empty();
  next->deny = VerdictOf(Enforcement::kDeny, errors, others, changes);
  next->warn = VerdictOf(Enforcement::kWarn, errors, others, changes);
  next->audit = VerdictOf(Enforcement::kAudit, errors, others, changes);
}

void ClusterAudit::AddNode(const Value& node, const std::string& source) {
  NodeClass read;
  Error error;
  if (!NodeClassFromNode(node, source, &read, &error)) {
    node_errors_.push_back(std::move(error));
    return;
  }
  nodes_[read.name].report.node = read;
  node_list_.push_back(std::move(read));
}

void ClusterAudit::AddDraObject(const Value& object, const std::string& source) {
  Error error;
  if (!ReadDraObject(object, source, &dra_objects_, &error)) {
    node_errors_.push_back(std::move(error));
    dra_unreadable_ = true;
  }
}

void ClusterAudit::Ready() {
  if (ready_) return;
  ready_ = true;
  // An object that does not read leaves the DRA part unknown, not wrong.
  std::shared_ptr<const DraInventory> dra;
  if (dra_complete_ && !dra_unreadable_) dra = DraInventory::Make(std::move(dra_objects_));
  for (auto& [name, node] : nodes_) {
    if (dra) node.report.node.devices = dra->DevicesOf(node.report.node);
    NodeGroups alone;
    alone.Add(node.report.node, kWatchedNodeOrder);
    node.alone = alone.inventory();
    node.alone.dra = dra;
  }
  inventory_ = BuildInventory(policy_, std::move(node_list_), dra);
  node_list_.clear();
}

void ClusterAudit::AddWorkload(const Value& object) {
  Ready();
  ++totals_.objects;
  Record record;
  record.object = OwnerIndex::Read(object);
  record.report.object = record.object.ref;
  Judge(object, policy_, inventory_, &record.report.next_pod);
  std::string key = KeyOf(record.object.ref);
  owners_.Add(record.object);
  records_.emplace(std::move(key), std::move(record));
}

ClusterAudit::Record* ClusterAudit::RecordOf(const OwnedObject& owner) {
  auto it = records_.find(KeyOf(owner.ref));
  return it == records_.end() ? nullptr : &it->second;
}

void ClusterAudit::AddRunning(const Finding& f, const std::string& pod, const std::string& node,
                              WorkloadReport* report) {
  // What the template says already is said once, for the next pod.
  for (const Finding& t : report->next_pod.findings)
    if (SameSubject(t, f)) return;
  for (RunningFinding& r : report->running) {
    if (SameSubject(r.finding, f)) {
      ++r.pods;
      return;
    }
  }
  report->running.push_back({f, 1, pod, node});
}

void ClusterAudit::AddPod(const Value& pod) {
  Ready();
  const Value* status = pod.Find("status");
  std::string_view phase = status ? status->StringAt("phase") : std::string_view();
  if (phase == "Succeeded" || phase == "Failed") return;  // holds nothing on its node
  ++totals_.pods;
  const Value* spec = pod.Find("spec");
  std::string node_name(spec ? spec->StringAt("nodeName") : std::string_view());
  auto node = node_name.empty() ? nodes_.end() : nodes_.find(node_name);
  if (node_name.empty()) ++totals_.pods_pending;
  const Inventory* inventory = &inventory_;
  if (node != nodes_.end()) {
    NodeReport& report = node->second.report;
    inventory = &node->second.alone;
    if (sum_nodes_) {
      for (const PodInfo& info : ExtractPods(pod, policy_, *inventory))
        report.usage.Add(info, report.node, policy_);
    }
  }
  bool unknown_node = !node_name.empty() && node == nodes_.end();
  if (unknown_node) ++totals_.pods_on_unknown_nodes;
  Value unbound;
  if (unknown_node) unbound = Unbound(pod);
  const Value& judged = unknown_node ? unbound : pod;
  OwnedObject self = OwnerIndex::Read(pod);
  if (const OwnedObject* top = owners_.TopOwner(self)) {
    Record* record = RecordOf(*top);
    ++record->report.pods;
    ++record->report.owned;
    for (const Finding& f : Evaluate(judged, "", policy_, *inventory))
      AddRunning(f, self.ref.name, node_name, &record->report);
    return;
  }
  // A pod of its own: what the webhook says of it is what it would say of it
  // made again.
  ++bare_pods_judged_;
  WorkloadReport report;
  report.object = self.ref;
  report.bare_pod = true;
  report.pods = 1;
  Judge(judged, policy_, *inventory, &report.next_pod);
  if (!report.clean()) bare_pods_.push_back(std::move(report));
}

AuditReport ClusterAudit::Finish() {
  Ready();
  AuditReport out = totals_;
  // Objects with an owner in the cluster are said under it: a ReplicaSet's
  // template is its Deployment's.
  for (auto& [key, record] : records_) {
    if (const OwnedObject* top = owners_.TopOwner(record.object)) {
      ++RecordOf(*top)->report.owned;
      record.folded = true;
    }
  }
  for (auto& [key, record] : records_) {
    if (record.folded) continue;
    ++out.workloads_judged;
    if (!record.report.clean()) out.workloads.push_back(std::move(record.report));
  }
  out.workloads_judged += bare_pods_judged_;
  for (WorkloadReport& r : bare_pods_) out.workloads.push_back(std::move(r));
  std::sort(out.workloads.begin(), out.workloads.end(),
            [](const WorkloadReport& a, const WorkloadReport& b) {
              return std::tie(a.object.namespace_name, a.object.name, a.object.kind) <
                     std::tie(b.object.namespace_name, b.object.name, b.object.kind);
            });
  out.nodes_summed = sum_nodes_;
  for (auto& [name, node] : nodes_) {
    NodeReport& report = node.report;
    if (sum_nodes_) report.findings = NodeFindings(report.node, report.usage, policy_);
    out.nodes.push_back(std::move(report));
  }
  return out;
}

}  // namespace gpulint
