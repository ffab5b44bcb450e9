// The webhook's HTTPS server, connection layer: the listener and a few event
// loops (tls_event_loop.h), each serving many connections through epoll with
// non-blocking TLS (tls_connection.h). What the bytes mean is the consumer's
// business (the HTTP/1.1 layer, http1_connection.h). A connection holds a
// thread only while its consumer works, never while it waits for bytes, so:
//  - idle keep-alive connections and clients that stall in their handshake,
//    headers or body (slowloris) cost a descriptor and a few KiB, not a thread;
//  - under load a thread goes from one ready connection to the next without
//    sleeping, where one thread per connection slept and woke for each request
//    (about one context switch per review, the largest single cost measured in
//    bench/RESULTS.md).
// Each connection takes the TLS context current when it is accepted, so a new
// certificate serves new connections while old ones keep theirs.
#ifndef GPULINT_WEBHOOK_NET_TLS_SERVER_H_
#define GPULINT_WEBHOOK_NET_TLS_SERVER_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "webhook/net/listener.h"
#include "webhook/net/tls_connection.h"
#include "webhook/net/tls_context.h"
#include "webhook/net/tls_event_loop.h"

namespace gpulint {

// What the server refuses or cuts, told to whoever logs and counts it (the
// webhook's server). Called on the loops' threads; must not block.
class NetObserver {
 public:
  // A connection accepted while `limit` were open, and closed at once.
  virtual void ConnectionRefused(size_t limit) = 0;
  // A connection about to close because its deadline passed: a slow client
  // (its state, peer and the bytes it sent say which), or an answer not
  // ready in time (kPending).
  virtual void DeadlinePassed(const TlsConnection& connection) = 0;

 protected:
  ~NetObserver() = default;
};

struct TlsServerLimits {
  TlsTimeouts timeouts;
  size_t max_connections = 0;     // open at once; 0: no limit
  ByteBudget* buffers = nullptr;  // what connections read, server-wide; null: no limit
};

// The loops see it only as their TlsLoopHost (tls_event_loop.h).
class TlsServer : private TlsLoopHost {
 public:
  TlsServer(TlsServerLimits limits, ConsumerFactory make_consumer, NetObserver* observer);
  ~TlsServer();
  TlsServer(const TlsServer&) = delete;
  TlsServer& operator=(const TlsServer&) = delete;

  // Listens on host:port (port 0: any free one) and sets up `threads` event
  // loops. Returns the port, or -1 with *error. Connections queue in the
  // backlog until Serve runs.
  int Bind(const std::string& host, int port, size_t threads, std::string* error);

  // Serves on the loops (this thread is one of them) until Stop, then returns
  // once every request under way is answered.
  void Serve();

  // Closes the listener; idle connections close at once, requests under way
  // are read, answered and their connections closed. Safe from any thread,
  // before or during Serve.
  void Stop();
  bool stopping() const override { return stopping_.load(std::memory_order_relaxed); }

  // Connections accepted from now on use `ctx`. Null refuses them.
  void SetContext(SslCtxPtr ctx);
  SslCtxPtr Context() const override;

  uint64_t handshake_failures() const { return handshake_failures_.load(); }
  uint64_t connections() const { return connections_.load(); }
  size_t open_connections() const { return open_.load(std::memory_order_relaxed); }

 private:
  // TlsLoopHost, for the loops.
  TlsEventLoop* LeastLoadedLoop(TlsEventLoop* self) const override;
  void CountConnection() override { connections_++; }
  void CountHandshakeFailure() override { handshake_failures_++; }
  bool AdmitConnection() override;
  void ConnectionClosed() override { open_.fetch_sub(1, std::memory_order_relaxed); }
  void DeadlinePassed(const TlsConnection& connection) override {
    observer_->DeadlinePassed(connection);
  }

  const TlsServerLimits limits_;
  const ConsumerFactory make_consumer_;
  NetObserver* const observer_;
  Listener listener_;
  std::atomic<bool> stopping_{false};
  std::mutex loops_mu_;  // guards loops_ against Stop from another thread
  std::vector<std::unique_ptr<TlsEventLoop>> loops_;
  mutable std::mutex ctx_mutex_;
  SslCtxPtr ctx_;
  std::atomic<uint64_t> handshake_failures_{0};
  std::atomic<uint64_t> connections_{0};
  std::atomic<size_t> open_{0};
};

}  // namespace gpulint

#endif  // GPULINT_WEBHOOK_NET_TLS_SERVER_H_
