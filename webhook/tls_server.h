// HTTPS on top of cpp-httplib's HTTP parser, with the TLS connection loop
// owned here rather than by httplib::SSLServer, because the webhook needs what
// that class cannot give:
//  - a certificate swapped in for new connections while old ones keep theirs
//    (each connection takes the context current when it is accepted);
//  - a byte budget per request: httplib 0.11.4 buffers a request line or
//    header of any length, so a hostile client could fill memory before a
//    single handler runs;
//  - closing a connection whose body a handler refused without reading it,
//    instead of parsing that body as the next request;
//  - one deadline for reading a whole request, so a client dribbling a byte
//    at a time cannot hold a worker for ever.
// HTTP parsing, routing and keep-alive bookkeeping stay httplib's.
#ifndef GPULINT_WEBHOOK_TLS_SERVER_H_
#define GPULINT_WEBHOOK_TLS_SERVER_H_

#include <httplib.h>
#include <openssl/ssl.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace gpulint {

using SslCtxPtr = std::shared_ptr<SSL_CTX>;

struct TlsFiles {
  std::string cert;       // PEM chain, leaf first
  std::string key;        // PEM private key
  std::string client_ca;  // optional: PEM bundle that signs client certificates
};

// A server context: TLS 1.2 or later, the certificate chain and its key
// (checked to belong together), and, with a client CA, a request for a client
// certificate that must verify when one is sent (whether one is required is
// up to each endpoint: probes come without one). Returns null with *error on
// failure; *not_after gets the leaf certificate's expiry (unix seconds).
SslCtxPtr MakeServerContext(const TlsFiles& files, std::string* error, int64_t* not_after);

// The last OpenSSL errors of this thread as one line (and clears them).
std::string OpenSslErrors();

struct TlsLimits {
  size_t max_header_bytes = 64 * 1024;  // request line + headers
  std::chrono::milliseconds handshake_timeout{10000};
  std::chrono::milliseconds request_read_timeout{10000};  // whole request, from its first byte
  std::chrono::milliseconds write_timeout{10000};         // per write
  // How long a client may keep a worker waiting mid-handshake or mid-request
  // while every worker is busy and another connection waits for one.
  std::chrono::milliseconds stall_under_pressure{250};
};

// httplib's ThreadPool, plus how many accepted connections wait for a
// worker: with one worker per connection, idle keep-alive connections must
// make room when new ones queue up.
class WorkerPool : public httplib::TaskQueue {
 public:
  explicit WorkerPool(size_t workers);
  ~WorkerPool() override;
  void enqueue(std::function<void()> fn) override;
  void shutdown() override;  // runs what is queued, then joins
  // Called by a job holding an idle connection: true when every worker is
  // busy and a queued connection has no other worker making room for it yet.
  // The caller must then end its job promptly.
  bool ShouldYield();

 private:
  void Work();
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
  bool stop_ = false;
  size_t busy_ = 0;      // workers running a job
  size_t yielding_ = 0;  // of those, ending their job to free the worker
  std::vector<std::thread> threads_;
};

class TlsHttpServer : public httplib::Server {
 public:
  explicit TlsHttpServer(TlsLimits limits) : limits_(limits) {}

  // One worker thread per connection being served.
  void SetWorkers(size_t workers);

  // Connections accepted from now on use `ctx`. Null refuses them.
  void SetContext(SslCtxPtr ctx);
  SslCtxPtr Context() const;

  // Called on the thread handling the request (handlers, pre-routing, the
  // 100-continue handler):
  //  - AllowBody: the headers were accepted; let `bytes` of body be read.
  //  - CloseAfterResponse: the body was refused unread; answer, then close.
  static void AllowBody(size_t bytes);
  static void CloseAfterResponse();

  // httplib listens with a backlog of 5; a burst of API server connections
  // would see SYNs dropped and retried a second later. Call after binding.
  void RaiseListenBacklog(int backlog);

  uint64_t handshake_failures() const { return handshake_failures_.load(); }
  uint64_t connections() const { return connections_.load(); }

 private:
  bool process_and_close_socket(socket_t sock) override;
  bool WaitForRequest(int sock, SSL* ssl) const;

  TlsLimits limits_;
  std::atomic<WorkerPool*> pool_{nullptr};  // owned by httplib's listen loop
  mutable std::mutex ctx_mutex_;
  SslCtxPtr ctx_;
  std::atomic<uint64_t> handshake_failures_{0};
  std::atomic<uint64_t> connections_{0};
};

}  // namespace gpulint

#endif  // GPULINT_WEBHOOK_TLS_SERVER_H_
