#include "webhook/tls_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/x509.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <ctime>

namespace gpulint {
namespace {

using Clock = std::chrono::steady_clock;

// An idle connection looks up this often whether the server is stopping or
// its worker is wanted by a queued connection.
constexpr int kIdleSliceMs = 100;

// Waits until `sock` is ready for `events` or `deadline` passes. Hang-ups and
// errors count as ready: the call that follows reports them.
bool WaitFd(int sock, short events, Clock::time_point deadline) {
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return false;
    pollfd p{sock, events, 0};
    int n = ::poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count(), INT_MAX)));
    if (n > 0) return true;
    if (n < 0 && errno != EINTR) return false;
  }
}

// Like WaitFd, for bytes the client owes us (its handshake, its request).
// Once the client has been silent for `stall` while every worker is busy and
// a connection waits for one, it gives up: a client that stalls mid-request
// (slowloris, a slow body, a connection that never says hello) must not hold
// a worker that a ready client is waiting for.
bool WaitClient(int sock, short events, Clock::time_point deadline, WorkerPool* pool,
                std::chrono::milliseconds stall, bool* yielded) {
  if (*yielded) return false;  // the worker is promised to the waiting connection
  if (!pool) return WaitFd(sock, events, deadline);
  auto patience = Clock::now() + stall;
  for (;;) {
    auto slice =
        std::min<Clock::time_point>(deadline, Clock::now() + std::chrono::milliseconds(50));
    if (WaitFd(sock, events, slice)) return true;
    auto now = Clock::now();
    if (now >= deadline) return false;
    if (now >= patience && pool->ShouldYield()) {
      *yielded = true;
      return false;
    }
  }
}

struct Address {
  bool known = false;
  std::string ip;
  int port = 0;
};

Address AddressOf(int sock, bool peer) {
  Address a;
  a.known = true;
  sockaddr_storage addr{};
  socklen_t len = sizeof(addr);
  int rc = peer ? ::getpeername(sock, reinterpret_cast<sockaddr*>(&addr), &len)
                : ::getsockname(sock, reinterpret_cast<sockaddr*>(&addr), &len);
  if (rc != 0) return a;
  char host[NI_MAXHOST], serv[NI_MAXSERV];
  if (::getnameinfo(reinterpret_cast<sockaddr*>(&addr), len, host, sizeof(host), serv,
                    sizeof(serv), NI_NUMERICHOST | NI_NUMERICSERV) != 0)
    return a;
  a.ip = host;
  a.port = std::atoi(serv);
  return a;
}

// One TLS connection as httplib's parser sees it. Reads stop at the request's
// byte budget and its deadline; the socket is non-blocking so that neither a
// silent nor a dribbling client can keep a read waiting past them.
//
// Per request, the system calls are one poll, one read (the context reads
// ahead: a record's header and body in one go) and one write: httplib writes
// the headers and the body apart, which would be two TLS records and two
// sends, so writes are gathered until the response is done (Flush) or the
// stream is read again (a 100 Continue must go out before the body comes in).
// The addresses httplib asks for on every request are looked up once.
// OpenSSL's error queue is cleared after a call that failed, not around every
// call: it is empty whenever a call succeeded, and clearing it costs.
class TlsStream : public httplib::Stream {
 public:
  TlsStream(int sock, SSL* ssl, const TlsLimits& limits, WorkerPool* pool)
      : sock_(sock), ssl_(ssl), limits_(limits), pool_(pool) {}

  void BeginRequest(size_t budget) {
    budget_ = budget;
    broken_ = false;
    read_deadline_ = Clock::now() + limits_.request_read_timeout;
  }
  void AllowMore(size_t bytes) { budget_ += bytes; }
  // A read failed (timeout, error, or more bytes than the request may hold):
  // what follows on this connection cannot be framed, so it must close.
  bool broken() const { return broken_; }
  // The read gave its worker up to a waiting connection (see WaitClient).
  bool yielded() const { return yielded_; }

  // Sends what write() gathered. False when it could not: the connection is done.
  bool Flush() const {
    if (write_failed_) return false;
    size_t sent = 0;
    Clock::time_point deadline{};  // set when the first write must wait
    while (sent < out_.size()) {
      int len = static_cast<int>(std::min<size_t>(out_.size() - sent, INT_MAX));
      int n = SSL_write(ssl_, out_.data() + sent, len);
      if (n > 0) {
        sent += static_cast<size_t>(n);
        continue;
      }
      int err = SSL_get_error(ssl_, n);
      ERR_clear_error();
      if (deadline == Clock::time_point{}) deadline = Clock::now() + limits_.write_timeout;
      if (err == SSL_ERROR_WANT_WRITE && WaitFd(sock_, POLLOUT, deadline)) continue;
      if (err == SSL_ERROR_WANT_READ && WaitFd(sock_, POLLIN, deadline)) continue;
      write_failed_ = true;
      out_.clear();
      return false;
    }
    out_.clear();
    return true;
  }

