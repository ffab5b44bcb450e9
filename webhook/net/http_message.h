// HTTP/1.1 requests and responses on plain strings, for the server's HTTP
// layer (http1_connection.h): the request and response its handlers see,
// parsing a request's head (found with FindHeadEnd, common/http1.h), deciding
// how its body is framed, and writing a response. No I/O here, so every rule
// is tested on strings.
#ifndef GPULINT_WEBHOOK_NET_HTTP_MESSAGE_H_
#define GPULINT_WEBHOOK_NET_HTTP_MESSAGE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "common/http1.h"

namespace gpulint {

// A request target longer than this gets 414 (the limit of cpp-httplib's
// server, kept when this one replaced it).
inline constexpr size_t kMaxRequestTarget = 8192;

// A request as the handlers see it: its head, then its body once read whole.
struct HttpRequest {
  std::string method;   // a token: "POST"
  std::string target;   // as sent: "/validate?timeout=10s"
  std::string path;     // the target without its query, percent-decoded: "/validate"
  std::string version;  // "HTTP/1.1" or "HTTP/1.0"
  HttpHeaders headers;
  std::string body;
};

// A handler's answer. The HTTP layer writes the framing (Content-Length,
// Connection, Keep-Alive), whatever a handler set.
struct HttpResponse {
  int status = 200;
  HttpHeaders headers;
  std::string content_type;  // sent as Content-Type when not empty
  std::string body;

  void SetContent(std::string text, std::string_view type) {
    body = std::move(text);
    content_type = type;
  }
};

// Parses a head (as delimited by FindHeadEnd) into `req`: method, target,
// path, version and headers. Returns 0, or the status to refuse it with (400,
// 414, 505) and *why in words.
int ParseHead(std::string_view head, HttpRequest* req, std::string* why);

// How a request's body is delimited, decided once, from its head (RFC 9112,
// section 6.3). This server reads bodies by Content-Length only: a
// Transfer-Encoding, a Content-Length that is not one number, one over the
// limit, or none on a method that carries a body (anything but GET and HEAD)
// cannot be read, and is refused with `status` and `why`.
struct BodyFraming {
  int status = 0;  // 0: the body is `length` bytes after the head
  std::string why;
  uint64_t length = 0;

  bool refused() const { return status != 0; }
  // Body bytes may follow the head, so refusing the request now leaves them
  // unread and its connection cannot carry another request.
  bool leaves_bytes() const { return refused() || length > 0; }
};
BodyFraming DecideFraming(const HttpRequest& head, uint64_t max_body_bytes);

// Whether the request may be followed by body bytes that a refusal leaves
// unread (DecideFraming's leaves_bytes, whatever the size limit).
bool MayHaveBody(const HttpRequest& req);

// Whether the client asked to close after this request (Connection: close, or
// HTTP/1.0 without Connection: keep-alive).
bool WantsClose(const HttpRequest& req);

const char* StatusReason(int status);

struct KeepAlive {
  bool close = false;    // "Connection: close" and the connection ends
  int timeout_s = 0;     // otherwise advertised in a Keep-Alive header
  size_t max = 0;
};

// Appends the response's status line, headers, Content-Length and body (no
// body for HEAD) to `out`.
void WriteResponse(const HttpRequest& req, const HttpResponse& res, const KeepAlive& keep_alive,
                   std::string* out);

}  // namespace gpulint

#endif  // GPULINT_WEBHOOK_NET_HTTP_MESSAGE_H_
