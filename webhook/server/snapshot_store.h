// What the server judges reviews with: the current policy and inventory (a
// Snapshot, admission.h), its reloads and its publishing. The policy (a
// mounted ConfigMap) and the nodes file are reloaded when they change; a file
// that fails to load is logged and counted, and the last good version keeps
// serving. Nodes from the API server arrive as a NodeSink (node_watch.h) and
// are kept one change at a time; a change no rule can see (a heartbeat)
// publishes nothing. DRA objects arrive as a DraSink (dra_watch.h): each node
// is given its devices, and a change of them re-groups only the nodes whose
// devices changed.
#ifndef GPULINT_WEBHOOK_SERVER_SNAPSHOT_STORE_H_
#define GPULINT_WEBHOOK_SERVER_SNAPSHOT_STORE_H_

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "engine/cluster/inventory.h"
#include "engine/cluster/nodes_file.h"
#include "engine/policy/policy.h"
#include "webhook/kube/dra_watch.h"
#include "webhook/kube/node_sink.h"
#include "webhook/server/admission.h"
#include "webhook/support/file_watch.h"
#include "webhook/support/log.h"
#include "webhook/support/metrics.h"

namespace gpulint {

class SnapshotStore : public NodeSink, public DraSink {
 public:
  // `policy_file` empty: the policy compiled into the binary. `nodes_file`
  // empty: none.
  SnapshotStore(std::string policy_file, std::string nodes_file, LogSink log, Metrics& metrics);
  SnapshotStore(const SnapshotStore&) = delete;
  SnapshotStore& operator=(const SnapshotStore&) = delete;

  // Loads the policy or the nodes file again (a failure is logged and
  // counted, and the last good one stays); Publish makes it current.
  void ReloadPolicy();
  void ReloadNodesFile();
  // Reloads what changed on disk; true when something did (then Publish).
  bool ReloadChanged();
  // Rebuilds the part of the inventory from the policy and the nodes file,
  // then publishes.
  void Publish();

  Snapshot Current() const;
  // Whether a valid policy is loaded (else every review is allowed, with a warning).
  bool policy_loaded() const;

  // NodeSink: nodes from the API server, combined with the nodes file.
  void ReplaceNodes(std::vector<NodeClass> nodes) override;
  void PutNode(NodeClass node) override;
  void RemoveNode(const std::string& name) override;

  // DraSink: DeviceClasses and ResourceSlices from the API server, which
  // replace the nodes file's.
  void SetDra(std::shared_ptr<const DraInventory> dra,
              const std::set<std::string>* changed_nodes) override;
  // Before the watches start, when a DRA watch will call SetDra: the nodes
  // from the API server are published only once it has, so that no pod is
  // fitted against nodes whose devices are not known yet (a node that lists
  // no nvidia.com/gpu may hold GPUs through DRA).
  void AwaitDra();

 private:
  // A new snapshot from base_ and watched_; publish_mu_ held.
  void PublishLocked();

  const LogSink log_;
  Metrics& metrics_;
  FileWatch policy_watch_, nodes_watch_;  // the reload thread's (Start's before it)
  // Publishing, one at a time (the reload thread and the watch thread both
  // publish); taken before state_mu_. Guards the four members below.
  std::mutex publish_mu_;
  std::shared_ptr<const Policy> base_policy_;
  std::string base_problem_;     // why base_policy_ is null, when it is
  Inventory base_;               // base_policy_'s classes and the nodes file's nodes
  NodeGroups watched_;           // nodes from the API server, kept one change at a time
  std::shared_ptr<const DraInventory> watched_dra_;  // from the API server; null: none yet
  bool awaiting_dra_ = false;  // AwaitDra was called and SetDra not yet
  mutable std::mutex state_mu_;  // guards the members below
  std::shared_ptr<const Policy> policy_;
  NodesFile file_nodes_;
  std::string policy_problem_;  // why no policy is loaded, while none is
  Snapshot snapshot_;
};

}  // namespace gpulint

#endif  // GPULINT_WEBHOOK_SERVER_SNAPSHOT_STORE_H_