  bool is_readable() const override {
    if (!Flush()) return false;
    return Buffered() || SSL_has_pending(ssl_) ||
           WaitClient(sock_, POLLIN, read_deadline_, pool_, limits_.stall_under_pressure,
                      &yielded_);
  }
  bool is_writable() const override {
    return WaitFd(sock_, POLLOUT, Clock::now() + limits_.write_timeout);
  }

  // httplib reads the request line and headers a byte at a time: they are
  // served from a buffer, not one SSL_read each. The budget counts what is
  // handed to httplib, so bytes read ahead of it are not charged yet.
  ssize_t read(char* ptr, size_t size) override {
    if (!Flush()) return -1;
    if (budget_ == 0) {
      broken_ = true;
      return -1;
    }
    size_t want = std::min(size, budget_);
    if (in_pos_ == in_len_) {
      if (want >= sizeof(in_)) {  // a body: straight into httplib's buffer
        ssize_t n = SslRead(ptr, want);
        if (n > 0) budget_ -= static_cast<size_t>(n);
        return n;
      }
      ssize_t n = SslRead(in_, sizeof(in_));
      if (n <= 0) return n;
      in_pos_ = 0;
      in_len_ = static_cast<size_t>(n);
    }
    size_t n = std::min(want, in_len_ - in_pos_);
    std::memcpy(ptr, in_ + in_pos_, n);
    in_pos_ += n;
    budget_ -= n;
    return static_cast<ssize_t>(n);
  }
  // Bytes of the connection read and not yet handed to httplib.
  bool Buffered() const { return in_pos_ < in_len_; }

  // Gathered; sent once the response is done, or earlier when it grows large.
  ssize_t write(const char* ptr, size_t size) override {
    if (write_failed_) return -1;
    out_.append(ptr, size);
    if (out_.size() >= kMaxGathered && !Flush()) return -1;
    return static_cast<ssize_t>(size);
  }

  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    if (!remote_.known) remote_ = AddressOf(sock_, true);
    ip = remote_.ip;
    port = remote_.port;
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    if (!local_.known) local_ = AddressOf(sock_, false);
    ip = local_.ip;
    port = local_.port;
  }
  socket_t socket() const override { return sock_; }

 private:
  // At most `size` bytes; 0 at the end of the stream; -1 (broken) on error or
  // at the deadline.
  ssize_t SslRead(char* ptr, size_t size) {
    int want = static_cast<int>(std::min<size_t>(size, INT_MAX));
    for (;;) {
      int n = SSL_read(ssl_, ptr, want);
      if (n > 0) return n;
      int err = SSL_get_error(ssl_, n);
      ERR_clear_error();
      if (err == SSL_ERROR_ZERO_RETURN) return 0;
      if (err == SSL_ERROR_WANT_READ && WaitClient(sock_, POLLIN, read_deadline_, pool_,
                                                   limits_.stall_under_pressure, &yielded_))
        continue;
      if (err == SSL_ERROR_WANT_WRITE && WaitFd(sock_, POLLOUT, read_deadline_)) continue;
      broken_ = true;
      return -1;
    }
  }

  static constexpr size_t kMaxGathered = 64 * 1024;

  int sock_;
  SSL* ssl_;
  const TlsLimits& limits_;
  WorkerPool* pool_;
  size_t budget_ = 0;
  bool broken_ = false;
  mutable bool yielded_ = false;
  mutable bool write_failed_ = false;
  Clock::time_point read_deadline_;
  mutable std::string out_;  // written, not yet sent
  char in_[4096];            // read, not yet handed to httplib: [in_pos_, in_len_)
  size_t in_pos_ = 0;
  size_t in_len_ = 0;
  mutable Address remote_;
  mutable Address local_;
};

struct ConnectionState {
  TlsStream* stream = nullptr;
  bool close = false;
};
thread_local ConnectionState* t_connection = nullptr;

bool Handshake(int sock, SSL* ssl, Clock::time_point deadline, WorkerPool* pool,
               std::chrono::milliseconds stall) {
  bool yielded = false;
  for (;;) {
    ERR_clear_error();
    int rc = SSL_accept(ssl);
    if (rc == 1) return true;
    int err = SSL_get_error(ssl, rc);
    if (err == SSL_ERROR_WANT_READ && WaitClient(sock, POLLIN, deadline, pool, stall, &yielded))
      continue;
    if (err == SSL_ERROR_WANT_WRITE && WaitFd(sock, POLLOUT, deadline)) continue;
    ERR_clear_error();
    return false;
  }
}

