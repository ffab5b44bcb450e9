#include "webhook/event_loop.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>

#include "webhook/log.h"

namespace gpulint {
namespace {

constexpr int kTickMs = 100;               // deadlines are checked this often
constexpr size_t kBodyChunk = 256 * 1024;  // large bodies come in bigger reads
constexpr size_t kLingerBytes = 1u << 20;  // after a refusal: discarded at most
constexpr auto kLingerTime = std::chrono::seconds(1);
constexpr auto kAcceptPause = std::chrono::milliseconds(50);  // when out of descriptors
constexpr int kAcceptBurst = 64;
// Requests a connection may have answered in one turn while others wait.
constexpr int kRequestsPerTurn = 8;
// An idle connection keeps buffers up to this size; larger ones are freed.
constexpr size_t kIdleBuffer = 16 * 1024;

}  // namespace

EventLoop::EventLoop(TlsHttpServer& server, bool accepts)
    : server_(server), limits_(server.limits_), accepts_(accepts) {
  epoll_fd_ = ::epoll_create1(EPOLL_CLOEXEC);
  wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.ptr = &wake_tag_;
  ok_ = epoll_fd_ >= 0 && wake_fd_ >= 0 &&
        ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, wake_fd_, &ev) == 0;
  now_ = Clock::now();
  if (ok_ && accepts_) Listen(true);
}

EventLoop::~EventLoop() {
  while (!connections_.empty()) Close(connections_.back().get());
  for (int fd : adopted_) ::close(fd);
  if (wake_fd_ >= 0) ::close(wake_fd_);
  if (epoll_fd_ >= 0) ::close(epoll_fd_);
}

void EventLoop::Listen(bool on) {
  if (on == listening_ || server_.listen_fd_ < 0) return;
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.ptr = &listen_tag_;
  ::epoll_ctl(epoll_fd_, on ? EPOLL_CTL_ADD : EPOLL_CTL_DEL, server_.listen_fd_, &ev);
  listening_ = on;
}

void EventLoop::Wake() {
  uint64_t one = 1;
  [[maybe_unused]] ssize_t n = ::write(wake_fd_, &one, sizeof(one));
}

void EventLoop::Adopt(int fd) {
  load_.fetch_add(1, std::memory_order_relaxed);
  {
    std::lock_guard<std::mutex> lock(adopt_mu_);
    adopted_.push_back(fd);
  }
  Wake();
}

void EventLoop::TakeAdopted() {
  uint64_t count;
  [[maybe_unused]] ssize_t n = ::read(wake_fd_, &count, sizeof(count));
  std::vector<int> fds;
  {
    std::lock_guard<std::mutex> lock(adopt_mu_);
    fds.swap(adopted_);
  }
  for (int fd : fds) {
    load_.fetch_sub(1, std::memory_order_relaxed);  // Add counts it again
    Add(fd);
  }
}

void EventLoop::Run() {
  epoll_event events[64];
  Clock::time_point next_tick = Clock::now() + std::chrono::milliseconds(kTickMs);
  LogTurn log_turn;  // this turn's log lines go out together, before the loop waits
  for (;;) {
    LogTurn::Flush();
    int n = ::epoll_wait(epoll_fd_, events, 64, again_.empty() ? kTickMs : 0);
    now_ = Clock::now();
    for (int i = 0; i < n; ++i) {
      void* tag = events[i].data.ptr;
      if (tag == &listen_tag_) {
        AcceptReady();
      } else if (tag == &wake_tag_) {
        TakeAdopted();
      } else {
        Drive(static_cast<Connection*>(tag));
      }
    }
    std::vector<Connection*> turn;
    turn.swap(again_);
    for (Connection* c : turn) {
      c->again = false;
      Drive(c);
    }
    if (now_ >= next_tick) {
      Tick();
      next_tick = now_ + std::chrono::milliseconds(kTickMs);
    }
    if (server_.stopping()) {
      if (!stop_seen_) BeginStop();
      std::lock_guard<std::mutex> lock(adopt_mu_);
      if (connections_.empty() && adopted_.empty()) return;
    }
  }
}

void EventLoop::AcceptReady() {
  for (int i = 0; i < kAcceptBurst && !server_.stopping(); ++i) {
    int fd = ::accept4(server_.listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
        // The connection waits in the backlog; trying again at once would spin.
        Listen(false);
        accept_resume_ = now_ + kAcceptPause;
      }
      return;
    }
    server_.connections_++;
    EventLoop* target = this;
    for (const auto& loop : server_.loops_)
      if (loop->load() < target->load()) target = loop.get();
    if (target == this) {
      Add(fd);
    } else {
      target->Adopt(fd);
    }
  }
}

