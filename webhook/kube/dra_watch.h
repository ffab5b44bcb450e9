// The DRA part of the inventory (engine/cluster/dra_inventory.h), kept
// current from the API server beside the node watch: DeviceClasses and
// ResourceSlices of resource.k8s.io, each listed page by page and watched
// (list_watch.h), in the group's preferred version (v1 from Kubernetes 1.34,
// v1beta2 or v1beta1 before). A new DraInventory goes to a DraSink once both
// lists are read, and then after changes, at most one every `coalesce`, so
// that a driver publishing thousands of slices costs a few rebuilds, not
// thousands. Where the API server does not serve resource.k8s.io (1.28),
// nothing changes: that is logged once, and the sink gets an empty inventory
// (the cluster has no DeviceClasses, so no extended resource is DRA's). Where
// they cannot be read (the chart's RBAC not applied yet), the sink is told
// after `decide_within` that they are unknown (null): extended resources that
// no node lists are then only warnings.
#ifndef GPULINT_WEBHOOK_KUBE_DRA_WATCH_H_
#define GPULINT_WEBHOOK_KUBE_DRA_WATCH_H_

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "engine/cluster/dra_inventory.h"
#include "kube/kube_client.h"
#include "webhook/kube/list_watch.h"
#include "webhook/kube/watch_sync.h"
#include "webhook/support/log.h"

namespace gpulint {

// Called on the DRA watch's thread; must not block for long.
class DraSink {
 public:
  virtual ~DraSink() = default;
  // The DRA objects now. `changed_nodes`: the nodes whose devices may differ
  // from the last inventory's; null when any may (a class changed, a slice
  // for all nodes or a node selector, a list read again).
  virtual void SetDra(std::shared_ptr<const DraInventory> dra,
                      const std::set<std::string>* changed_nodes) = 0;
};

class DraWatcher {
 public:
  struct Options {
    ListWatch::Options watch;
    std::chrono::milliseconds coalesce{200};
    std::chrono::milliseconds decide_within{30000};
  };

  // `sink` must outlive the watch (Stop).
  DraWatcher(KubeEndpoint endpoint, DraSink* sink, LogSink log, Options options);
  ~DraWatcher();
  DraWatcher(const DraWatcher&) = delete;
  DraWatcher& operator=(const DraWatcher&) = delete;

  void Start();
  void Stop();  // idempotent

  uint64_t publishes() const { return publishes_.load(); }
  // How current each of its watches is, for /metrics and /readyz
  // (WebhookServer::AddWatch): "deviceclasses" and "resourceslices".
  const WatchSync& class_sync() const { return class_sync_; }
  const WatchSync& slice_sync() const { return slice_sync_; }

 private:
  // One resource's objects, kept from its list and events.
  class Kind;

  void Run();
  // Records that something changed (for `node`, or for every node when
  // empty) and wakes the publisher.
  void Changed(const std::string& node);
  // A new inventory to the sink, when both lists are read and something
  // changed; whether one went.
  bool Publish();

  KubeEndpoint endpoint_;
  DraSink* sink_;
  LogSink log_;
  Options options_;

  std::mutex mu_;  // guards what the loops below write and the publisher reads
  std::map<std::string, DeviceClassInfo> classes_;
  std::map<std::string, std::shared_ptr<const ResourceSliceInfo>> slices_;
  bool classes_listed_ = false, slices_listed_ = false;
  std::set<std::string> unreadable_[2];  // device classes, resource slices
  bool dirty_ = false, all_changed_ = false;
  std::set<std::string> changed_;

  std::shared_ptr<const DraInventory> published_;  // the publisher's
  std::atomic<uint64_t> publishes_{0};
  WatchSync class_sync_{"deviceclasses"}, slice_sync_{"resourceslices"};
  std::unique_ptr<Kind> class_kind_, slice_kind_;
  std::unique_ptr<ListWatch> class_watch_, slice_watch_;
  LoopControl loop_;  // last: stopped first
};

}  // namespace gpulint

#endif  // GPULINT_WEBHOOK_KUBE_DRA_WATCH_H_
