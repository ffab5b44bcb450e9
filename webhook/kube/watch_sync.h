// How current a list/watch loop's view of the API server is: one per loop
// (the node watch; DRA's DeviceClass and ResourceSlice watches), marked by the
// loop as it goes and read by the server for /metrics and /readyz.
//
// The view is current while a watch stream is open (events come as they
// happen) and at the moment a list completes. Once the stream ends (the API
// server's watch timeout, a broken connection, a refusal) the view ages from
// that moment until the loop lists or watches again: a loop that keeps
// failing (its RBAC revoked, the API server unreachable) ages without end,
// and is stale once past the limit. A stream that hangs without closing is
// seen when its read times out (the watch's timeout plus 30 s).
#ifndef GPULINT_WEBHOOK_KUBE_WATCH_SYNC_H_
#define GPULINT_WEBHOOK_KUBE_WATCH_SYNC_H_

#include <chrono>
#include <mutex>
#include <string>

namespace gpulint {

class WatchSync {
 public:
  using Clock = std::chrono::steady_clock;

  // `resource` names the loop in metrics and /readyz: "nodes".
  explicit WatchSync(std::string resource) : resource_(std::move(resource)) {}
  WatchSync(const WatchSync&) = delete;
  WatchSync& operator=(const WatchSync&) = delete;

  const std::string& resource() const { return resource_; }

  // Marks, from the loop's thread.
  void Listed();         // a whole list was read
  void WatchOpened();    // a watch was answered 200: current from now on
  void WatchEnded();     // it ended as watches do (the API server's timeout)
  // A list or watch failed (or a watch broke): why, for /readyz.
  void Failed(std::string why);

  struct State {
    bool ever_synced = false;
    bool watching = false;
    std::chrono::seconds unsynced{0};  // since the view was last current; 0 while watching
    std::string last_error;            // of the last failure since the last sync
  };
  // The view at `now`. Before the first sync, its age counts from creation.
  State At(Clock::time_point now) const;

 private:
  const std::string resource_;
  mutable std::mutex mu_;
  bool ever_synced_ = false, watching_ = false;
  Clock::time_point synced_at_ = Clock::now();
  std::string last_error_;
};

}  // namespace gpulint

#endif  // GPULINT_WEBHOOK_KUBE_WATCH_SYNC_H_
