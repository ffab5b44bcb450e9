// The event loop behind TlsHttpServer (tls_server.h); private to it.
// event_loop.cc moves connections through TLS and bytes; event_loop_request.cc
// turns the bytes of a request into a call of the handlers and an answer.
#ifndef GPULINT_WEBHOOK_EVENT_LOOP_H_
#define GPULINT_WEBHOOK_EVENT_LOOP_H_

#include <httplib.h>
#include <openssl/ssl.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "webhook/tls_server.h"

namespace gpulint {

// One thread's connections, all served through one epoll instance. The first
// loop also owns the listener and deals new connections to the least loaded
// loop; a connection then stays on its loop for its life.
class EventLoop {
 public:
  EventLoop(TlsHttpServer& server, bool accepts);
  ~EventLoop();
  // False when the loop's epoll instance or wake-up descriptor could not be made.
  bool ok() const { return ok_; }
  void Run();
  // Another thread hands this loop a connection it accepted.
  void Adopt(int fd);
  void Wake();
  size_t load() const { return load_.load(std::memory_order_relaxed); }

 private:
  using Clock = std::chrono::steady_clock;
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
    int turn = 0;        // requests answered in this turn
    bool again = false;  // in again_
    Clock::time_point deadline;
    httplib::Request req;  // from its head to its answer

    size_t Unconsumed() const { return in.size() - in_pos; }
  };

  enum class Progress { kMoved, kNeedBytes, kFailed };
  enum class ReadResult { kGot, kWait, kOver };
  enum class Next { kGoOn, kWait, kClose };  // after a phase's work

  void AcceptReady();
  void Add(int fd);
  void TakeAdopted();
  void Drive(Connection* c);
  bool Step(Connection& c);
  Next Handshake(Connection& c);
  Next Receive(Connection& c, bool* read_all);
  Next Send(Connection& c);
  Next Discard(Connection& c);
  ReadResult Read(Connection& c, bool* full);
  Progress Parse(Connection& c);
  Progress ParseHeadOf(Connection& c);
  void AwaitBody(Connection& c);
  void Respond(Connection& c, const httplib::Response& res, bool unread);
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
  bool ok_ = false;
  bool listening_ = false;
  bool stop_seen_ = false;
  Clock::time_point now_;
  Clock::time_point accept_resume_{};
  std::vector<std::unique_ptr<Connection>> connections_;
  std::atomic<size_t> load_{0};
  std::mutex adopt_mu_;
  std::vector<int> adopted_;  // guarded by adopt_mu_
  // Connections that had more buffered than one turn may answer: driven
  // again before the loop waits (epoll cannot see bytes OpenSSL holds).
  std::vector<Connection*> again_;
  char scratch_[16 * 1024];  // one TLS record's plaintext
  // epoll tags that are not connections.
  char listen_tag_ = 0;
  char wake_tag_ = 0;
};

}  // namespace gpulint

#endif  // GPULINT_WEBHOOK_EVENT_LOOP_H_
