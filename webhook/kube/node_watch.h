// The node inventory, kept current from the API server in the background:
// list once, then watch from that resourceVersion, handing the list and then
// each ADDED, MODIFIED and DELETED to a NodeSink (node_sink.h), and telling an
// observer, such as the VRAM advertiser, what it read.
// Admission requests never wait on the API server. A broken stream reconnects
// with backoff; "410 Gone" (the watch fell too far behind) relists. How
// current the inventory is shows in sync() (watch_sync.h).
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
#include "webhook/kube/loop_control.h"
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

class NodeWatcher {
 public:
  struct Options {
    std::chrono::milliseconds min_backoff{500};
    std::chrono::milliseconds max_backoff{30000};
    int watch_timeout_seconds = 300;  // the API server ends each watch after this
    int page_size = 500;
  };

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

  uint64_t lists() const { return lists_.load(); }
  uint64_t events() const { return events_.load(); }
  const WatchSync& sync() const { return sync_; }

 private:
  enum class WatchEnd { kClosed, kGone, kFailed, kStopped };
  void Run();
  bool List();
  WatchEnd Watch();
  // Applies one watch event line; sets *end when the stream must stop.
  bool ApplyEvent(std::string_view line, WatchEnd* end);
  std::unique_ptr<HttpsClient> Client(int read_timeout_seconds);  // for the watch

  KubeEndpoint endpoint_;
  NodeSink* sink_;
  LogSink log_;
  Metrics* metrics_;
  Options options_;
  NodeObserver* observer_ = nullptr;

  // Whether a node reads, for the log: a node whose labels do not read is
  // logged when its problem first appears or changes, not on each of its
  // status updates (every few seconds per node).
  void NoteRead(const std::string& name, bool ok, const Error& error);

  std::map<std::string, std::string>
      skipped_;  // node -> its problem, as logged; the watch thread's
  std::string resource_version_;

  std::atomic<uint64_t> lists_{0}, events_{0};
  WatchSync sync_{"nodes"};
  LoopControl loop_;  // last: stopped first
};

}  // namespace gpulint

#endif  // GPULINT_WEBHOOK_KUBE_NODE_WATCH_H_