void EventLoop::Add(int fd) {
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  SslCtxPtr ctx = server_.Context();  // SSL_new keeps its own reference
  SSL* ssl = ctx ? SSL_new(ctx.get()) : nullptr;
  if (!ssl || SSL_set_fd(ssl, fd) != 1) {
    ERR_clear_error();
    if (ssl) SSL_free(ssl);
    ::close(fd);
    server_.handshake_failures_++;
    return;
  }
  auto c = std::make_unique<Connection>();
  c->fd = fd;
  c->ssl = ssl;
  c->deadline = now_ + limits_.handshake_timeout;
  c->events = EPOLLIN;
  c->index = connections_.size();
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.ptr = c.get();
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev);
  Connection* raw = c.get();
  connections_.push_back(std::move(c));
  load_.fetch_add(1, std::memory_order_relaxed);
  Drive(raw);  // the client's hello is often here already
}

void EventLoop::Close(Connection* c) {
  if (c->ssl) {
    if (!c->broken && SSL_is_init_finished(c->ssl) &&
        !(SSL_get_shutdown(c->ssl) & SSL_SENT_SHUTDOWN))
      SSL_shutdown(c->ssl);  // best effort close_notify; the socket is non-blocking
    ERR_clear_error();
    SSL_free(c->ssl);
  }
  // Out of the epoll set first: close alone leaves it there while a forked
  // child still holds the socket, and its events would name a freed connection.
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, c->fd, nullptr);
  ::close(c->fd);
  if (c->again) again_.erase(std::find(again_.begin(), again_.end(), c));
  size_t i = c->index;
  if (i + 1 != connections_.size()) {
    connections_[i] = std::move(connections_.back());
    connections_[i]->index = i;
  }
  connections_.pop_back();
  load_.fetch_sub(1, std::memory_order_relaxed);
}

void EventLoop::Drive(Connection* c) {
  if (!Step(*c)) Close(c);
}

bool EventLoop::Want(Connection& c, uint32_t events) {
  if (c.events != events) {
    epoll_event ev{};
    ev.events = events;
    ev.data.ptr = &c;
    ::epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, c.fd, &ev);
    c.events = events;
  }
  return true;
}

// After an SSL call failed with `err`: waits for what it needs, or reports
// the connection over.
bool EventLoop::WantFromSsl(Connection& c, int err) {
  if (err == SSL_ERROR_WANT_READ) return Want(c, EPOLLIN);
  if (err == SSL_ERROR_WANT_WRITE) return Want(c, EPOLLOUT);
  ERR_clear_error();
  if (err != SSL_ERROR_ZERO_RETURN) c.broken = true;
  return false;
}

// Moves the connection on as far as it can without waiting. False: close it.
bool EventLoop::Step(Connection& c) {
  bool read_all = false;  // the last read left nothing in the socket or OpenSSL
  c.turn = 0;
  for (;;) {
    Next next = Next::kClose;
    switch (c.phase) {
      case Phase::kHandshake: next = Handshake(c); break;
      case Phase::kHead:
      case Phase::kBody: next = Receive(c, &read_all); break;
      case Phase::kWrite: next = Send(c); break;
      case Phase::kLinger: next = Discard(c); break;
    }
    if (next != Next::kGoOn) return next == Next::kWait;
  }
}

EventLoop::Next EventLoop::Handshake(Connection& c) {
  int rc = SSL_accept(c.ssl);
  if (rc == 1) {
    c.phase = Phase::kHead;
    c.deadline = now_ + limits_.keep_alive_timeout;
    return Next::kGoOn;
  }
  int err = SSL_get_error(c.ssl, rc);
  if (err != SSL_ERROR_WANT_READ && err != SSL_ERROR_WANT_WRITE) server_.handshake_failures_++;
  // Once stopping, a connection that has sent no request yet is done.
  return WantFromSsl(c, err) && !server_.stopping() ? Next::kWait : Next::kClose;
}

// Parses what is buffered; reads when that is not a whole request.
EventLoop::Next EventLoop::Receive(Connection& c, bool* read_all) {
  Progress p = Parse(c);
  if (p == Progress::kFailed) return Next::kClose;
  if (p == Progress::kMoved) return Next::kGoOn;
  bool idle = c.phase == Phase::kHead && c.Unconsumed() == 0;
  // Once stopping, a connection with nothing more to read and no request
  // begun is done.
  Next waiting = idle && server_.stopping() ? Next::kClose : Next::kWait;
  // Without this, every request would end in a read that finds nothing.
  if (*read_all && !SSL_has_pending(c.ssl)) {
    Want(c, EPOLLIN);
    return waiting;
  }
  bool full = false;
  ReadResult r = Read(c, &full);
  if (r == ReadResult::kOver) return Next::kClose;
  if (r == ReadResult::kWait) return waiting;
  if (idle) c.deadline = now_ + limits_.request_read_timeout;  // a request began
  *read_all = !full;
  return Next::kGoOn;
}

