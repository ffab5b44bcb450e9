#include "webhook/tls_server.h"

#include <netdb.h>
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
#include <cstring>
#include <thread>

#include "webhook/http_message.h"

namespace gpulint {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kTickMs = 100;               // deadlines are checked this often
constexpr size_t kReadChunk = 16 * 1024;   // one TLS record's worth of plaintext
constexpr size_t kBodyChunk = 256 * 1024;  // large bodies come in bigger reads
constexpr size_t kLingerBytes = 1u << 20;  // after a refusal: discarded at most
constexpr auto kLingerTime = std::chrono::seconds(1);
constexpr auto kAcceptPause = std::chrono::milliseconds(50);  // when out of descriptors
constexpr int kAcceptBurst = 64;
constexpr const char* kText = "text/plain; charset=utf-8";

enum class Phase : uint8_t {
  kHandshake,
  kHead,   // waiting for, or reading, a request's line and headers
  kBody,   // the head was admitted; reading its Content-Length body
  kWrite,  // sending an answer (or a 100 Continue)
  kLinger  // answered a refused request: discarding what the client still sends
};

struct Connection {
  int fd = -1;
  SSL* ssl = nullptr;
  size_t index = 0;  // in EventLoop::connections_
  Phase phase = Phase::kHandshake;
  Phase after_write = Phase::kHead;
  uint32_t events = 0;  // what epoll watches for
  bool broken = false;  // a fatal TLS error: no close_notify
  bool close_after_write = false;
  bool linger = false;
  std::string in;  // plaintext read; [in_pos, size) not consumed yet
  size_t in_pos = 0;
  size_t scanned = 0;  // FindHeadEnd's progress over the current head
  uint64_t body_length = 0;
  std::string out;  // to send; [out_pos, size) not sent yet
  size_t out_pos = 0;
  size_t served = 0;
  size_t discarded = 0;
  Clock::time_point deadline;
  httplib::Request req;  // from its head to its answer

  size_t Unconsumed() const { return in.size() - in_pos; }
};

enum class Progress { kMoved, kNeedBytes, kFailed };
enum class ReadResult { kGot, kWait, kOver };

}  // namespace

// One thread's connections, all served through one epoll instance. The first
// loop also owns the listener and deals new connections to the least loaded
// loop; a connection then stays on its loop for its life.
class EventLoop {
 public:
  EventLoop(TlsHttpServer& server, bool accepts);
  ~EventLoop();
  void Run();
  // Another thread hands this loop a connection it accepted.
  void Adopt(int fd);
  void Wake();
  size_t load() const { return load_.load(std::memory_order_relaxed); }

 private:
  void AcceptReady();
  void Add(int fd);
  void TakeAdopted();
  void Drive(Connection* c);
  bool Step(Connection& c);
  ReadResult Read(Connection& c, bool* full);
  Progress Parse(Connection& c);
  Progress ParseHeadOf(Connection& c);
  void Respond(Connection& c, const httplib::Response& res, bool refused);
  void Refuse(Connection& c, int status, const std::string& message);
  bool Want(Connection& c, uint32_t events);
  bool WantFromSsl(Connection& c, int err);
  void Close(Connection* c);
  void Tick();
  void BeginStop();
  void Listen(bool on);

  TlsHttpServer& server_;
  const TlsLimits& limits_;
  const bool accepts_;
  int epoll_fd_ = -1;
  int wake_fd_ = -1;
  bool listening_ = false;
  bool stop_seen_ = false;
  Clock::time_point now_;
  Clock::time_point accept_resume_{};
  std::vector<std::unique_ptr<Connection>> connections_;
  std::atomic<size_t> load_{0};
  std::mutex adopt_mu_;
  std::vector<int> adopted_;  // guarded by adopt_mu_
  // epoll tags that are not connections.
  char listen_tag_ = 0;
  char wake_tag_ = 0;
};

