#include "webhook/net/tls_server.h"

#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>

#include "webhook/net/tls_event_loop.h"

namespace gpulint {

TlsServer::TlsServer(TlsTimeouts timeouts, ConsumerFactory make_consumer)
    : timeouts_(timeouts), make_consumer_(std::move(make_consumer)) {}

TlsServer::~TlsServer() {
  if (listen_fd_ >= 0) ::close(listen_fd_);
}

int TlsServer::Bind(const std::string& host, int port, size_t threads, std::string* error) {
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
  // Made here rather than in Serve's thread, so that running out of
  // descriptors is an error now, not a loop that cannot wait.
  {
    std::lock_guard<std::mutex> lock(loops_mu_);
    for (size_t i = 0; i < std::max<size_t>(1, threads); ++i) {
      loops_.push_back(std::make_unique<TlsEventLoop>(*this, i == 0));
      if (!loops_.back()->ok()) {
        *error = "cannot set up an event loop: " + std::string(std::strerror(errno));
        loops_.clear();
        ::close(listen_fd_);
        listen_fd_ = -1;
        return -1;
      }
    }
  }
  sockaddr_storage addr{};
  socklen_t len = sizeof(addr);
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  if (addr.ss_family == AF_INET6) return ntohs(reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port);
  return ntohs(reinterpret_cast<sockaddr_in*>(&addr)->sin_port);
}

void TlsServer::Serve() {
  if (loops_.empty()) return;  // Bind failed or was not called
  std::vector<std::thread> others;
  for (size_t i = 1; i < loops_.size(); ++i) others.emplace_back([this, i] { loops_[i]->Run(); });
  loops_[0]->Run();
  for (std::thread& t : others) t.join();
  std::lock_guard<std::mutex> lock(loops_mu_);
  loops_.clear();
  if (listen_fd_ >= 0) ::close(listen_fd_);
  listen_fd_ = -1;
}

void TlsServer::Stop() {
  stopping_ = true;
  std::lock_guard<std::mutex> lock(loops_mu_);
  // New connections are refused from now on, not left in the backlog.
  if (listen_fd_ >= 0) ::shutdown(listen_fd_, SHUT_RDWR);
  for (const auto& loop : loops_) loop->Wake();
}

void TlsServer::SetContext(SslCtxPtr ctx) {
  std::lock_guard<std::mutex> lock(ctx_mutex_);
  ctx_ = std::move(ctx);
}

TlsEventLoop* TlsServer::LeastLoadedLoop(TlsEventLoop* self) const {
  TlsEventLoop* least = self;
  for (const auto& loop : loops_)
    if (loop->load() < least->load()) least = loop.get();
  return least;
}

SslCtxPtr TlsServer::Context() const {
  std::lock_guard<std::mutex> lock(ctx_mutex_);
  return ctx_;
}

}  // namespace gpulint