// Sends the queued answer, then readies the connection for what comes next.
EventLoop::Next EventLoop::Send(Connection& c) {
  while (c.out_pos < c.out.size()) {
    int len = static_cast<int>(std::min<size_t>(c.out.size() - c.out_pos, INT_MAX));
    int n = SSL_write(c.ssl, c.out.data() + c.out_pos, len);
    if (n <= 0) return WantFromSsl(c, SSL_get_error(c.ssl, n)) ? Next::kWait : Next::kClose;
    c.out_pos += static_cast<size_t>(n);
  }
  if (c.out.capacity() > kIdleBuffer) std::string().swap(c.out);
  c.out.clear();
  c.out_pos = 0;
  if (c.close_after_write) {
    if (!c.linger) return Next::kClose;
    SSL_shutdown(c.ssl);
    ERR_clear_error();
    ::shutdown(c.fd, SHUT_WR);
    c.phase = Phase::kLinger;
    c.deadline = now_ + kLingerTime;
    Want(c, EPOLLIN);
    return Next::kGoOn;
  }
  c.phase = c.after_write;
  Want(c, EPOLLIN);
  if (c.phase != Phase::kHead) return Next::kGoOn;  // a 100 Continue went out; the body is next
  if (c.Unconsumed() == 0) {
    c.deadline = now_ + limits_.keep_alive_timeout;
    if (c.in.capacity() > kIdleBuffer) std::string().swap(c.in);
    c.in.clear();
    c.in_pos = 0;
  } else {
    c.deadline = now_ + limits_.request_read_timeout;
  }
  // Pipelined requests: a few per turn, then the loop's other connections.
  if (++c.turn >= kRequestsPerTurn && (c.Unconsumed() || SSL_has_pending(c.ssl))) {
    if (!c.again) again_.push_back(&c);
    c.again = true;
    return Next::kWait;
  }
  return Next::kGoOn;
}

// After a refusal: what the client still sends is read and dropped, for a
// moment, so that closing does not reset the answer away.
EventLoop::Next EventLoop::Discard(Connection& c) {
  char buf[16384];
  for (;;) {
    ssize_t n = ::recv(c.fd, buf, sizeof(buf), 0);
    if (n > 0) {
      c.discarded += static_cast<size_t>(n);
      if (c.discarded > kLingerBytes) return Next::kClose;
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      Want(c, EPOLLIN);
      return Next::kWait;
    }
    if (n < 0 && errno == EINTR) continue;
    return Next::kClose;
  }
}

// Reads what the current phase may still take. *full: the read filled what it
// asked for, so more may be waiting.
EventLoop::ReadResult EventLoop::Read(Connection& c, bool* full) {
  if (c.in_pos == c.in.size()) {
    c.in.clear();
    c.in_pos = 0;
  } else if (c.in_pos > c.in.size() / 2) {
    c.in.erase(0, c.in_pos);
    c.in_pos = 0;
  }
  // Heads and small bodies go through the loop's buffer, so a connection's
  // own grows only to what it holds; a large body is read in place.
  size_t want = sizeof(scratch_);
  char* into = scratch_;
  if (c.phase == Phase::kBody && c.body_length > c.Unconsumed() + sizeof(scratch_)) {
    want = std::min<size_t>(c.body_length - c.Unconsumed(), kBodyChunk);
    c.in.resize(c.in.size() + want);
    into = c.in.data() + c.in.size() - want;
  }
  int n = SSL_read(c.ssl, into, static_cast<int>(want));
  if (into == scratch_) {
    if (n > 0) c.in.append(scratch_, static_cast<size_t>(n));
  } else {
    c.in.resize(c.in.size() - want + static_cast<size_t>(std::max(n, 0)));
  }
  if (n > 0) {
    *full = static_cast<size_t>(n) == want;
    if (c.events != EPOLLIN) Want(c, EPOLLIN);
    return ReadResult::kGot;
  }
  return WantFromSsl(c, SSL_get_error(c.ssl, n)) ? ReadResult::kWait : ReadResult::kOver;
}

void EventLoop::Tick() {
  for (size_t i = 0; i < connections_.size();) {
    Connection* c = connections_[i].get();
    if (now_ < c->deadline) {
      ++i;
      continue;
    }
    if (c->phase == Phase::kHandshake) server_.handshake_failures_++;
    Close(c);  // moves the last connection to i
  }
  if (accepts_ && !listening_ && !server_.stopping() && now_ >= accept_resume_) Listen(true);
}

// Connections between requests close once what they already sent is read;
// requests under way are finished (Step sees the stop).
void EventLoop::BeginStop() {
  stop_seen_ = true;
  Listen(false);
  std::vector<Connection*> waiting;
  for (const auto& c : connections_)
    if (c->phase == Phase::kHandshake || (c->phase == Phase::kHead && c->Unconsumed() == 0))
      waiting.push_back(c.get());
  for (Connection* c : waiting) Drive(c);  // closes only `c`, if anything
}

}  // namespace gpulint
