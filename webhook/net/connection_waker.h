// How work done off an event loop gets back onto it: a handler that judges a
// request on another thread (http_handler.h, PendingAnswer) wakes the
// request's connection when the answer is ready, and the connection's loop
// drives it again (tls_event_loop.h). A waker outlives its connection
// safely: once the connection is gone, waking it does nothing.
#ifndef GPULINT_WEBHOOK_NET_CONNECTION_WAKER_H_
#define GPULINT_WEBHOOK_NET_CONNECTION_WAKER_H_

#include <memory>

namespace gpulint {

class ConnectionWaker {
 public:
  virtual ~ConnectionWaker() = default;
  // The connection is driven again on its loop, soon. Any thread.
  virtual void Wake() = 0;
};

using ConnectionWakerPtr = std::shared_ptr<ConnectionWaker>;

}  // namespace gpulint

#endif  // GPULINT_WEBHOOK_NET_CONNECTION_WAKER_H_
