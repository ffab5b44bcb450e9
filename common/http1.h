// HTTP/1.1 syntax that a request and a response share (RFC 9110, RFC 9112):
// header fields, with names compared without case as HTTP has them, finding
// where a head ends in the bytes read so far, reading its field lines, and a
// Content-Length. The webhook's server reads requests with it
// (webhook/net/http_message.h), the API server client responses
// (kube/https_client.cc). No I/O here, so every rule is tested on strings.
#ifndef GPULINT_COMMON_HTTP1_H_
#define GPULINT_COMMON_HTTP1_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpulint {

// A message's header fields in the order they came or were set. A name may
// repeat; lookups ignore case. A head has a few dozen fields at most, so a
// vector searched in order beats any map.
class HttpHeaders {
 public:
  using Field = std::pair<std::string, std::string>;

  void Add(std::string_view name, std::string_view value);
  // Replaces every field named `name` with this one.
  void Set(std::string_view name, std::string_view value);
  bool Has(std::string_view name) const { return Count(name) > 0; }
  size_t Count(std::string_view name) const;
  // The `index`th value of `name`, or "" when there are not that many.
  std::string_view Get(std::string_view name, size_t index = 0) const;

  std::vector<Field>::const_iterator begin() const { return fields_.begin(); }
  std::vector<Field>::const_iterator end() const { return fields_.end(); }
  size_t size() const { return fields_.size(); }

 private:
  std::vector<Field> fields_;
};

// ASCII letters compared without case: header names, and tokens in values
// such as "close" or "chunked".
bool EqualsIgnoreCase(std::string_view a, std::string_view b);

// Whether the comma-separated list `list` (a Connection or Transfer-Encoding
// value) holds `token`, compared without case.
bool HasToken(std::string_view list, std::string_view token);

// RFC 9110's token: one or more of letters, digits and !#$%&'*+-.^_`|~.
bool IsToken(std::string_view s);

// The value of a hex digit, or -1.
int HexDigit(char c);

// The offset just past the empty line that ends the head (start line and
// header fields) in `buffer`, or 0 when it has not come yet. Lines end in CRLF
// or a bare LF; empty lines before the start line are skipped. `*scanned`
// remembers how far earlier calls got, so a head arriving a few bytes at a
// time is searched once; start it at 0 for each head.
size_t FindHeadEnd(std::string_view buffer, size_t* scanned);

// The line of `text` that starts at `*pos`, without its CRLF or LF; `*pos`
// moves past its end.
std::string_view NextLine(std::string_view text, size_t* pos);

// The field lines of a head, from `*pos` (just past its start line) to the
// empty line that ends it, added to `headers`, values without the blanks
// around them. False, with *why naming the line (1 for the first field), for
// a line that is not `Name: value` (a folded line included) or a value with CR
// or NUL.
bool ParseFieldLines(std::string_view head, size_t* pos, HttpHeaders* headers, std::string* why);

// A Content-Length value: decimal digits only, no sign or space, and no
// overflow. False otherwise.
bool ParseContentLength(std::string_view text, uint64_t* length);

// Blanks (space and tab, HTTP's OWS) cut from both ends.
std::string_view TrimBlanks(std::string_view s);

// A peer's value, shortened to 64 bytes, control characters replaced, and
// quoted, for an error message.
std::string QuotedForMessage(std::string_view value);

}  // namespace gpulint

#endif  // GPULINT_COMMON_HTTP1_H_