EventLoop::EventLoop(TlsHttpServer& server, bool accepts)
    : server_(server), limits_(server.limits_), accepts_(accepts) {
  epoll_fd_ = ::epoll_create1(EPOLL_CLOEXEC);
  wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.ptr = &wake_tag_;
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, wake_fd_, &ev);
  now_ = Clock::now();
  if (accepts_) Listen(true);
}

EventLoop::~EventLoop() {
  while (!connections_.empty()) Close(connections_.back().get());
  for (int fd : adopted_) ::close(fd);
  ::close(wake_fd_);
  ::close(epoll_fd_);
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
  for (;;) {
    int n = ::epoll_wait(epoll_fd_, events, 64, kTickMs);
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
  for (;;) {
    switch (c.phase) {
      case Phase::kHandshake: {
        int rc = SSL_accept(c.ssl);
        if (rc == 1) {
          c.phase = Phase::kHead;
          c.deadline = now_ + limits_.keep_alive_timeout;
          break;
        }
        int err = SSL_get_error(c.ssl, rc);
        if (err != SSL_ERROR_WANT_READ && err != SSL_ERROR_WANT_WRITE)
          server_.handshake_failures_++;
        return WantFromSsl(c, err) && !server_.stopping();  // no request yet: done
      }
      case Phase::kHead:
      case Phase::kBody: {
        Progress p = Parse(c);
        if (p == Progress::kFailed) return false;
        if (p == Progress::kMoved) break;
        bool idle = c.phase == Phase::kHead && c.Unconsumed() == 0;
        // Once stopping, a connection with nothing more to read and no
        // request begun is done.
        bool done_if_waiting = idle && server_.stopping();
        // Without this, every request would end in a read that finds nothing.
        if (read_all && !SSL_has_pending(c.ssl)) return !done_if_waiting && Want(c, EPOLLIN);
        bool full = false;
        ReadResult r = Read(c, &full);
        if (r != ReadResult::kGot) return r == ReadResult::kWait && !done_if_waiting;
        if (idle) c.deadline = now_ + limits_.request_read_timeout;  // a request began
        read_all = !full;
        break;
      }
      case Phase::kWrite: {
        while (c.out_pos < c.out.size()) {
          int len = static_cast<int>(std::min<size_t>(c.out.size() - c.out_pos, INT_MAX));
          int n = SSL_write(c.ssl, c.out.data() + c.out_pos, len);
          if (n <= 0) return WantFromSsl(c, SSL_get_error(c.ssl, n));
          c.out_pos += static_cast<size_t>(n);
        }
        c.out.clear();
        c.out_pos = 0;
        if (c.close_after_write) {
          if (!c.linger) return false;
          SSL_shutdown(c.ssl);
          ERR_clear_error();
          ::shutdown(c.fd, SHUT_WR);
          c.phase = Phase::kLinger;
          c.deadline = now_ + kLingerTime;
          Want(c, EPOLLIN);
          break;
        }
        c.phase = c.after_write;
        if (c.phase == Phase::kHead)
          c.deadline = now_ + (c.Unconsumed() ? limits_.request_read_timeout
                                              : std::chrono::milliseconds(limits_.keep_alive_timeout));
        Want(c, EPOLLIN);
        break;
      }
      case Phase::kLinger: {
        char buf[16384];
        for (;;) {
          ssize_t n = ::recv(c.fd, buf, sizeof(buf), 0);
          if (n > 0) {
            c.discarded += static_cast<size_t>(n);
            if (c.discarded > kLingerBytes) return false;
            continue;
          }
          if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return Want(c, EPOLLIN);
          if (n < 0 && errno == EINTR) continue;
          return false;
        }
      }
    }
  }
}

// Reads what the current phase may still take. *full: the read filled what it
// asked for, so more may be waiting.
ReadResult EventLoop::Read(Connection& c, bool* full) {
  if (c.in_pos == c.in.size()) {
    c.in.clear();
    c.in_pos = 0;
  } else if (c.in_pos > c.in.size() / 2) {
    c.in.erase(0, c.in_pos);
    c.in_pos = 0;
  }
  size_t want = kReadChunk;
  if (c.phase == Phase::kBody && c.body_length > c.Unconsumed())
    want = std::clamp<size_t>(c.body_length - c.Unconsumed(), kReadChunk, kBodyChunk);
  size_t old = c.in.size();
  c.in.resize(old + want);
  int n = SSL_read(c.ssl, c.in.data() + old, static_cast<int>(want));
  c.in.resize(old + static_cast<size_t>(std::max(n, 0)));
  if (n > 0) {
    *full = static_cast<size_t>(n) == want;
    if (c.events != EPOLLIN) Want(c, EPOLLIN);
    return ReadResult::kGot;
  }
  return WantFromSsl(c, SSL_get_error(c.ssl, n)) ? ReadResult::kWait : ReadResult::kOver;
}

Progress EventLoop::Parse(Connection& c) {
  if (c.phase == Phase::kHead) return ParseHeadOf(c);
  if (c.Unconsumed() < c.body_length) return Progress::kNeedBytes;
  c.req.body.assign(c.in, c.in_pos, c.body_length);
  c.in_pos += c.body_length;
  httplib::Response res;
  try {
    server_.handlers_.serve(c.req, res);
  } catch (...) {
    res = httplib::Response();
    res.status = 500;
    res.set_content("internal error\n", kText);
  }
  Respond(c, res, false);
  return Progress::kMoved;
}

Progress EventLoop::ParseHeadOf(Connection& c) {
  std::string_view buffered(c.in.data() + c.in_pos, c.Unconsumed());
  size_t end = FindHeadEnd(buffered, &c.scanned);
  if (end == 0 && buffered.size() < limits_.max_header_bytes) return Progress::kNeedBytes;
  if (end == 0 || end > limits_.max_header_bytes) {
    c.req = httplib::Request();
    Refuse(c, 431, "request line and headers are over the limit of " +
                       std::to_string(limits_.max_header_bytes) + " bytes");
    return Progress::kMoved;
  }
  c.req = httplib::Request();
  std::string why;
  int status = ParseHead(buffered.substr(0, end), &c.req, &why);
  c.in_pos += end;
  c.scanned = 0;
  if (status) {
    Refuse(c, status, why);
    return Progress::kMoved;
  }
  c.req.ssl = c.ssl;
  httplib::Response res;
  bool admitted = false;
  try {
    admitted = server_.handlers_.admit(c.req, res);
  } catch (...) {
    res = httplib::Response();
    res.status = 500;
    res.set_content("internal error\n", kText);
  }
  if (!admitted) {
    Respond(c, res, true);
    return Progress::kMoved;
  }
  // The handlers check the framing headers; this is what the transport relies on.
  uint64_t length = 0;
  if (c.req.has_header("Transfer-Encoding")) {
    Refuse(c, 411, "Transfer-Encoding is not accepted: send the body with a Content-Length");
    return Progress::kMoved;
  }
  size_t lengths = c.req.get_header_value_count("Content-Length");
  if (lengths > 1 || (lengths == 1 && !ParseContentLength(c.req.get_header_value("Content-Length"),
                                                          &length))) {
    Refuse(c, 400, "Content-Length is not one number");
    return Progress::kMoved;
  }
  if (length > limits_.max_body_bytes) {
    Refuse(c, 413, "request body of " + std::to_string(length) + " bytes is over the limit of " +
                       std::to_string(limits_.max_body_bytes) + " bytes");
    return Progress::kMoved;
  }
  c.body_length = length;
  c.phase = Phase::kBody;
  if (length > c.Unconsumed() && c.req.get_header_value("Expect") == "100-continue") {
    c.out.append("HTTP/1.1 100 Continue\r\n\r\n");
    c.phase = Phase::kWrite;
    c.after_write = Phase::kBody;
    c.close_after_write = false;
  }
  return Progress::kMoved;
}

void EventLoop::Refuse(Connection& c, int status, const std::string& message) {
  httplib::Response res;
  res.status = status;
  res.set_content(message + "\n", kText);
  Respond(c, res, true);
}

// Queues the answer. `refused`: the request's body, if any, was not read.
void EventLoop::Respond(Connection& c, const httplib::Response& res, bool refused) {
  ++c.served;
  bool unread = refused && MayHaveBody(c.req);
  KeepAlive keep_alive;
  keep_alive.close = unread || WantsClose(c.req) || c.served >= limits_.keep_alive_requests ||
                     server_.stopping();
  keep_alive.timeout_s = static_cast<int>(limits_.keep_alive_timeout.count());
  keep_alive.max = limits_.keep_alive_requests;
  WriteResponse(c.req, res, keep_alive, &c.out);
  std::string().swap(c.req.body);  // a 3 MiB body is not kept while idle
  c.close_after_write = keep_alive.close;
  c.linger = unread;
  c.after_write = Phase::kHead;
  c.phase = Phase::kWrite;
  c.deadline = now_ + limits_.write_timeout;
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

TlsHttpServer::TlsHttpServer(TlsLimits limits, HttpHandlers handlers)
    : limits_(limits), handlers_(std::move(handlers)) {}

TlsHttpServer::~TlsHttpServer() {
  if (listen_fd_ >= 0) ::close(listen_fd_);
}

int TlsHttpServer::Bind(const std::string& host, int port, std::string* error) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  std::string service = std::to_string(port);
  if (int rc = ::getaddrinfo(host.empty() ? nullptr : host.c_str(), service.c_str(), &hints, &found)) {
    *error = "cannot listen on " + host + ":" + service + ": " + ::gai_strerror(rc);
    return -1;
  }
  int err = 0;
  for (addrinfo* a = found; a && listen_fd_ < 0; a = a->ai_next) {
    int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      err = errno;
      continue;
    }
    // Fast restarts only; no SO_REUSEPORT, which would let a second process
    // bind the same port and silently take half the connections.
    int yes = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    // A burst of API server connections must not see SYNs dropped.
    if (::bind(fd, a->ai_addr, a->ai_addrlen) == 0 && ::listen(fd, 1024) == 0) {
      listen_fd_ = fd;
    } else {
      err = errno;
      ::close(fd);
    }
  }
  ::freeaddrinfo(found);
  if (listen_fd_ < 0) {
    *error = "cannot listen on " + host + ":" + service + ": " + std::strerror(err);
    return -1;
  }
  sockaddr_storage addr{};
  socklen_t len = sizeof(addr);
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  if (addr.ss_family == AF_INET6) return ntohs(reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port);
  return ntohs(reinterpret_cast<sockaddr_in*>(&addr)->sin_port);
}

