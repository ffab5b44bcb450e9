// HTTP/1.1 messages on plain strings, for the server's HTTP layer
// (http1_connection.h): finding where a request's head ends in the bytes read
// so far, parsing it into httplib's Request, deciding how its body is framed,
// and writing a Response. No I/O here, so every rule is tested on strings.
#ifndef GPULINT_WEBHOOK_NET_HTTP_MESSAGE_H_
#define GPULINT_WEBHOOK_NET_HTTP_MESSAGE_H_

#include <httplib.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace gpulint {

// A request target longer than this gets 414 (httplib's own limit).
inline constexpr size_t kMaxRequestTarget = 8192;

// The offset just past the empty line that ends the head (request line and
// headers) in `buffer`, or 0 when it has not come yet. Lines end in CRLF or a
// bare LF. `*scanned` remembers how far earlier calls got, so a head arriving
// a few bytes at a time is searched once; start it at 0 for each request.
size_t FindHeadEnd(std::string_view buffer, size_t* scanned);

// Parses a head (as delimited by FindHeadEnd) into `req`: method, target,
// path (percent-decoded, without the query), version and headers. Returns 0,
// or the status to refuse it with (400, 414, 505) and *why in words.
int ParseHead(std::string_view head, httplib::Request* req, std::string* why);

// A Content-Length value: decimal digits only, no sign or space, and no
// overflow. False otherwise.
bool ParseContentLength(std::string_view text, uint64_t* length);

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
BodyFraming DecideFraming(const httplib::Request& head, uint64_t max_body_bytes);

// Whether the request may be followed by body bytes that a refusal leaves
// unread (DecideFraming's leaves_bytes, whatever the size limit).
bool MayHaveBody(const httplib::Request& req);

// Blanks (space and tab, HTTP's OWS) cut from both ends.
std::string_view TrimBlanks(std::string_view s);

// A client's value, shortened to 64 bytes, control characters replaced, and
// quoted, for an error message.
std::string QuotedForMessage(std::string_view value);

// Whether the client asked to close after this request (Connection: close, or
// HTTP/1.0 without Connection: keep-alive).
bool WantsClose(const httplib::Request& req);

const char* StatusReason(int status);

struct KeepAlive {
  bool close = false;    // "Connection: close" and the connection ends
  int timeout_s = 0;     // otherwise advertised in a Keep-Alive header
  size_t max = 0;
};

// Appends the response's status line, headers, Content-Length and body (no
// body for HEAD) to `out`.
void WriteResponse(const httplib::Request& req, const httplib::Response& res,
                   const KeepAlive& keep_alive, std::string* out);

}  // namespace gpulint

#endif  // GPULINT_WEBHOOK_NET_HTTP_MESSAGE_H_
