// The node inventory, kept current from the API server in the background
// (list_watch.h): the list and then each ADDED, MODIFIED and DELETED go to a
// NodeSink (node_sink.h), and an observer, such as the VRAM advertiser, is
// told what was read. How current the inventory is shows in sync()
// (watch_sync.h).
#ifndef GPULINT_WEBHOOK_KUBE_NODE_WATCH_H_
#define GPULINT_WEBHOOK_KUBE_NODE_WATCH_H_

#include <atomic>
#include <chrono>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "engine/base/value.h"
#include "engine/cluster/inventory.h"
#include "kube/kube_client.h"
#include "webhook/kube/list_watch.h"
#include "webhook/kube/node_sink.h"
#include "webhook/kube/watch_sync.h"
#include "webhook/support/log.h"
#include "webhook/support/metrics.h"

namespace gpulint {

// Told of each Node the watch reads, on the watch thread, before the
// inventory is published. Must not block: the watch waits meanwhile.
class NodeObserver {
 public:
  virtual ~NodeObserver() = default;
  // A node listed, ADDED or MODIFIED, with what NodeClassFromNode made of it:
  // `node` is null when it refused the object (garbage labels), and `error`
  // says why. Such a node is left out of the inventory; the watch goes on.
  virtual void NodeSeen(const Value& object, const NodeClass* node, const Error& error) = 0;
  virtual void NodeGone(const std::string& name) = 0;  // DELETED
  // A full list was read: nodes it did not hold are gone (deleted while the
  // watch was down or expired).
  virtual void Listed(const std::set<std::string>& names) = 0;
};

class NodeWatcher : private ListWatchHandler {
 public:
  using Options = ListWatch::Options;

  // `sink` must outlive the watch (Stop).
  NodeWatcher(KubeEndpoint endpoint, NodeSink* sink, LogSink log, Metrics* metrics,
              Options options);
  ~NodeWatcher();
  NodeWatcher(const NodeWatcher&) = delete;
  NodeWatcher& operator=(const NodeWatcher&) = delete;

  // Before Start; `observer` must outlive the watch (Stop).
  void SetObserver(NodeObserver* observer) { observer_ = observer; }
  void Start();
  void Stop();  // idempotent; interrupts a request in flight

  uint64_t lists() const { return loop_.lists(); }
  uint64_t events() const { return loop_.events(); }
  const WatchSync& sync() const { return sync_; }

 private:
  // ListWatchHandler
  void ListStart() override;
  void ListItem(Value& item) override;
  void ListEnd(const std::string& resource_version) override;
  void Event(std::string_view type, const Value& object) override;

  // Whether a node reads, for the log: a node whose labels do not read is
  // logged when its problem first appears or changes, not on each of its
  // status updates (every few seconds per node).
  void NoteRead(const std::string& name, bool ok, const Error& error);

  NodeSink* sink_;
  LogSink log_;
  NodeObserver* observer_ = nullptr;
  std::map<std::string, std::string>
      skipped_;  // node -> its problem, as logged; the watch thread's
  std::vector<NodeClass> listed_nodes_;  // the list being read
  std::set<std::string> listed_;         // its usable nodes and skipped ones
  WatchSync sync_{"nodes"};
  ListWatch loop_;  // last: stopped first
};

}  // namespace gpulint

#endif  // GPULINT_WEBHOOK_KUBE_NODE_WATCH_H_
