#include "webhook/net/tls_server.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>

namespace gpulint {

TlsServer::TlsServer(TlsServerLimits limits, ConsumerFactory make_consumer,
                     NetObserver* observer)
    : limits_(limits), make_consumer_(std::move(make_consumer)), observer_(observer) {}

TlsServer::~TlsServer() = default;

int TlsServer::Bind(const std::string& host, int port, size_t threads, std::string* error) {
  int bound = listener_.Bind(host, port, error);
  if (bound < 0) return -1;
  // Made here rather than in Serve's thread, so that running out of
  // descriptors is an error now, not a loop that cannot wait.
  TlsLoopHost& loop_host = *this;
  std::lock_guard<std::mutex> lock(loops_mu_);
  for (size_t i = 0; i < std::max<size_t>(1, threads); ++i) {
    // The first loop accepts, and deals connections to the others.
    TlsLoopSetup setup{i == 0 ? &listener_ : nullptr, &limits_.timeouts, &make_consumer_,
                       limits_.buffers};
    loops_.push_back(std::make_unique<TlsEventLoop>(loop_host, setup));
    if (!loops_.back()->ok()) {
      *error = "cannot set up an event loop: " + std::string(std::strerror(errno));
      loops_.clear();
      listener_.Close();
      return -1;
    }
  }
  return bound;
}

void TlsServer::Serve() {
  if (loops_.empty()) return;  // Bind failed or was not called
  std::vector<std::thread> others;
  for (size_t i = 1; i < loops_.size(); ++i) others.emplace_back([this, i] { loops_[i]->Run(); });
  loops_[0]->Run();
  for (std::thread& t : others) t.join();
  std::lock_guard<std::mutex> lock(loops_mu_);
  loops_.clear();
  listener_.Close();
}

void TlsServer::Stop() {
  stopping_ = true;
  std::lock_guard<std::mutex> lock(loops_mu_);
  // New connections are refused from now on, not left in the backlog.
  listener_.Shutdown();
  for (const auto& loop : loops_) loop->Wake();
}

void TlsServer::SetContext(SslCtxPtr ctx) {
  std::lock_guard<std::mutex> lock(ctx_mutex_);
  ctx_ = std::move(ctx);
}

bool TlsServer::AdmitConnection() {
  size_t open = open_.fetch_add(1, std::memory_order_relaxed);
  if (limits_.max_connections == 0 || open < limits_.max_connections) return true;
  open_.fetch_sub(1, std::memory_order_relaxed);
  observer_->ConnectionRefused(limits_.max_connections);
  return false;
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