void TlsHttpServer::Serve(size_t threads) {
  {
    std::lock_guard<std::mutex> lock(loops_mu_);
    for (size_t i = 0; i < std::max<size_t>(1, threads); ++i)
      loops_.push_back(std::make_unique<EventLoop>(*this, i == 0));
  }
  std::vector<std::thread> others;
  for (size_t i = 1; i < loops_.size(); ++i) others.emplace_back([this, i] { loops_[i]->Run(); });
  loops_[0]->Run();
  for (std::thread& t : others) t.join();
  std::lock_guard<std::mutex> lock(loops_mu_);
  loops_.clear();
  if (listen_fd_ >= 0) ::close(listen_fd_);
  listen_fd_ = -1;
}

void TlsHttpServer::Stop() {
  stopping_ = true;
  std::lock_guard<std::mutex> lock(loops_mu_);
  // New connections are refused from now on, not left in the backlog.
  if (listen_fd_ >= 0) ::shutdown(listen_fd_, SHUT_RDWR);
  for (const auto& loop : loops_) loop->Wake();
}

void TlsHttpServer::SetContext(SslCtxPtr ctx) {
  std::lock_guard<std::mutex> lock(ctx_mutex_);
  ctx_ = std::move(ctx);
}

SslCtxPtr TlsHttpServer::Context() const {
  std::lock_guard<std::mutex> lock(ctx_mutex_);
  return ctx_;
}

}  // namespace gpulint