// Closing a socket with unread input makes the kernel send a reset, which can
// reach the client before it has read the refusal we just wrote. So: stop
// sending, and discard what still arrives for a moment (bounded in bytes and
// time, so a flood cannot hold the worker).
void LingeringClose(int sock) {
  ::shutdown(sock, SHUT_WR);
  auto deadline = Clock::now() + std::chrono::seconds(1);
  char buf[16384];
  size_t discarded = 0;
  while (discarded < (1u << 20) && WaitFd(sock, POLLIN, deadline)) {
    ssize_t n = ::recv(sock, buf, sizeof(buf), 0);
    if (n <= 0) break;
    discarded += static_cast<size_t>(n);
  }
}

int64_t NotAfter(SSL_CTX* ctx) {
  X509* leaf = SSL_CTX_get0_certificate(ctx);
  std::tm tm{};
  if (!leaf || ASN1_TIME_to_tm(X509_get0_notAfter(leaf), &tm) != 1) return 0;
  return static_cast<int64_t>(timegm(&tm));
}

// ECDHE with AEAD only for TLS 1.2 (what kube-apiserver offers); TLS 1.3 keeps
// OpenSSL's suites, all of which are fine.
constexpr const char* kTls12Ciphers =
    "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:"
    "ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:"
    "ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305";

}  // namespace

std::string OpenSslErrors() {
  std::string out;
  while (unsigned long e = ERR_get_error()) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof(buf));
    if (!out.empty()) out += "; ";
    out += buf;
  }
  return out.empty() ? "unknown OpenSSL error" : out;
}

SslCtxPtr MakeServerContext(const TlsFiles& files, std::string* error, int64_t* not_after) {
  ERR_clear_error();
  SslCtxPtr ctx(SSL_CTX_new(TLS_server_method()), SSL_CTX_free);
  SSL_CTX* c = ctx.get();
  if (!c) {
    *error = "cannot create a TLS context: " + OpenSslErrors();
    return nullptr;
  }
  SSL_CTX_set_min_proto_version(c, TLS1_2_VERSION);
  SSL_CTX_set_options(c, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION |
                             SSL_OP_CIPHER_SERVER_PREFERENCE);
  SSL_CTX_set_mode(c, SSL_MODE_RELEASE_BUFFERS);
  // One read() per record rather than one for its header and one for the rest.
  SSL_CTX_set_read_ahead(c, 1);
  SSL_CTX_set_cipher_list(c, kTls12Ciphers);
  static const unsigned char kSessionContext[] = "gpulint-webhook";
  SSL_CTX_set_session_id_context(c, kSessionContext, sizeof(kSessionContext) - 1);
  // The key first: OpenSSL refuses a key that does not match a certificate
  // already loaded with a less helpful message than the check below.
  if (SSL_CTX_use_PrivateKey_file(c, files.key.c_str(), SSL_FILETYPE_PEM) != 1) {
    *error = files.key + ": cannot load the private key: " + OpenSslErrors();
    return nullptr;
  }
  if (SSL_CTX_use_certificate_chain_file(c, files.cert.c_str()) != 1) {
    *error = files.cert + ": cannot load the certificate: " + OpenSslErrors();
    return nullptr;
  }
  if (SSL_CTX_check_private_key(c) != 1) {
    ERR_clear_error();
    *error = files.key + ": the private key does not match the certificate in " + files.cert;
    return nullptr;
  }
  if (!files.client_ca.empty()) {
    STACK_OF(X509_NAME)* names = SSL_load_client_CA_file(files.client_ca.c_str());
    if (!names || SSL_CTX_load_verify_locations(c, files.client_ca.c_str(), nullptr) != 1) {
      if (names) sk_X509_NAME_pop_free(names, X509_NAME_free);
      *error = files.client_ca + ": cannot load the client CA: " + OpenSslErrors();
      return nullptr;
    }
    SSL_CTX_set_client_CA_list(c, names);
    SSL_CTX_set_verify(c, SSL_VERIFY_PEER, nullptr);
  }
  *not_after = NotAfter(c);
  return ctx;
}

WorkerPool::WorkerPool(size_t workers) {
  for (size_t i = 0; i < workers; ++i) threads_.emplace_back([this] { Work(); });
}

WorkerPool::~WorkerPool() { shutdown(); }

void WorkerPool::enqueue(std::function<void()> fn) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    jobs_.push_back(std::move(fn));
  }
  cv_.notify_one();
}

void WorkerPool::shutdown() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  for (std::thread& t : threads_)
    if (t.joinable()) t.join();
}

namespace {
thread_local bool t_yielded = false;  // this worker's job is giving it up
}  // namespace

