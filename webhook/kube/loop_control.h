// The stop and the waits of a background loop of the kube layer (the node
// watch, the VRAM advertiser, the registrar), in one place: its thread, a
// sleep that a stop (or a wake-up) cuts short, the backoff after failures in
// a row, and the request in flight that a stop interrupts.
#ifndef GPULINT_WEBHOOK_KUBE_LOOP_CONTROL_H_
#define GPULINT_WEBHOOK_KUBE_LOOP_CONTROL_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

#include "kube/https_client.h"

namespace gpulint {

// After a failure: min, doubling up to max.
struct Backoff {
  std::chrono::milliseconds min{500};
  std::chrono::milliseconds max{30000};
  // The wait after the `failures`th failure in a row (1: min).
  std::chrono::milliseconds After(int failures) const;
};

class LoopControl {
 public:
  using Clock = std::chrono::steady_clock;

  LoopControl() = default;
  ~LoopControl() { Stop(); }
  LoopControl(const LoopControl&) = delete;
  LoopControl& operator=(const LoopControl&) = delete;

  // Runs `loop` on a thread of its own; it should return soon after stopping().
  void Start(std::function<void()> loop);
  // Idempotent: sleeps end, the request in flight is interrupted (again and
  // again, until the loop returns: one may be between registering its client
  // and opening its socket, where stop() does not reach it), and the thread
  // is joined.
  void Stop();
  bool stopping() const { return stopping_.load(); }

  // Sleeps until `until`, a Wake or the stop; false when stopped.
  bool SleepUntil(Clock::time_point until);
  bool SleepFor(std::chrono::milliseconds d) { return SleepUntil(Clock::now() + d); }
  // Cuts the current (or the next) sleep short.
  void Wake();

  // The request about to be sent, for Stop to interrupt; false, and nothing
  // may be sent, when stopping. Untrack once it is answered.
  bool Track(HttpsClient* client);
  void Untrack() { Track(nullptr); }

 private:
  std::mutex mu_;  // guards the members below and the wake-up
  std::condition_variable cv_;
  HttpsClient* client_ = nullptr;
  bool woken_ = false;
  bool done_ = false;  // the loop returned
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

}  // namespace gpulint

#endif  // GPULINT_WEBHOOK_KUBE_LOOP_CONTROL_H_
