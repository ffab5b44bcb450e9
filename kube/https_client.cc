#include "kube/https_client.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "common/flags.h"
#include "common/http1.h"
#include "common/openssl_errors.h"

namespace gpulint {
namespace {

constexpr size_t kMaxHeadBytes = 64 << 10;
constexpr size_t kMaxChunkLineBytes = 1024;

bool IsIp(const std::string& host) {
  unsigned char addr[16];
  return inet_pton(AF_INET, host.c_str(), addr) == 1 ||
         inet_pton(AF_INET6, host.c_str(), addr) == 1;
}

}  // namespace

HttpsClient::HttpsClient(std::string host, int port, SSL_CTX* ctx, std::string headers)
    : host_(std::move(host)), port_(port), ctx_(ctx), headers_(std::move(headers)) {}

HttpsClient::~HttpsClient() {
  Close();
  SSL_CTX_free(ctx_);
}

std::string HttpsClient::Scrub(std::string text) const {
  if (secret_.empty()) return text;
  // Searched on past each replacement: a token found inside "<redacted>" (a
  // token "t", say) would otherwise be replaced again without end.
  static constexpr std::string_view kRedacted = "<redacted>";
  for (size_t at = 0; (at = text.find(secret_, at)) != std::string::npos; at += kRedacted.size())
    text.replace(at, secret_.size(), kRedacted);
  return text;
}

void HttpsClient::Stop() {
  std::lock_guard<std::mutex> lock(mu_);
  stopped_ = true;
  if (fd_ >= 0) shutdown(fd_, SHUT_RDWR);  // a read or write in flight returns
}

void HttpsClient::Close() {
  if (ssl_) SSL_free(ssl_);
  ssl_ = nullptr;
  in_.clear();
  std::lock_guard<std::mutex> lock(mu_);
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
}

int HttpsClient::RemainingMs() const {
  if (request_end_ == Clock::time_point::max()) return INT_MAX;
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(request_end_ - Clock::now());
  return static_cast<int>(std::clamp<long long>(left.count(), 0, INT_MAX));
}

std::string HttpsClient::OutOfTime() const {
  if (request_end_ == deadline_)
    return "the deadline passed" + (deadline_label_.empty() ? "" : " (" + deadline_label_ + ")");
  return "no whole answer within " + FormatDuration(request_timeout_) + " (the request timeout)";
}

void HttpsClient::SetSocketTimeouts(int fd) const {
  int left_ms = RemainingMs();
  auto limit = [&](int seconds) {
    long long ms = std::min<long long>(seconds * 1000LL, left_ms);
    return timeval{static_cast<time_t>(ms / 1000), static_cast<suseconds_t>(ms % 1000 * 1000)};
  };
  // 0 would mean no limit: a request with nothing left gets a millisecond.
  timeval rcv = limit(read_timeout_), snd = limit(write_timeout_);
  if (rcv.tv_sec == 0 && rcv.tv_usec == 0) rcv.tv_usec = 1000;
  if (snd.tv_sec == 0 && snd.tv_usec == 0) snd.tv_usec = 1000;
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &rcv, sizeof rcv);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &snd, sizeof snd);
}