bool WorkerPool::ShouldYield() {
  std::lock_guard<std::mutex> lock(mu_);
  if (t_yielded || busy_ < threads_.size() || jobs_.size() <= yielding_) return false;
  ++yielding_;
  t_yielded = true;
  return true;
}

void WorkerPool::Work() {
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return stop_ || !jobs_.empty(); });
      if (jobs_.empty()) return;  // stopping, and nothing left to run
      job = std::move(jobs_.front());
      jobs_.pop_front();
      ++busy_;
    }
    try {
      job();
    } catch (...) {
      // A connection's failure must not take a worker with it.
    }
    std::lock_guard<std::mutex> lock(mu_);
    --busy_;
    if (t_yielded) --yielding_;
    t_yielded = false;
  }
}

void TlsHttpServer::SetWorkers(size_t workers) {
  new_task_queue = [this, workers] {
    auto* pool = new WorkerPool(std::max<size_t>(1, workers));
    pool_ = pool;
    return pool;
  };
}

void TlsHttpServer::SetContext(SslCtxPtr ctx) {
  std::lock_guard<std::mutex> lock(ctx_mutex_);
  ctx_ = std::move(ctx);
}

SslCtxPtr TlsHttpServer::Context() const {
  std::lock_guard<std::mutex> lock(ctx_mutex_);
  return ctx_;
}

void TlsHttpServer::RaiseListenBacklog(int backlog) {
  socket_t sock = svr_sock_;
  if (sock != INVALID_SOCKET) ::listen(sock, backlog);
}

void TlsHttpServer::AllowBody(size_t bytes) {
  if (t_connection && t_connection->stream) t_connection->stream->AllowMore(bytes);
}

void TlsHttpServer::CloseAfterResponse() {
  if (t_connection) t_connection->close = true;
}

bool TlsHttpServer::WaitForRequest(int sock, SSL* ssl) const {
  // Bytes read ahead (a pipelined request) are in OpenSSL's buffer, not the socket.
  if (SSL_has_pending(ssl)) return true;
  // Short slices, so idle connections notice a shutdown promptly. The next
  // request mostly comes within the first: it is waited for without reading
  // the clock (a paravirtualised clock read costs).
  pollfd first{sock, POLLIN, 0};
  if (::poll(&first, 1, kIdleSliceMs) > 0) return true;
  auto deadline = Clock::now() + std::chrono::seconds(keep_alive_timeout_sec_) -
                  std::chrono::milliseconds(kIdleSliceMs);
  for (;;) {
    if (svr_sock_ == INVALID_SOCKET || Clock::now() >= deadline) return false;
    // Every worker is taken and a connection is waiting: an idle one yields.
    WorkerPool* pool = pool_.load();
    if (pool && pool->ShouldYield()) return false;
    auto slice =
        std::min<Clock::time_point>(deadline, Clock::now() + std::chrono::milliseconds(kIdleSliceMs));
    if (WaitFd(sock, POLLIN, slice)) return true;
  }
}

bool TlsHttpServer::process_and_close_socket(socket_t sock) {
  connections_++;
  SslCtxPtr ctx = Context();  // kept for the connection's lifetime
  bool ret = false;
  int one = 1;
  ::setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  ::fcntl(sock, F_SETFL, ::fcntl(sock, F_GETFL) | O_NONBLOCK);
  SSL* ssl = ctx ? SSL_new(ctx.get()) : nullptr;
  if (ssl && SSL_set_fd(ssl, sock) == 1 &&
      Handshake(sock, ssl, Clock::now() + limits_.handshake_timeout, pool_.load(),
                limits_.stall_under_pressure)) {
    TlsStream strm(sock, ssl, limits_, pool_.load());
    ConnectionState state{&strm, false};
    bool linger = false;
    for (size_t left = keep_alive_max_count_; left > 0 && (strm.Buffered() || WaitForRequest(sock, ssl));
         --left) {
      strm.BeginRequest(limits_.max_header_bytes);
      state.close = false;
      t_connection = &state;
      bool closed = false;
      try {
        ret = process_request(strm, left == 1, closed,
                              [ssl](httplib::Request& req) { req.ssl = ssl; });
        if (!strm.Flush()) ret = false;
      } catch (...) {
        ret = false;
      }
      t_connection = nullptr;
      // A connection that gave its worker up is not owed a lingering close.
      linger = (state.close || strm.broken()) && !strm.yielded();
      if (!ret || closed || linger || strm.yielded()) break;
    }
    ERR_clear_error();
    SSL_shutdown(ssl);  // best effort close_notify; the socket is non-blocking
    if (linger) LingeringClose(sock);
  } else {
    handshake_failures_++;
  }
  ERR_clear_error();
  if (ssl) SSL_free(ssl);
  ::close(sock);
  return ret;
}

}  // namespace gpulint
