#include "webhook/net/tls_connection.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>

namespace gpulint {
namespace {

constexpr size_t kLingerBytes = 1u << 20;  // after a refusal: discarded at most
constexpr auto kLingerTime = std::chrono::seconds(1);
// Answers a connection may send in one turn while others wait.
constexpr int kAnswersPerTurn = 8;
// An idle connection keeps buffers up to this size; larger ones are freed.
constexpr size_t kIdleBuffer = 16 * 1024;

}  // namespace

std::unique_ptr<TlsConnection> TlsConnection::Accept(int fd, SSL_CTX* ctx,
                                                     const ConsumerFactory& make, const Loop& loop,
                                                     Clock::time_point now) {
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  SSL* ssl = ctx ? SSL_new(ctx) : nullptr;  // SSL_new keeps its own reference to ctx
  if (!ssl || SSL_set_fd(ssl, fd) != 1) {
    ERR_clear_error();
    if (ssl) SSL_free(ssl);
    ::close(fd);
    return nullptr;
  }
  std::unique_ptr<TlsConnection> c(new TlsConnection(fd, ssl, loop));
  c->peer_.address = PeerAddress(fd);
  c->waker_ = std::make_shared<LoopWaker>(loop.wakes, c.get());
  c->consumer_ = make(&c->peer_, c->waker_);
  c->now_ = now;
  c->deadline_ = now + loop.timeouts->handshake;
  c->events_ = EPOLLIN;
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.ptr = c.get();
  ::epoll_ctl(loop.epoll_fd, EPOLL_CTL_ADD, fd, &ev);
  return c;
}

TlsConnection::TlsConnection(int fd, SSL* ssl, const Loop& loop)
    : fd_(fd), ssl_(ssl), loop_(loop) {}

TlsConnection::~TlsConnection() {
  waker_->Detach();
  consumer_.reset();  // while the connection is whole: it may abandon a pending answer
  if (loop_.buffers) loop_.buffers->Give(charged_);
  if (state_ != State::kHandshake && state_ != State::kFailed &&
      !(SSL_get_shutdown(ssl_) & SSL_SENT_SHUTDOWN))
    SSL_shutdown(ssl_);  // best effort close_notify; the socket is non-blocking
  ERR_clear_error();
  SSL_free(ssl_);
  // Out of the epoll set first: close alone leaves it there while a forked
  // child still holds the socket, and its events would name a freed connection.
  ::epoll_ctl(loop_.epoll_fd, EPOLL_CTL_DEL, fd_, nullptr);
  ::close(fd_);
}

TlsConnection::Turn TlsConnection::Drive(Clock::time_point now, bool stopping) {
  now_ = now;
  stopping_ = stopping;
  answers_this_turn_ = 0;
  bool read_all = false;  // the last read left nothing in the socket or OpenSSL
  for (;;) {
    Turn turn = Turn::kClose;
    switch (state_) {
      case State::kHandshake: turn = Handshake(); break;
      case State::kAwaitRequest:
      case State::kRead:
      case State::kPending: turn = HandUp(&read_all); break;
      case State::kWrite: turn = Send(); break;
      case State::kLinger: turn = Discard(); break;
      case State::kFailed: turn = Turn::kClose; break;
    }
    if (turn != Turn::kGoOn) return turn;
  }
}

void TlsConnection::Enter(State state) {
  if (state == state_) return;
  state_ = state;
  const TlsTimeouts& t = *loop_.timeouts;
  switch (state) {
    case State::kHandshake: deadline_ = now_ + t.handshake; break;
    case State::kAwaitRequest:
      deadline_ = now_ + t.idle;
      if (in_pos_ == in_.size()) {  // an idle connection keeps no large buffer
        if (in_.capacity() > kIdleBuffer) {
          FreeBuffer();
        } else {
          in_.clear();
          in_pos_ = 0;
        }
      }
      break;
    case State::kRead: deadline_ = now_ + t.request; break;
    case State::kPending: deadline_ = now_ + t.answer; break;
    case State::kWrite: deadline_ = now_ + t.write; break;
    case State::kLinger: deadline_ = now_ + kLingerTime; break;
    case State::kFailed: break;
  }
}

TlsConnection::Turn TlsConnection::Handshake() {
  int rc = SSL_accept(ssl_);
  if (rc == 1) {
    std::string address = std::move(peer_.address);
    peer_ = ReadPeerInfo(ssl_);
    peer_.address = std::move(address);
    Enter(State::kAwaitRequest);
    return Turn::kGoOn;
  }
  Turn turn = FromSslError(rc);
  // Once stopping, a connection that has sent no request yet is done.
  return turn == Turn::kWait && stopping_ ? Turn::kClose : turn;
}

// Hands what is buffered up; reads when the consumer needs more.
TlsConnection::Turn TlsConnection::HandUp(bool* read_all) {
  ConsumerStep step = consumer_->Consume(Unread(), stopping_, &out_);
  in_pos_ += step.consumed;
  switch (step.next) {
    case ConnectionNext::kWrite: Enter(State::kWrite); return Turn::kGoOn;
    case ConnectionNext::kClose: return Turn::kClose;
    case ConnectionNext::kLinger: BeginLinger(); return Turn::kGoOn;
    case ConnectionNext::kPending:
      // The request went whole to its handler, which holds (and counts) its
      // body now; nothing more is read until the answer is ready.
      Enter(State::kPending);
      if (in_pos_ == in_.size()) FreeBuffer();
      Want(0);
      return Turn::kWait;
    case ConnectionNext::kAwaitRequest: Enter(State::kAwaitRequest); break;
    case ConnectionNext::kRead: Enter(State::kRead); break;
  }
  // Without this, every request would end in a read that finds nothing.
  if (*read_all && !SSL_has_pending(ssl_)) {
    Want(EPOLLIN);
    return Waiting();
  }
  return Read(step.wanted, read_all);
}

// Reads once, one TLS record at most, through the loop's buffer: the
// connection keeps only what was read. *read_all: the read did not fill the
// buffer, so the socket and OpenSSL are likely empty. `wanted`: bytes of the
// request still to come, when known (a body).
TlsConnection::Turn TlsConnection::Read(uint64_t wanted, bool* read_all) {
  if (in_pos_ == in_.size()) {
    in_.clear();
    in_pos_ = 0;
  } else if (in_pos_ > in_.size() / 2) {
    in_.erase(0, in_pos_);
    in_pos_ = 0;
  }
  int n = SSL_read(ssl_, loop_.scratch, static_cast<int>(loop_.scratch_size));
  if (n > 0) {
    if (!Reserve(static_cast<size_t>(n), wanted)) return OutOfBuffer();
    in_.append(loop_.scratch, static_cast<size_t>(n));
    *read_all = static_cast<size_t>(n) != loop_.scratch_size;
    if (events_ != EPOLLIN) Want(EPOLLIN);
    return Turn::kGoOn;
  }
  Turn turn = FromSslError(n);
  return turn == Turn::kWait ? Waiting() : turn;
}

// The buffer doubles as it fills, never past what the request still needs
// when that is known: a body costs at most what it takes, and a client that
// announces 3 MiB and sends 45 bytes costs 45 bytes.
bool TlsConnection::Reserve(size_t more, uint64_t wanted) {
  size_t need = in_.size() + more;
  if (need <= in_.capacity()) return true;
  size_t grown = std::max(need, 2 * in_.capacity());
  if (wanted >= more) grown = std::min<uint64_t>(grown, in_.size() + wanted);
  grown = std::max(grown, need);
  if (grown > charged_ && loop_.buffers && !loop_.buffers->TryTake(grown - charged_))
    return false;
  size_t taken = std::max(grown, charged_);
  in_.reserve(grown);
  if (loop_.buffers && in_.capacity() > taken) loop_.buffers->Take(in_.capacity() - taken);
  charged_ = std::max(taken, in_.capacity());
  return true;
}

void TlsConnection::FreeBuffer() {
  std::string().swap(in_);
  in_pos_ = 0;
  if (loop_.buffers) loop_.buffers->Give(charged_);
  charged_ = 0;
}

// The server holds all the request bytes it may: the consumer answers (503),
// and the bytes read of this request are let go unread.
TlsConnection::Turn TlsConnection::OutOfBuffer() {
  ConsumerStep step = consumer_->OutOfBuffer(stopping_, &out_);
  FreeBuffer();
  if (step.next != ConnectionNext::kWrite) return Turn::kClose;
  Enter(State::kWrite);
  return Turn::kGoOn;
}

// Once stopping, a connection with nothing more to read and no request begun
// is done; any other waits.
TlsConnection::Turn TlsConnection::Waiting() {
  return state_ == State::kAwaitRequest && stopping_ ? Turn::kClose : Turn::kWait;
}

// Sends what the consumer queued, then hands up again.
TlsConnection::Turn TlsConnection::Send() {
  while (out_pos_ < out_.size()) {
    int len = static_cast<int>(std::min<size_t>(out_.size() - out_pos_, INT_MAX));
    int n = SSL_write(ssl_, out_.data() + out_pos_, len);
    if (n <= 0) return FromSslError(n);
    out_pos_ += static_cast<size_t>(n);
  }
  if (out_.capacity() > kIdleBuffer) std::string().swap(out_);
  out_.clear();
  out_pos_ = 0;
  // What was sent may have ended a request; the consumer says at once
  // whether the next one is under way.
  Enter(State::kRead);
  Want(EPOLLIN);
  // Pipelined requests: a few answers per turn, then the loop's other connections.
  if (++answers_this_turn_ >= kAnswersPerTurn && (!Unread().empty() || SSL_has_pending(ssl_)))
    return Turn::kYield;
  return Turn::kGoOn;
}

void TlsConnection::BeginLinger() {
  SSL_shutdown(ssl_);
  ERR_clear_error();
  ::shutdown(fd_, SHUT_WR);
  Enter(State::kLinger);
  Want(EPOLLIN);
}

// What the client still sends is read and dropped, for a moment, so that
// closing does not reset the answer away.
TlsConnection::Turn TlsConnection::Discard() {
  char buf[16384];
  for (;;) {
    ssize_t n = ::recv(fd_, buf, sizeof(buf), 0);
    if (n > 0) {
      discarded_ += static_cast<size_t>(n);
      if (discarded_ > kLingerBytes) return Turn::kClose;
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      Want(EPOLLIN);
      return Turn::kWait;
    }
    if (n < 0 && errno == EINTR) continue;
    return Turn::kClose;
  }
}

// After an SSL call returned `rc`: waits for what it needs, or ends the
// connection (a fatal error: without close_notify).
TlsConnection::Turn TlsConnection::FromSslError(int rc) {
  int err = SSL_get_error(ssl_, rc);
  if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) {
    Want(err == SSL_ERROR_WANT_READ ? EPOLLIN : EPOLLOUT);
    return Turn::kWait;
  }
  ERR_clear_error();
  // OpenSSL's own "in init" flag comes back on after any fatal error, so the
  // state is what says whether the handshake was done.
  if (err != SSL_ERROR_ZERO_RETURN && state_ != State::kHandshake) state_ = State::kFailed;
  return Turn::kClose;
}

// Waiting for nothing is being out of the epoll set: a socket the client
// has closed would otherwise report EPOLLHUP on every wait.
void TlsConnection::Want(uint32_t events) {
  if (events_ == events) return;
  epoll_event ev{};
  ev.events = events;
  ev.data.ptr = this;
  int op = events == 0 ? EPOLL_CTL_DEL : events_ == 0 ? EPOLL_CTL_ADD : EPOLL_CTL_MOD;
  ::epoll_ctl(loop_.epoll_fd, op, fd_, &ev);
  events_ = events;
}

}  // namespace gpulint
