// HTTP/1.1 over TLS (OpenSSL), as the API server client needs it and no more:
// one connection kept alive between requests, bodies handed on as they
// arrive (a watch never ends by itself), Content-Length and chunked framing,
// time limits (a read's, a whole request's, and a deadline over every
// request), a tunnel through an HTTP proxy (CONNECT, kube/proxy.h), and a
// stop another thread can call. Written here rather than
// taken from cpp-httplib, which Debian ships only as a shared library: the
// client is in gpulint, which links fully static (cmake/shipped_binary.cmake).
#ifndef GPULINT_KUBE_HTTPS_CLIENT_H_
#define GPULINT_KUBE_HTTPS_CLIENT_H_

#include <openssl/ssl.h>

#include <chrono>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>

#include "kube/proxy.h"

namespace gpulint {

// What a request came to: the status (0 when no answer came, with `error`
// saying why), or an answer cut short (`error` set, `status` kept).
struct HttpResult {
  int status = 0;
  std::string error;
  bool answered() const { return status != 0; }
};

class HttpsClient {
 public:
  // `ctx` is owned: set up to verify the server (kube_client.cc). `host` as
  // in a URL's authority, without brackets; `headers` ("Name: value\r\n"
  // lines) go with every request.
  HttpsClient(std::string host, int port, SSL_CTX* ctx, std::string headers);
  ~HttpsClient();
  HttpsClient(const HttpsClient&) = delete;
  HttpsClient& operator=(const HttpsClient&) = delete;

  void set_connection_timeout(int seconds) { connect_timeout_ = seconds; }
  void set_read_timeout(int seconds) { read_timeout_ = seconds; }
  void set_write_timeout(int seconds) { write_timeout_ = seconds; }
  // A whole request, from connecting to the last byte of its answer, gets at
  // most `limit` (0: no limit but the reads'); a body that keeps trickling
  // is cut there.
  void set_request_timeout(std::chrono::milliseconds limit) { request_timeout_ = limit; }
  // No request runs past `deadline`; `label` says whose it is in the error
  // ("gpulint audit --timeout 15m").
  using Clock = std::chrono::steady_clock;
  void set_deadline(Clock::time_point deadline, std::string label) {
    deadline_ = deadline;
    deadline_label_ = std::move(label);
  }
  // Connect through this proxy (CONNECT host:port); empty: directly.
  void set_proxy(ProxyConfig proxy) { proxy_ = std::move(proxy); }
  // The credential this client sends (its bearer token): Scrub replaces it
  // in text that came from the server before anyone shows it.
  void set_secret(std::string secret) { secret_ = std::move(secret); }
  std::string Scrub(std::string text) const;

  // Told the status before the body; false drops the body.
  using StatusSink = std::function<bool(int status)>;
  // Each piece of the body as it arrives; false ends the request (`error`
  // "canceled") and the connection.
  using BodySink = std::function<bool(const char* data, size_t n)>;

  // One request. A connection kept from an earlier request that the server
  // closed meanwhile is opened again once, if nothing of the answer came.
  HttpResult Send(std::string_view method, const std::string& path, std::string_view body,
                  std::string_view content_type, const StatusSink& on_status,
                  const BodySink& on_body);
  HttpResult Get(const std::string& path, const BodySink& on_body) {
    return Send("GET", path, {}, {}, nullptr, on_body);
  }

  // From any thread: the request in flight ends, and no other is sent.
  void Stop();

 private:
  bool Connect(std::string* error);
  // The socket to the server, or to the proxy and through its tunnel.
  int OpenSocket(std::string* error);
  bool Tunnel(int fd, std::string* error);
  void Close();
  // Milliseconds left of the request in flight (INT_MAX: no limit), and
  // the error that says it ran out.
  int RemainingMs() const;
  std::string OutOfTime() const;
  // SO_RCVTIMEO/SO_SNDTIMEO: the per-read limit, or what is left of the request.
  void SetSocketTimeouts(int fd) const;
  // One attempt; *sent_nothing when it failed before any byte of the answer.
  HttpResult Attempt(const std::string& request, const StatusSink& on_status,
                     const BodySink& on_body, bool* nothing_came);
  // Reads more into in_; false at the end of the stream or on an error (*error).
  bool Fill(std::string* error);
  bool ReadBody(bool chunked, long long length, const BodySink& on_body, std::string* error,
                bool* canceled);

  const std::string host_;
  const int port_;
  SSL_CTX* const ctx_;
  const std::string headers_;
  int connect_timeout_ = 10, read_timeout_ = 60, write_timeout_ = 60;
  std::chrono::milliseconds request_timeout_{0};
  Clock::time_point deadline_ = Clock::time_point::max();
  std::string deadline_label_;
  Clock::time_point request_end_ = Clock::time_point::max();  // of the request in flight
  ProxyConfig proxy_;
  std::string secret_;

  std::mutex mu_;  // guards fd_ against Stop from another thread, and stopped_
  int fd_ = -1;
  bool stopped_ = false;
  SSL* ssl_ = nullptr;
  std::string in_;  // read and not yet used
};

}  // namespace gpulint

#endif  // GPULINT_KUBE_HTTPS_CLIENT_H_
