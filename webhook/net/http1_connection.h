// One connection's HTTP/1.1 (the HTTP layer): it is handed the plaintext the
// connection layer (tls_connection.h) read, and never touches the socket or
// TLS. Requests are read whole before a handler runs: the head (at most
// max_header_bytes), its body's framing decided once (DecideFraming: a
// Content-Length body of at most max_body_bytes, nothing else), the head
// admitted or refused by the handler, an `Expect: 100-continue` answered,
// then the body and the handler's answer. A refused request's body is never
// read; its connection closes after the answer, lingering so the client reads
// the answer rather than a reset. A handler may answer a whole request from
// another thread (a PendingAnswer): the connection reads nothing more until
// that answer is sent.
//
// States, top to bottom:
//   kHead    waiting for a request's line and headers
//   kBody    the head was admitted; waiting for its body
//   kPending the request is the handler's, answered from another thread
//   kClose   the last answer is queued: the connection closes once it is sent
//   kLinger  the same, and bytes of the refused request follow unread
#ifndef GPULINT_WEBHOOK_NET_HTTP1_CONNECTION_H_
#define GPULINT_WEBHOOK_NET_HTTP1_CONNECTION_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <memory>
#include <string_view>

#include "webhook/net/connection_waker.h"
#include "webhook/net/http_handler.h"
#include "webhook/net/tls_plaintext_consumer.h"

namespace gpulint {

struct Http1Limits {
  size_t max_header_bytes = 64 * 1024;  // request line + headers
  size_t max_body_bytes = 3u << 20;
  size_t keep_alive_requests = 1000;   // then the connection closes
  std::chrono::seconds keep_alive_timeout{30};  // advertised in Keep-Alive
};

class Http1Connection : public PlaintextConsumer {
 public:
  // `peer`: who the connection is from, handed to the handler with each head
  // (null: nobody known, as over a test's plain strings). `waker`: the
  // connection's, for answers the handler completes elsewhere.
  Http1Connection(const Http1Limits& limits, HttpHandler& handler, const PeerInfo* peer,
                  ConnectionWakerPtr waker = nullptr);
  ~Http1Connection() override;

  ConsumerStep Consume(std::string_view plaintext, bool stopping, std::string* out) override;
  ConsumerStep OutOfBuffer(bool stopping, std::string* out) override;

 private:
  enum class State : uint8_t { kHead, kBody, kPending, kClose, kLinger };

  ConsumerStep TakeHead(std::string_view plaintext, bool stopping, std::string* out);
  ConsumerStep TakeBody(std::string_view plaintext, size_t consumed, bool stopping,
                        std::string* out);
  ConsumerStep TakeAnswer(bool stopping, std::string* out);
  // Queues the final answer to the current request. `unread`: bytes of it
  // may follow, so the connection lingers and closes.
  void Answer(const HttpResponse& res, bool unread, bool stopping, std::string* out);
  void Refuse(int status, const std::string& why, bool stopping, std::string* out);

  const Http1Limits limits_;
  HttpHandler& handler_;
  const PeerInfo* const peer_;
  const ConnectionWakerPtr waker_;
  std::shared_ptr<PendingAnswer> pending_;  // in kPending
  State state_ = State::kHead;
  size_t scanned_ = 0;  // FindHeadEnd's progress over the current head
  uint64_t body_length_ = 0;
  size_t served_ = 0;
  HttpRequest req_;  // from its head to its answer
};

}  // namespace gpulint

#endif  // GPULINT_WEBHOOK_NET_HTTP1_CONNECTION_H_