int HttpsClient::OpenSocket(std::string* error) {
  const std::string& host = proxy_.empty() ? host_ : proxy_.host;
  int port = proxy_.empty() ? port_ : proxy_.port;
  std::string where = proxy_.empty() ? host + ":" + std::to_string(port) : "the proxy " + proxy_.display;
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (int rc = getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found); rc != 0) {
    *error = "cannot resolve " + (proxy_.empty() ? host : where) + ": " + gai_strerror(rc);
    return -1;
  }
  int fd = -1;
  std::string why = "no address";
  for (addrinfo* a = found; a && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
    if (fd < 0) continue;
    int err = 0;
    if (connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
      err = errno;
      if (err == EINPROGRESS) {
        pollfd p{fd, POLLOUT, 0};
        int ready = poll(&p, 1, std::min(connect_timeout_ * 1000, RemainingMs()));
        socklen_t len = sizeof err;
        if (ready == 0)
          err = ETIMEDOUT;
        else if (ready < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0)
          err = errno;
      }
    }
    if (err != 0) {
      why = RemainingMs() == 0 ? OutOfTime() : std::strerror(err);
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(found);
  if (fd < 0) {
    *error = "cannot connect to " + where + ": " + why;
    return -1;
  }
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  SetSocketTimeouts(fd);
  return fd;
}

// CONNECT host:port through the proxy on `fd`, as Go's transport asks: the
// answer's head is read to its end, and anything but 2xx is refused. Nothing
// but the CONNECT line, Host and the proxy's own credential is sent in clear.
bool HttpsClient::Tunnel(int fd, std::string* error) {
  std::string target = (host_.find(':') != std::string::npos ? "[" + host_ + "]" : host_) + ":" +
                       std::to_string(port_);
  std::string request = "CONNECT " + target + " HTTP/1.1\r\nHost: " + target + "\r\n" +
                        (proxy_.authorization.empty()
                             ? std::string()
                             : "Proxy-Authorization: " + proxy_.authorization + "\r\n") +
                        "User-Agent: gpulint\r\n\r\n";
  std::string what = "the proxy " + proxy_.display + " (CONNECT " + target + ")";
  for (size_t sent = 0; sent < request.size();) {
    ssize_t n = send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) {
      *error = what + ": cannot send: " + std::strerror(errno);
      return false;
    }
    sent += static_cast<size_t>(n);
  }
  // Byte by byte up to the head's end: what follows is the server's TLS.
  std::string head;
  while (head.size() < 4 || head.compare(head.size() - 4, 4, "\r\n\r\n") != 0) {
    char c;
    ssize_t n = recv(fd, &c, 1, 0);
    if (n <= 0) {
      *error = what + ": " +
               (n == 0 ? std::string("closed the connection without an answer")
                       : (errno == EAGAIN || errno == EWOULDBLOCK)
                             ? (RemainingMs() == 0 ? OutOfTime()
                                                   : "no answer within " +
                                                         std::to_string(read_timeout_) + " s")
                             : std::string(std::strerror(errno)));
      return false;
    }
    head += c;
    if (head.size() > kMaxHeadBytes) {
      *error = what + ": its answer's head is larger than 64 KiB";
      return false;
    }
  }
  std::string status_line = head.substr(0, head.find("\r\n"));
  bool ok = status_line.size() >= 12 && status_line.compare(0, 5, "HTTP/") == 0 &&
            status_line[9] == '2';
  if (!ok) {
    *error = what + " refused the tunnel: " + QuotedForMessage(status_line) +
             (status_line.find(" 407") != std::string::npos
                  ? " (the proxy wants credentials: give them in the proxy URL, "
                    "http://user:password@host:port)"
                  : "");
    return false;
  }
  return true;
}

bool HttpsClient::Connect(std::string* error) {
  std::string where = host_ + ":" + std::to_string(port_);
  int fd = OpenSocket(error);
  if (fd < 0) return false;
  if (!proxy_.empty() && !Tunnel(fd, error)) {
    close(fd);
    return false;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopped_) {
      close(fd);
      *error = "stopped";
      return false;
    }
    fd_ = fd;
  }
  ssl_ = SSL_new(ctx_);
  SSL_set_fd(ssl_, fd);
  if (!IsIp(host_)) SSL_set_tlsext_host_name(ssl_, host_.c_str());
  ERR_clear_error();
  if (SSL_connect(ssl_) != 1) {
    long verify = SSL_get_verify_result(ssl_);
    std::string openssl = OpenSslErrors();
    *error = "TLS with " + where + (proxy_.empty() ? "" : " through " + proxy_.display) +
             " failed: " +
             (verify != X509_V_OK  ? std::string(X509_verify_cert_error_string(verify))
              : RemainingMs() == 0 ? OutOfTime()
              : openssl.empty()    ? std::string("the connection closed")
                                   : openssl);
    Close();
    return false;
  }
  return true;
}

