// The seam between the server's two layers: the connection layer (tls_*.h)
// reads and decrypts, then hands the plaintext to a PlaintextConsumer (the
// HTTP/1.1 layer, http1_connection.h), which parses it, queues what to send
// and says what the connection should do next. The consumer never touches the
// socket or TLS; the connection layer never looks inside the bytes.
#ifndef GPULINT_WEBHOOK_NET_TLS_PLAINTEXT_CONSUMER_H_
#define GPULINT_WEBHOOK_NET_TLS_PLAINTEXT_CONSUMER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace gpulint {

// What a consumer asks of its connection after taking what it could.
enum class ConnectionNext : uint8_t {
  kAwaitRequest,  // between requests, nothing of the next one read: wait
                  // (the idle deadline applies; a stopping server closes it)
  kRead,          // a request is under way and needs more bytes
  kWrite,         // bytes are queued: send them, then hand up again
  kPending,       // a request is in and its answer is worked out elsewhere:
                  // read nothing, and hand up again when the connection's
                  // waker (connection_waker.h) is woken
  kClose,         // the conversation is over: close
  kLinger,        // over, but the client may still be sending bytes nobody
                  // will read: drain them a moment so the answer is not reset
};

struct ConsumerStep {
  ConnectionNext next = ConnectionNext::kAwaitRequest;
  size_t consumed = 0;  // bytes of the plaintext taken; the rest is handed up again
  uint64_t wanted = 0;  // with kRead: bytes still to come when known (a body)
};

class PlaintextConsumer {
 public:
  virtual ~PlaintextConsumer() = default;
  // `plaintext`: what was read and not yet consumed. Appends what to send to
  // `*out`. `stopping`: the server is shutting down, so no request may start
  // a new one on this connection.
  virtual ConsumerStep Consume(std::string_view plaintext, bool stopping, std::string* out) = 0;
  // The connection cannot hold more of the request: the bytes the server
  // holds across connections are at their limit (ByteBudget). The request is
  // answered and the connection closed; what it sent stays unread.
  virtual ConsumerStep OutOfBuffer(bool stopping, std::string* out) = 0;
};

}  // namespace gpulint

#endif  // GPULINT_WEBHOOK_NET_TLS_PLAINTEXT_CONSUMER_H_
