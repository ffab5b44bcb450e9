#include "webhook/net/tls_event_loop.h"

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "webhook/support/log.h"

namespace gpulint {
namespace {

constexpr int kTickMs = 100;  // deadlines are checked this often
constexpr auto kAcceptPause = std::chrono::milliseconds(50);  // when out of descriptors
constexpr int kAcceptBurst = 64;

}  // namespace

TlsEventLoop::TlsEventLoop(TlsLoopHost& host, TlsLoopSetup setup)
    : host_(host),
      setup_(setup),
      accepts_(setup.listener != nullptr),
      epoll_fd_(::epoll_create1(EPOLL_CLOEXEC)),
      wake_fd_(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)),
      wakes_(wake_fd_) {
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.ptr = &wake_tag_;
  ok_ = epoll_fd_ >= 0 && wake_fd_ >= 0 &&
        ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, wake_fd_, &ev) == 0;
  shared_.epoll_fd = epoll_fd_;
  shared_.timeouts = setup_.timeouts;
  shared_.scratch = scratch_;
  shared_.scratch_size = sizeof(scratch_);
  shared_.buffers = setup_.buffers;
  shared_.wakes = &wakes_;
  now_ = Clock::now();
  if (ok_ && accepts_) Listen(true);
}

TlsEventLoop::~TlsEventLoop() {
  connections_.clear();  // each closes its socket
  for (int fd : adopted_) ::close(fd);
  if (wake_fd_ >= 0) ::close(wake_fd_);
  if (epoll_fd_ >= 0) ::close(epoll_fd_);
}

void TlsEventLoop::Listen(bool on) {
  int listen_fd = accepts_ ? setup_.listener->fd() : -1;
  if (on == listening_ || listen_fd < 0) return;
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.ptr = &listen_tag_;
  ::epoll_ctl(epoll_fd_, on ? EPOLL_CTL_ADD : EPOLL_CTL_DEL, listen_fd, &ev);
  listening_ = on;
}

void TlsEventLoop::Wake() {
  uint64_t one = 1;
  [[maybe_unused]] ssize_t n = ::write(wake_fd_, &one, sizeof(one));
}

void TlsEventLoop::Adopt(int fd) {
  load_.fetch_add(1, std::memory_order_relaxed);
  {
    std::lock_guard<std::mutex> lock(adopt_mu_);
    adopted_.push_back(fd);
  }
  Wake();
}

void TlsEventLoop::TakeAdopted() {
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

// Connections whose answers came back from another thread.
void TlsEventLoop::TakeWoken() {
  for (const std::shared_ptr<LoopWaker>& waker : wakes_.Take())
    if (TlsConnection* c = waker->connection()) Drive(c);
}

void TlsEventLoop::Run() {
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
        TakeWoken();
      } else {
        Drive(static_cast<TlsConnection*>(tag));
      }
    }
    std::vector<TlsConnection*> turn;
    turn.swap(again_);
    for (TlsConnection* c : turn) Drive(c);
    if (now_ >= next_tick) {
      Tick();
      next_tick = now_ + std::chrono::milliseconds(kTickMs);
    }
    if (host_.stopping()) {
      if (!stop_seen_) BeginStop();
      std::lock_guard<std::mutex> lock(adopt_mu_);
      if (connections_.empty() && adopted_.empty()) return;
    }
  }
}

void TlsEventLoop::AcceptReady() {
  for (int i = 0; i < kAcceptBurst && !host_.stopping(); ++i) {
    int fd = setup_.listener->Accept();
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
        // The connection waits in the backlog; trying again at once would spin.
        Listen(false);
        accept_resume_ = now_ + kAcceptPause;
      }
      return;
    }
    host_.CountConnection();
    if (!host_.AdmitConnection()) {
      ::close(fd);  // before TLS: a refused connection costs nothing more
      continue;
    }
    TlsEventLoop* target = host_.LeastLoadedLoop(this);
    if (target == this) {
      Add(fd);
    } else {
      target->Adopt(fd);
    }
  }
}

void TlsEventLoop::Add(int fd) {
  SslCtxPtr ctx = host_.Context();
  std::unique_ptr<TlsConnection> c =
      TlsConnection::Accept(fd, ctx.get(), *setup_.make_consumer, shared_, now_);
  if (!c) {
    host_.CountHandshakeFailure();
    host_.ConnectionClosed();
    return;
  }
  c->set_slot(connections_.size());
  TlsConnection* raw = c.get();
  connections_.push_back(std::move(c));
  load_.fetch_add(1, std::memory_order_relaxed);
  Drive(raw);  // the client's hello is often here already
}

void TlsEventLoop::Drive(TlsConnection* c) {
  switch (c->Drive(now_, host_.stopping())) {
    case TlsConnection::Turn::kClose: Close(c); break;
    case TlsConnection::Turn::kYield:
      if (std::find(again_.begin(), again_.end(), c) == again_.end()) again_.push_back(c);
      break;
    case TlsConnection::Turn::kWait:
    case TlsConnection::Turn::kGoOn: break;
  }
}

void TlsEventLoop::Close(TlsConnection* c) {
  // A connection that never finished its handshake failed it, unless the
  // stop closed it while it waited.
  if (c->state() == TlsConnection::State::kHandshake && !host_.stopping())
    host_.CountHandshakeFailure();
  again_.erase(std::remove(again_.begin(), again_.end(), c), again_.end());
  size_t i = c->slot();
  if (i + 1 != connections_.size()) {
    std::swap(connections_[i], connections_.back());
    connections_[i]->set_slot(i);
  }
  connections_.pop_back();  // closes it
  load_.fetch_sub(1, std::memory_order_relaxed);
  host_.ConnectionClosed();
}

void TlsEventLoop::Tick() {
  for (size_t i = 0; i < connections_.size();) {
    TlsConnection* c = connections_[i].get();
    if (now_ < c->deadline()) {
      ++i;
      continue;
    }
    TlsConnection::State state = c->state();
    if (state != TlsConnection::State::kAwaitRequest && state != TlsConnection::State::kLinger)
      host_.DeadlinePassed(*c);
    Close(c);  // moves the last connection to i
  }
  if (accepts_ && !listening_ && !host_.stopping() && now_ >= accept_resume_) Listen(true);
}

// Connections between requests close once what they already sent is read;
// requests under way are finished (TlsConnection::Drive sees the stop).
void TlsEventLoop::BeginStop() {
  stop_seen_ = true;
  Listen(false);
  std::vector<TlsConnection*> waiting;
  for (const auto& c : connections_) {
    TlsConnection::State s = c->state();
    if (s == TlsConnection::State::kHandshake || s == TlsConnection::State::kAwaitRequest)
      waiting.push_back(c.get());
  }
  for (TlsConnection* c : waiting) Drive(c);  // closes only `c`, if anything
}

}  // namespace gpulint
