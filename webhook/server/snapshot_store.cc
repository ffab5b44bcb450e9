#include "webhook/server/snapshot_store.h"

#include <unistd.h>

#include <filesystem>
#include <utility>

#include "engine/cluster/nodes_file.h"
#include "engine/engine.h"

namespace gpulint {

SnapshotStore::SnapshotStore(std::string policy_file, std::string nodes_file, LogSink log,
                             Metrics& metrics)
    : log_(std::move(log)),
      metrics_(metrics),
      policy_watch_(std::move(policy_file)),
      nodes_watch_(std::move(nodes_file)) {}

Snapshot SnapshotStore::Current() const {
  std::lock_guard<std::mutex> lock(state_mu_);
  return snapshot_;
}

bool SnapshotStore::policy_loaded() const {
  std::lock_guard<std::mutex> lock(state_mu_);
  return policy_ != nullptr;
}

void SnapshotStore::ReloadPolicy() {
  if (!policy_watch_.enabled()) {
    std::lock_guard<std::mutex> lock(state_mu_);
    if (!policy_) {
      // The compiled-in policy lives for the whole process: borrow it.
      policy_ = std::shared_ptr<const Policy>(std::shared_ptr<const Policy>(), &DefaultPolicy());
    }
    metrics_.SetPolicyLoaded(true);
    return;
  }
  policy_watch_.Mark();  // before reading: a change made while loading is seen next time
  auto policy = std::make_shared<Policy>();
  Error error;
  if (!LoadPolicyFile(policy_watch_.path(), policy.get(), &error)) {
    metrics_.CountReload("policy", false);
    bool none;
    {
      std::lock_guard<std::mutex> lock(state_mu_);
      none = !policy_;
      if (none) {
        // The file's directory says nothing to a user reading kubectl's warning.
        Error shown = error;
        shown.file = std::filesystem::path(error.file).filename().string();
        policy_problem_ = shown.ToString();
      }
    }
    LogLine("error", none ? "policy refused, and no valid policy has loaded: every review is "
                            "allowed, with a warning, until one does"
                          : "policy refused, the last good one keeps serving")
        .Add("file", policy_watch_.path())
        .Add("error", error.ToString())
        .Emit(log_);
    metrics_.SetPolicyLoaded(!none);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(state_mu_);
    policy_ = std::move(policy);
    policy_problem_.clear();
  }
  metrics_.SetPolicyLoaded(true);
  metrics_.CountReload("policy", true);
  LogLine("info", "policy loaded").Add("file", policy_watch_.path()).Emit(log_);
}

void SnapshotStore::ReloadNodesFile() {
  if (!nodes_watch_.enabled()) return;
  nodes_watch_.Mark();
  std::vector<NodeClass> nodes;
  Error problem;
  if (!LoadNodesFile(nodes_watch_.path(), STDIN_FILENO, &nodes, &problem)) {
    metrics_.CountReload("nodes", false);
    LogLine("error", "nodes file refused, the last good one keeps serving")
        .Add("file", nodes_watch_.path())
        .Add("error", problem.ToString())
        .Emit(log_);
    return;
  }
  size_t count = nodes.size();
  {
    std::lock_guard<std::mutex> lock(state_mu_);
    file_nodes_ = std::move(nodes);
  }
  metrics_.CountReload("nodes", true);
  LogLine("info", "nodes loaded")
      .Add("file", nodes_watch_.path())
      .Add("nodes", static_cast<int64_t>(count))
      .Emit(log_);
}

bool SnapshotStore::ReloadChanged() {
  bool changed = false;
  if (policy_watch_.Changed()) {
    ReloadPolicy();
    changed = true;
  }
  if (nodes_watch_.Changed()) {
    ReloadNodesFile();
    changed = true;
  }
  return changed;
}

void SnapshotStore::ReplaceNodes(std::vector<NodeClass> nodes) {
  std::lock_guard<std::mutex> publishing(publish_mu_);
  watched_.Clear();
  for (NodeClass& node : nodes) watched_.Put(std::move(node), kWatchedNodeOrder);
  PublishLocked();
}

void SnapshotStore::PutNode(NodeClass node) {
  std::lock_guard<std::mutex> publishing(publish_mu_);
  if (watched_.Put(std::move(node), kWatchedNodeOrder)) PublishLocked();
}

void SnapshotStore::RemoveNode(const std::string& name) {
  std::lock_guard<std::mutex> publishing(publish_mu_);
  if (watched_.Remove(name)) PublishLocked();
}

void SnapshotStore::Publish() {
  std::lock_guard<std::mutex> publishing(publish_mu_);
  std::vector<NodeClass> file_nodes;
  {
    std::lock_guard<std::mutex> lock(state_mu_);
    base_policy_ = policy_;
    base_problem_ = policy_problem_;
    file_nodes = file_nodes_;
  }
  base_ = base_policy_ ? BuildInventory(*base_policy_, std::move(file_nodes)) : Inventory();
  PublishLocked();
}

void SnapshotStore::PublishLocked() {
  Snapshot snapshot;
  snapshot.problem = base_problem_;
  if (base_policy_) {
    // Copies the groups' pointers, not the nodes: a change costs the number
    // of groups, whatever the number of nodes.
    auto inventory = std::make_shared<Inventory>(base_);
    inventory->Append(watched_.inventory());
    metrics_.CountInventoryPublish(inventory->size(), inventory->groups.size());
    snapshot = Snapshot{base_policy_, std::move(inventory), {}};
  }
  std::lock_guard<std::mutex> lock(state_mu_);
  snapshot_ = std::move(snapshot);
}

}  // namespace gpulint
