// One accepted TLS connection (the connection layer; tls_event_loop.h drives
// it): the socket, its epoll registration, the TLS session, the plaintext read
// and the bytes to send, and the deadline of whatever it waits for. The
// plaintext goes up to a PlaintextConsumer (the HTTP/1.1 layer), which decides
// what happens next; nothing here reads HTTP.
//
// States, in the order a connection usually meets them:
//   kHandshake     SSL_accept until the session is up
//   kAwaitRequest  between requests (idle deadline)
//   kRead          a request under way (request deadline, from its first byte)
//   kPending       its request is being answered elsewhere (a review worker):
//                  nothing is read until its waker is woken (answer deadline)
//   kWrite         sending what the consumer queued (write deadline)
//   kLinger        after a last answer that left bytes unread: discarding
//                  what the client still sends, for a moment
//   kFailed        a fatal TLS error after the handshake: closes without
//                  close_notify (a failed handshake stays kHandshake)
// Each state's deadline is set when the connection enters it.
// What it reads goes through its loop's buffer (one TLS record) and is kept
// only as far as it is read, so a connection holds what its client sent and
// no more: no fixed reservation for a body announced and never sent. Those
// bytes are taken from the server's ByteBudget before they are kept.
#ifndef GPULINT_WEBHOOK_NET_TLS_CONNECTION_H_
#define GPULINT_WEBHOOK_NET_TLS_CONNECTION_H_

#include <openssl/ssl.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "webhook/net/byte_budget.h"
#include "webhook/net/connection_waker.h"
#include "webhook/net/loop_waker.h"
#include "webhook/net/peer_info.h"
#include "webhook/net/tls_plaintext_consumer.h"

namespace gpulint {

struct TlsTimeouts {
  std::chrono::milliseconds handshake{10000};
  std::chrono::milliseconds request{10000};  // a whole request, from its first byte
  std::chrono::milliseconds write{10000};    // a whole answer
  std::chrono::milliseconds idle{30000};     // between requests
  std::chrono::milliseconds answer{10000};   // a request handed elsewhere (kPending)
};

// Makes the consumer of a new connection's plaintext. `peer` is the
// connection's own, filled in when the handshake is done, before any
// plaintext is handed up; the HTTP layer hands it on to handlers that check
// the client certificate. `waker` wakes the connection from another thread
// (the consumer's kPending).
using ConsumerFactory = std::function<std::unique_ptr<PlaintextConsumer>(
    const PeerInfo* peer, ConnectionWakerPtr waker)>;

class TlsConnection {
 public:
  using Clock = std::chrono::steady_clock;
  enum class State : uint8_t {
    kHandshake, kAwaitRequest, kRead, kPending, kWrite, kLinger, kFailed
  };
  // How a call of Drive ends. kGoOn is only ever seen inside it.
  enum class Turn : uint8_t {
    kGoOn,   // the state changed: go on at once
    kWait,   // waiting for epoll
    kYield,  // more is buffered, but others had no turn yet: drive again before waiting
    kClose,  // over: the loop destroys it
  };
  // What the connections of one event loop share.
  struct Loop {
    int epoll_fd = -1;
    const TlsTimeouts* timeouts = nullptr;
    char* scratch = nullptr;  // one TLS record's plaintext, for every connection's reads
    size_t scratch_size = 0;
    ByteBudget* buffers = nullptr;  // the server's, for what connections read
    WakeQueue* wakes = nullptr;     // the loop's
  };

  // Takes `fd` (closed on failure) and registers it with the loop's epoll.
  // Null when no TLS session could be made for it.
  static std::unique_ptr<TlsConnection> Accept(int fd, SSL_CTX* ctx, const ConsumerFactory& make,
                                               const Loop& loop, Clock::time_point now);
  ~TlsConnection();
  TlsConnection(const TlsConnection&) = delete;
  TlsConnection& operator=(const TlsConnection&) = delete;

  // Moves the connection on as far as it can without waiting.
  Turn Drive(Clock::time_point now, bool stopping);

  // kHandshake until the session is up, also when the handshake failed.
  State state() const { return state_; }
  // Plaintext read and kept: of the request under way, or pipelined after it.
  size_t buffered() const { return in_.size() - in_pos_; }
  const PeerInfo& peer() const { return peer_; }
  Clock::time_point deadline() const { return deadline_; }
  // Where the event loop keeps it; the loop's to set.
  size_t slot() const { return slot_; }
  void set_slot(size_t slot) { slot_ = slot; }

 private:
  TlsConnection(int fd, SSL* ssl, const Loop& loop);

  void Enter(State state);
  Turn Handshake();
  Turn HandUp(bool* read_all);
  Turn Send();
  Turn Discard();
  Turn Read(uint64_t wanted, bool* read_all);
  Turn Waiting();
  void BeginLinger();
  Turn FromSslError(int rc);
  Turn OutOfBuffer();
  // Grows the read buffer's capacity to hold `more` bytes, taking what it
  // grows by from the budget; false, changing nothing, when it cannot.
  bool Reserve(size_t more, uint64_t wanted);
  void FreeBuffer();  // an empty read buffer, its bytes given back
  void Want(uint32_t events);  // 0: out of the epoll set
  std::string_view Unread() const { return std::string_view(in_).substr(in_pos_); }

  const int fd_;
  SSL* const ssl_;
  const Loop loop_;
  PeerInfo peer_;  // once the handshake is done
  std::shared_ptr<LoopWaker> waker_;
  std::unique_ptr<PlaintextConsumer> consumer_;
  State state_ = State::kHandshake;
  uint32_t events_ = 0;  // what epoll watches for
  Clock::time_point now_;
  Clock::time_point deadline_;
  bool stopping_ = false;  // the server's, as of this Drive
  int answers_this_turn_ = 0;
  std::string in_;  // plaintext read; [in_pos_, size) not consumed yet
  size_t in_pos_ = 0;
  size_t charged_ = 0;  // in_'s capacity, as taken from loop_.buffers
  std::string out_;  // to send; [out_pos_, size) not sent yet
  size_t out_pos_ = 0;
  size_t discarded_ = 0;  // in kLinger
  size_t slot_ = 0;
};

}  // namespace gpulint

#endif  // GPULINT_WEBHOOK_NET_TLS_CONNECTION_H_
