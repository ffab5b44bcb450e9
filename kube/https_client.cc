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

void SetTimeout(int fd, int option, int seconds) {
  timeval tv{seconds, 0};
  setsockopt(fd, SOL_SOCKET, option, &tv, sizeof tv);
}

}  // namespace

HttpsClient::HttpsClient(std::string host, int port, SSL_CTX* ctx, std::string headers)
    : host_(std::move(host)), port_(port), ctx_(ctx), headers_(std::move(headers)) {}

HttpsClient::~HttpsClient() {
  Close();
  SSL_CTX_free(ctx_);
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

bool HttpsClient::Connect(std::string* error) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  std::string where = host_ + ":" + std::to_string(port_);
  if (int rc = getaddrinfo(host_.c_str(), std::to_string(port_).c_str(), &hints, &found); rc != 0) {
    *error = "cannot resolve " + host_ + ": " + gai_strerror(rc);
    return false;
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
        int ready = poll(&p, 1, connect_timeout_ * 1000);
        socklen_t len = sizeof err;
        if (ready == 0)
          err = ETIMEDOUT;
        else if (ready < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0)
          err = errno;
      }
    }
    if (err != 0) {
      why = std::strerror(err);
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(found);
  if (fd < 0) {
    *error = "cannot connect to " + where + ": " + why;
    return false;
  }
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  SetTimeout(fd, SO_RCVTIMEO, read_timeout_);
  SetTimeout(fd, SO_SNDTIMEO, write_timeout_);
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
    *error = "TLS with " + where + " failed: " +
             (verify != X509_V_OK ? std::string(X509_verify_cert_error_string(verify))
              : openssl.empty()   ? std::string("the connection closed")
                                  : openssl);
    Close();
    return false;
  }
  return true;
}

bool HttpsClient::Fill(std::string* error) {
  char buf[65536];
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
    *error = "no answer within " + std::to_string(read_timeout_) + " s";
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
  for (size_t sent = 0; sent < request.size();) {
    int n = SSL_write(ssl_, request.data() + sent,
                      static_cast<int>(std::min<size_t>(request.size() - sent, INT_MAX)));
    if (n <= 0) {
      r.error = "cannot send the request: " + OpenSslErrors();
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