bool HttpsClient::Fill(std::string* error) {
  char buf[65536];
  bool limited = request_end_ != Clock::time_point::max();
  if (limited) {
    if (RemainingMs() == 0) {
      *error = OutOfTime();
      return false;
    }
    std::lock_guard<std::mutex> lock(mu_);
    if (fd_ >= 0) SetSocketTimeouts(fd_);
  }
  ERR_clear_error();
  int n = SSL_read(ssl_, buf, sizeof buf);
  int err = errno;
  if (n > 0) {
    in_.append(buf, static_cast<size_t>(n));
    return true;
  }
  int code = SSL_get_error(ssl_, n);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopped_) {
      *error = "stopped";
      return false;
    }
  }
  if (code == SSL_ERROR_ZERO_RETURN) {
    error->clear();  // the end of the stream
  } else if (code == SSL_ERROR_WANT_READ || code == SSL_ERROR_WANT_WRITE ||
             (code == SSL_ERROR_SYSCALL && (err == EAGAIN || err == EWOULDBLOCK))) {
    // SO_RCVTIMEO ran out: the socket is blocking, so a retry means a timeout.
    *error = limited && RemainingMs() == 0
                 ? OutOfTime()
                 : "no answer within " + std::to_string(read_timeout_) + " s";
  } else {
    std::string openssl = OpenSslErrors();
    *error = openssl.empty() ? std::string("the connection closed") : openssl;
  }
  return false;
}

bool HttpsClient::ReadBody(bool chunked, long long length, const BodySink& on_body,
                           std::string* error, bool* canceled) {
  // Hands on `n` bytes of the body as they arrive.
  auto deliver = [&](long long n) {
    while (n > 0) {
      if (in_.empty() && !Fill(error)) {
        if (error->empty()) *error = "the answer ended early";
        return false;
      }
      size_t take = std::min(in_.size(), static_cast<size_t>(n));
      if (on_body && !on_body(in_.data(), take)) {
        *canceled = true;
        return false;
      }
      in_.erase(0, take);
      n -= static_cast<long long>(take);
    }
    return true;
  };
  auto line = [&](std::string* out) {
    size_t end;
    while ((end = in_.find("\r\n")) == std::string::npos) {
      if (in_.size() > kMaxChunkLineBytes) {
        *error = "a chunk's size line is too long";
        return false;
      }
      if (!Fill(error)) {
        if (error->empty()) *error = "the answer ended early";
        return false;
      }
    }
    *out = in_.substr(0, end);
    in_.erase(0, end + 2);
    return true;
  };
  if (!chunked && length >= 0) return deliver(length);
  if (!chunked) {  // to the end of the stream
    while (true) {
      if (!deliver(static_cast<long long>(in_.size()))) return false;
      if (!Fill(error)) return error->empty();
    }
  }
  std::string size_line;
  while (true) {
    if (!line(&size_line)) return false;
    char* end = nullptr;
    long long size = std::strtoll(size_line.c_str(), &end, 16);
    if (end == size_line.c_str() || size < 0) {
      *error = "a chunk's size is not a number";
      return false;
    }
    if (size == 0) {
      std::string trailer;
      do {
        if (!line(&trailer)) return false;
      } while (!trailer.empty());
      return true;
    }
    std::string crlf;
    if (!deliver(size) || !line(&crlf)) return false;
  }
}

