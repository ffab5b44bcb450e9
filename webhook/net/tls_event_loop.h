// One thread's connections (the connection layer), all served through one
// epoll instance: accepting (the first loop owns the listener and deals new
// connections to the least loaded loop, where a connection stays for its
// life), deadlines, fairness between connections, and the graceful stop.
// What each connection does lives in tls_connection.h.
#ifndef GPULINT_WEBHOOK_NET_TLS_EVENT_LOOP_H_
#define GPULINT_WEBHOOK_NET_TLS_EVENT_LOOP_H_

#include <atomic>
#include <chrono>
#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

#include "webhook/net/byte_budget.h"
#include "webhook/net/listener.h"
#include "webhook/net/loop_waker.h"
#include "webhook/net/tls_connection.h"
#include "webhook/net/tls_context.h"

namespace gpulint {

class TlsEventLoop;

// What an event loop needs of the server that runs it (TlsServer), and no more.
class TlsLoopHost {
 public:
  virtual bool stopping() const = 0;
  // The TLS context for a connection accepted now; null refuses it.
  virtual SslCtxPtr Context() const = 0;
  // The loop with the fewest connections; `self` when none has fewer.
  virtual TlsEventLoop* LeastLoadedLoop(TlsEventLoop* self) const = 0;
  virtual void CountConnection() = 0;
  virtual void CountHandshakeFailure() = 0;
  // Whether one more connection may open (--max-connections); false refuses
  // it, and the loop closes it at once.
  virtual bool AdmitConnection() = 0;
  virtual void ConnectionClosed() = 0;
  // A connection about to close because its deadline passed (idle and
  // lingering ones are not told): its state, peer and bytes read say which.
  virtual void DeadlinePassed(const TlsConnection& connection) = 0;

 protected:
  ~TlsLoopHost() = default;
};

// What a loop is given to work with; each must outlive it.
struct TlsLoopSetup {
  const Listener* listener = nullptr;  // for the loop that accepts; null for the others
  const TlsTimeouts* timeouts = nullptr;
  const ConsumerFactory* make_consumer = nullptr;
  ByteBudget* buffers = nullptr;  // what connections read, server-wide
};

class TlsEventLoop {
 public:
  TlsEventLoop(TlsLoopHost& host, TlsLoopSetup setup);
  ~TlsEventLoop();
  TlsEventLoop(const TlsEventLoop&) = delete;
  TlsEventLoop& operator=(const TlsEventLoop&) = delete;

  // False when the loop's epoll instance or wake-up descriptor could not be made.
  bool ok() const { return ok_; }
  // Serves until the server stops and this loop's last connection is done.
  void Run();
  // Another thread hands this loop a connection it accepted.
  void Adopt(int fd);
  void Wake();
  size_t load() const { return load_.load(std::memory_order_relaxed); }

 private:
  using Clock = std::chrono::steady_clock;

  void AcceptReady();
  void Add(int fd);
  void TakeAdopted();
  void TakeWoken();
  void Drive(TlsConnection* c);
  void Close(TlsConnection* c);
  void Tick();
  void BeginStop();
  void Listen(bool on);

  TlsLoopHost& host_;
  const TlsLoopSetup setup_;
  const bool accepts_;
  int epoll_fd_ = -1;
  int wake_fd_ = -1;
  bool ok_ = false;
  bool listening_ = false;
  bool stop_seen_ = false;
  Clock::time_point now_;
  Clock::time_point accept_resume_{};
  WakeQueue wakes_;  // connections woken from other threads (their answers are ready)
  TlsConnection::Loop shared_;  // what this loop's connections share
  std::vector<std::unique_ptr<TlsConnection>> connections_;
  std::atomic<size_t> load_{0};
  std::mutex adopt_mu_;
  std::vector<int> adopted_;  // guarded by adopt_mu_
  // Connections that had more buffered than one turn may answer: driven
  // again before the loop waits (epoll cannot see bytes OpenSSL holds).
  std::vector<TlsConnection*> again_;
  char scratch_[16 * 1024];  // one TLS record's plaintext
  // epoll tags that are not connections.
  char listen_tag_ = 0;
  char wake_tag_ = 0;
};

}  // namespace gpulint

#endif  // GPULINT_WEBHOOK_NET_TLS_EVENT_LOOP_H_
