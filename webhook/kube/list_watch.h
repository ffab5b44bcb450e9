// One resource of the API server kept current in the background, as an
// informer keeps it: list it page by page, then watch from the list's
// resourceVersion, handing each item and then each ADDED, MODIFIED and
// DELETED to a ListWatchHandler. Admission requests never wait on it. A broken
// stream reconnects with backoff; "410 Gone" (the watch fell too far behind)
// lists again. How current its view is goes to a WatchSync (watch_sync.h)
// as it goes. The node watch (node_watch.h) and the DRA watch (dra_watch.h)
// are each a handler on one or more of these.
#ifndef GPULINT_WEBHOOK_KUBE_LIST_WATCH_H_
#define GPULINT_WEBHOOK_KUBE_LIST_WATCH_H_

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "engine/base/value.h"
#include "kube/kube_client.h"
#include "webhook/kube/loop_control.h"
#include "webhook/kube/watch_sync.h"
#include "webhook/support/log.h"

namespace gpulint {

// Called on the loop's thread; must not block for long.
class ListWatchHandler {
 public:
  virtual ~ListWatchHandler() = default;
  // A list begins; its items follow, one call each, then ListEnd.
  virtual void ListStart() {}
  virtual void ListItem(Value& item) = 0;
  // The list was read whole (at `resource_version`): what it did not hold is
  // gone. A list that fails part way ends without this.
  virtual void ListEnd(const std::string& resource_version) = 0;
  // "ADDED", "MODIFIED" or "DELETED", with the object.
  virtual void Event(std::string_view type, const Value& object) = 0;
};

class ListWatch {
 public:
  struct Options {
    std::chrono::milliseconds min_backoff{500};
    std::chrono::milliseconds max_backoff{30000};
    int watch_timeout_seconds = 300;  // the API server ends each watch after this
    int page_size = 500;
  };

  // `what` names the resource in the log ("node": "node list failed");
  // `path` is its collection ("/api/v1/nodes"). Each event's type goes to
  // `count_event` (metrics), when given. `handler` and `sync` must outlive
  // the loop.
  ListWatch(KubeEndpoint endpoint, std::string what, std::string path, ListWatchHandler* handler,
            WatchSync* sync, LogSink log, std::function<void(const std::string&)> count_event,
            Options options);
  ~ListWatch();
  ListWatch(const ListWatch&) = delete;
  ListWatch& operator=(const ListWatch&) = delete;

  void Start();
  void Stop();  // idempotent; interrupts a request in flight

  uint64_t lists() const { return lists_.load(); }
  uint64_t events() const { return events_.load(); }

 private:
  enum class WatchEnd { kClosed, kGone, kFailed, kStopped };
  void Run();
  bool List();
  WatchEnd Watch();
  // Applies one watch event line; sets *end when the stream must stop.
  bool ApplyEvent(std::string_view line, WatchEnd* end);
  std::unique_ptr<HttpsClient> Client(int read_timeout_seconds);  // for the watch

  KubeEndpoint endpoint_;
  const std::string what_, path_;
  ListWatchHandler* handler_;
  WatchSync* sync_;
  LogSink log_;
  std::function<void(const std::string&)> count_event_;
  Options options_;
  std::string resource_version_;
  std::atomic<uint64_t> lists_{0}, events_{0};
  LoopControl loop_;  // last: stopped first
};

}  // namespace gpulint

#endif  // GPULINT_WEBHOOK_KUBE_LIST_WATCH_H_
