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
  NodesFile nodes;
  Error problem;
  if (!LoadNodesFile(nodes_watch_.path(), STDIN_FILENO, &nodes, &problem)) {
    metrics_.CountReload("nodes", false);
    LogLine("error", "nodes file refused, the last good one keeps serving")
        .Add("file", nodes_watch_.path())
        .Add("error", problem.ToString())
        .Emit(log_);
    return;
  }
  size_t count = nodes.nodes.size();
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
  for (NodeClass& node : nodes) {
    if (watched_dra_) node.devices = watched_dra_->DevicesOf(node);
    watched_.Put(std::move(node), kWatchedNodeOrder);
  }
  PublishLocked();
}

void SnapshotStore::PutNode(NodeClass node) {
  std::lock_guard<std::mutex> publishing(publish_mu_);
  if (watched_dra_) node.devices = watched_dra_->DevicesOf(node);
  if (watched_.Put(std::move(node), kWatchedNodeOrder)) PublishLocked();
}

void SnapshotStore::AwaitDra() {
  std::lock_guard<std::mutex> publishing(publish_mu_);
  awaiting_dra_ = true;
}

void SnapshotStore::SetDra(std::shared_ptr<const DraInventory> dra,
                           const std::set<std::string>* changed_nodes) {
  std::lock_guard<std::mutex> publishing(publish_mu_);
  watched_dra_ = std::move(dra);
  awaiting_dra_ = false;
  // Each node whose devices may have changed is put again with them; the
  // others keep theirs, which the new inventory shares (DraInventory::Make).
  auto refresh = [&](NodeClass node) {
    node.devices = watched_dra_ ? watched_dra_->DevicesOf(node) : nullptr;
    watched_.Put(std::move(node), kWatchedNodeOrder);
  };
  if (changed_nodes) {
    for (const std::string& name : *changed_nodes)
      if (NodeClass node; watched_.Find(name, &node)) refresh(std::move(node));
  } else {
    for (NodeClass& node : watched_.inventory().Nodes()) refresh(std::move(node));
  }
  PublishLocked();
}

void SnapshotStore::RemoveNode(const std::string& name) {
  std::lock_guard<std::mutex> publishing(publish_mu_);
  if (watched_.Remove(name)) PublishLocked();
}

void SnapshotStore::Publish() {
  std::lock_guard<std::mutex> publishing(publish_mu_);
  NodesFile file_nodes;
  {
    std::lock_guard<std::mutex> lock(state_mu_);
    base_policy_ = policy_;
    base_problem_ = policy_problem_;
    file_nodes = file_nodes_;
  }
  base_ = base_policy_ ? BuildInventoryFrom(*base_policy_, std::move(file_nodes)) : Inventory();
  PublishLocked();
}

void SnapshotStore::PublishLocked() {
  Snapshot snapshot;
  snapshot.problem = base_problem_;
  if (base_policy_) {
    // Copies the groups' pointers, not the nodes: a change costs the number
    // of groups, whatever the number of nodes.
    auto inventory = std::make_shared<Inventory>(base_);
    if (!awaiting_dra_) inventory->Append(watched_.inventory());
    if (watched_dra_) inventory->dra = watched_dra_;
    metrics_.CountInventoryPublish(inventory->size(), inventory->groups.size());
    snapshot = Snapshot{base_policy_, std::move(inventory), {}};
  }
  std::lock_guard<std::mutex> lock(state_mu_);
  snapshot_ = std::move(snapshot);
}

}  // namespace gpulint
