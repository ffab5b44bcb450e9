// The threads that judge reviews, apart from the event loops that read and
// write connections, so that a large review never holds up a probe or
// another connection's bytes. Bounded: at most `max_in_flight` reviews wait
// or run at once; one more is refused at once (the router answers 503), so a
// burst costs a clear answer rather than memory and a queue nobody waits for.
#ifndef GPULINT_WEBHOOK_SERVER_REVIEW_POOL_H_
#define GPULINT_WEBHOOK_SERVER_REVIEW_POOL_H_

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace gpulint {

class ReviewPool {
 public:
  // `threads` workers (at least one); `max_in_flight` jobs queued or running
  // (at least `threads`).
  ReviewPool(size_t threads, size_t max_in_flight);
  ~ReviewPool();  // Stop
  ReviewPool(const ReviewPool&) = delete;
  ReviewPool& operator=(const ReviewPool&) = delete;

  // Runs `job` on a worker; false, running nothing, when max_in_flight are
  // queued or running, or once stopped.
  bool TrySubmit(std::function<void()> job);
  // Runs what was queued, then joins the workers. Idempotent.
  void Stop();

  size_t in_flight() const;
  size_t threads() const { return workers_.size(); }
  size_t max_in_flight() const { return max_in_flight_; }

 private:
  void Work();

  const size_t max_in_flight_;
  mutable std::mutex mu_;
  std::condition_variable ready_;
  std::deque<std::function<void()>> queue_;  // guarded by mu_
  size_t running_ = 0;                       // guarded by mu_
  bool stopping_ = false;                    // guarded by mu_
  std::vector<std::thread> workers_;
};

}  // namespace gpulint

#endif  // GPULINT_WEBHOOK_SERVER_REVIEW_POOL_H_
