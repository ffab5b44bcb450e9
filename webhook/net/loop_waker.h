// The connection layer's ConnectionWaker (connection_waker.h): waking a
// connection puts its waker on its loop's WakeQueue and signals the loop's
// eventfd; the loop then drives the connection (tls_event_loop.cc). A waker
// whose connection has closed is detached, and waking it does nothing.
#ifndef GPULINT_WEBHOOK_NET_LOOP_WAKER_H_
#define GPULINT_WEBHOOK_NET_LOOP_WAKER_H_

#include <memory>
#include <mutex>
#include <vector>

#include "webhook/net/connection_waker.h"

namespace gpulint {

class LoopWaker;
class TlsConnection;

// One loop's woken connections: filled from any thread, emptied by the loop.
// It outlives the loop's connections, so a waker may use it until detached.
class WakeQueue {
 public:
  explicit WakeQueue(int event_fd) : event_fd_(event_fd) {}
  void Push(std::shared_ptr<LoopWaker> waker);  // any thread
  std::vector<std::shared_ptr<LoopWaker>> Take();  // the loop's

 private:
  const int event_fd_;
  std::mutex mu_;
  std::vector<std::shared_ptr<LoopWaker>> woken_;
};

class LoopWaker : public ConnectionWaker, public std::enable_shared_from_this<LoopWaker> {
 public:
  LoopWaker(WakeQueue* queue, TlsConnection* connection)
      : queue_(queue), connection_(connection) {}
  void Wake() override;
  // The loop's, as the connection closes: from now on Wake does nothing.
  void Detach();
  // The loop's: the connection, or null once it closed.
  TlsConnection* connection() const { return connection_; }

 private:
  std::mutex mu_;
  WakeQueue* queue_;            // guarded by mu_; null once detached
  TlsConnection* connection_;  // written by the loop only
};

}  // namespace gpulint

#endif  // GPULINT_WEBHOOK_NET_LOOP_WAKER_H_
