// The webhook's HTTPS server: a few event-loop threads, each serving many
// connections through epoll, with non-blocking TLS and HTTP/1.1 framing
// (http_message.h). A connection holds a thread only while one of its requests
// is being handled, never while it waits for bytes, so:
//  - idle keep-alive connections and clients that stall in their handshake,
//    headers or body (slowloris) cost a descriptor and a few KiB, not a thread;
//  - under load a thread goes from one ready connection to the next without
//    sleeping, where one thread per connection slept and woke for each request
//    (about one context switch per review, the largest single cost measured in
//    bench/RESULTS.md).
// Requests are read whole before a handler runs: the head (at most
// max_header_bytes), then, once `admit` accepts it, a Content-Length body of
// at most max_body_bytes. A refused request's body is never read; its
// connection closes after the answer, with a lingering close so the client
// reads the answer rather than a reset.
// Each connection takes the TLS context current when it is accepted, so a new
// certificate serves new connections while old ones keep theirs.
#ifndef GPULINT_WEBHOOK_TLS_SERVER_H_
#define GPULINT_WEBHOOK_TLS_SERVER_H_

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "webhook/tls_context.h"

namespace gpulint {

struct TlsLimits {
  size_t max_header_bytes = 64 * 1024;  // request line + headers
  size_t max_body_bytes = 3u << 20;
  std::chrono::milliseconds handshake_timeout{10000};
  std::chrono::milliseconds request_read_timeout{10000};  // whole request, from its first byte
  std::chrono::milliseconds write_timeout{10000};         // a whole response
  std::chrono::seconds keep_alive_timeout{30};            // idle between requests
  size_t keep_alive_requests = 1000;                      // then the connection closes
};

struct HttpHandlers {
  // The head is in and no body byte has been read: false, with `res` filled,
  // refuses the request. Runs on a loop thread; must not block.
  std::function<bool(const httplib::Request& req, httplib::Response& res)> admit;
  // The whole request is in. Runs on a loop thread; must not block.
  std::function<void(const httplib::Request& req, httplib::Response& res)> serve;
};

class EventLoop;

class TlsHttpServer {
 public:
  TlsHttpServer(TlsLimits limits, HttpHandlers handlers);
  ~TlsHttpServer();
  TlsHttpServer(const TlsHttpServer&) = delete;
  TlsHttpServer& operator=(const TlsHttpServer&) = delete;

  // Listens on host:port (port 0: any free one) and sets up `threads` event
  // loops. Returns the port, or -1 with *error. Connections queue in the
  // backlog until Serve runs.
  int Bind(const std::string& host, int port, size_t threads, std::string* error);

  // Serves on the loops (this thread is one of them) until Stop, then returns
  // once every request under way is answered.
  void Serve();

  // Closes the listener; idle connections close at once, requests under way
  // are read, answered (with Connection: close) and their connections closed.
  // Safe from any thread, before or during Serve.
  void Stop();
  bool stopping() const { return stopping_.load(std::memory_order_relaxed); }

  // Connections accepted from now on use `ctx`. Null refuses them.
  void SetContext(SslCtxPtr ctx);
  SslCtxPtr Context() const;

  uint64_t handshake_failures() const { return handshake_failures_.load(); }
  uint64_t connections() const { return connections_.load(); }

 private:
  friend class EventLoop;

  const TlsLimits limits_;
  const HttpHandlers handlers_;
  int listen_fd_ = -1;
  std::atomic<bool> stopping_{false};
  std::mutex loops_mu_;  // guards loops_ against Stop from another thread
  std::vector<std::unique_ptr<EventLoop>> loops_;
  mutable std::mutex ctx_mutex_;
  SslCtxPtr ctx_;
  std::atomic<uint64_t> handshake_failures_{0};
  std::atomic<uint64_t> connections_{0};
};

}  // namespace gpulint

#endif  // GPULINT_WEBHOOK_TLS_SERVER_H_