HttpResult HttpsClient::Attempt(const std::string& request, const StatusSink& on_status,
                                const BodySink& on_body, bool* nothing_came) {
  *nothing_came = true;
  HttpResult r;
  if (!ssl_ && !Connect(&r.error)) return r;
  if (request_end_ != Clock::time_point::max()) {
    std::lock_guard<std::mutex> lock(mu_);
    if (fd_ >= 0) SetSocketTimeouts(fd_);
  }
  for (size_t sent = 0; sent < request.size();) {
    int n = SSL_write(ssl_, request.data() + sent,
                      static_cast<int>(std::min<size_t>(request.size() - sent, INT_MAX)));
    if (n <= 0) {
      r.error = "cannot send the request: " +
                (RemainingMs() == 0 ? OutOfTime() : OpenSslErrors());
      Close();
      return r;
    }
    sent += static_cast<size_t>(n);
  }
  size_t head_end, scanned = 0;
  while ((head_end = FindHeadEnd(in_, &scanned)) == 0) {
    if (in_.size() > kMaxHeadBytes) {
      r.error = "the answer's head is larger than 64 KiB";
      Close();
      return r;
    }
    if (!Fill(&r.error)) {
      *nothing_came = in_.empty();
      if (r.error.empty()) r.error = "the connection closed before an answer";
      Close();
      return r;
    }
  }
  *nothing_came = false;
  // The head's syntax is the server's too (common/http1.h).
  std::string_view head(in_.data(), head_end);
  size_t pos = head.find_first_not_of("\r\n");
  std::string_view status_line = NextLine(head, &pos);
  HttpHeaders headers;
  std::string why;
  if (status_line.substr(0, 5) != "HTTP/" || status_line.size() < 12) {
    r.error = "not an HTTP answer";
  } else if (!ParseFieldLines(head, &pos, &headers, &why)) {
    r.error = "the answer's " + why;
  }
  uint64_t length = 0;
  bool has_length = headers.Has("Content-Length");
  if (r.error.empty() && has_length &&
      (!ParseContentLength(headers.Get("Content-Length"), &length) || length > LLONG_MAX)) {
    r.error = "the answer's Content-Length " + QuotedForMessage(headers.Get("Content-Length")) +
              " is not a number";
  }
  if (!r.error.empty()) {
    Close();
    return r;
  }
  int status = std::atoi(std::string(status_line.substr(9, 3)).c_str());
  bool chunked = HasToken(headers.Get("Transfer-Encoding"), "chunked");
  bool close_after = HasToken(headers.Get("Connection"), "close");
  in_.erase(0, head_end);
  r.status = status;
  bool no_body =
      status / 100 == 1 || status == 204 || status == 304 || request.compare(0, 5, "HEAD ") == 0;
  if (!no_body) {
    if (on_status && !on_status(status)) {
      Close();  // the body is not wanted; the connection cannot be reused
      return r;
    }
    bool canceled = false;
    if (!ReadBody(chunked, has_length ? static_cast<long long>(length) : -1, on_body, &r.error,
                  &canceled)) {
      if (canceled) r.error = "canceled";
      Close();
      return r;
    }
  } else if (on_status) {
    on_status(status);
  }
  if (close_after || (!chunked && !has_length && !no_body)) Close();
  return r;
}

HttpResult HttpsClient::Send(std::string_view method, const std::string& path,
                             std::string_view body, std::string_view content_type,
                             const StatusSink& on_status, const BodySink& on_body) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopped_) return {0, "stopped"};
  }
  std::string host = host_.find(':') != std::string::npos ? "[" + host_ + "]" : host_;
  std::string request = std::string(method) + " " + path + " HTTP/1.1\r\nHost: " + host + ":" +
                        std::to_string(port_) + "\r\n" + headers_ +
                        "User-Agent: gpulint\r\nAccept-Encoding: identity\r\n";
  if (!content_type.empty()) request += "Content-Type: " + std::string(content_type) + "\r\n";
  if (!body.empty() || method == "PATCH" || method == "POST" || method == "PUT")
    request += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  request += "\r\n";
  request += body;
  request_end_ = deadline_;
  if (request_timeout_.count() > 0)
    request_end_ = std::min(request_end_, Clock::now() + request_timeout_);
  if (request_end_ != Clock::time_point::max() && RemainingMs() == 0) return {0, OutOfTime()};
  bool reused = ssl_ != nullptr, nothing_came = false;
  HttpResult r = Attempt(request, on_status, on_body, &nothing_came);
  bool stopped;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopped = stopped_;
  }
  // A kept connection the server closed while idle: once more, on a new one.
  if (!r.answered() && nothing_came && reused && !stopped)
    r = Attempt(request, on_status, on_body, &nothing_came);
  return r;
}

}  // namespace gpulint
