#include "webhook/net/http_message.h"

#include <strings.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace gpulint {
namespace {

bool IsTokenChar(char c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  return std::strchr("!#$%&'*+-.^_`|~", c) != nullptr && c != '\0';
}

bool IsToken(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!IsTokenChar(c)) return false;
  return true;
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool SameName(std::string_view a, std::string_view b) {
  return a.size() == b.size() && strncasecmp(a.data(), b.data(), a.size()) == 0;
}

// %XX escapes decoded; a '%' not followed by two hex digits stays as it is.
std::string PercentDecode(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    int hi, lo;
    if (s[i] == '%' && i + 2 < s.size() && (hi = HexDigit(s[i + 1])) >= 0 && (lo = HexDigit(s[i + 2])) >= 0) {
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

// The next line of `text` from `*pos`, without its CRLF or LF.
std::string_view NextLine(std::string_view text, size_t* pos) {
  size_t end = text.find('\n', *pos);
  if (end == std::string_view::npos) end = text.size();
  std::string_view line = text.substr(*pos, end - *pos);
  *pos = end + 1;
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

int ParseRequestLine(std::string_view line, httplib::Request* req, std::string* why) {
  size_t sp1 = line.find(' ');
  size_t sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || line.find(' ', sp2 + 1) != std::string_view::npos) {
    *why = "malformed request line: expected METHOD TARGET HTTP/1.1";
    return 400;
  }
  std::string_view method = line.substr(0, sp1);
  std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  std::string_view version = line.substr(sp2 + 1);
  if (!IsToken(method) || target.empty()) {
    *why = "malformed request line: expected METHOD TARGET HTTP/1.1";
    return 400;
  }
  if (target.size() > kMaxRequestTarget) {
    *why = "request target of " + std::to_string(target.size()) + " bytes is over the limit of " +
           std::to_string(kMaxRequestTarget) + " bytes";
    return 414;
  }
  if (version != "HTTP/1.1" && version != "HTTP/1.0") {
    bool http = version.substr(0, 5) == "HTTP/";
    *why = http ? "HTTP version " + std::string(version.substr(5)) + " is not supported: use 1.1"
                : "malformed request line: expected METHOD TARGET HTTP/1.1";
    return http ? 505 : 400;
  }
  for (char c : target) {
    if (static_cast<unsigned char>(c) <= ' ' || c == 0x7f) {
      *why = "the request target has a control character";
      return 400;
    }
  }
  req->method = method;
  req->target = target;
  req->version = version;
  req->path = PercentDecode(target.substr(0, target.find('?')));
  return 0;
}

}  // namespace

size_t FindHeadEnd(std::string_view buffer, size_t* scanned) {
  // Empty lines before the request line are allowed (RFC 9112, 2.2).
  size_t start = buffer.find_first_not_of("\r\n");
  if (start == std::string_view::npos) return 0;
  size_t pos = std::max(*scanned, start);
  while (pos < buffer.size()) {
    const void* hit = std::memchr(buffer.data() + pos, '\n', buffer.size() - pos);
    if (!hit) break;
    size_t i = static_cast<const char*>(hit) - buffer.data();
    // `start` is neither CR nor LF, so these look-backs stay inside the head.
    if (buffer[i - 1] == '\n' || (buffer[i - 1] == '\r' && i - 1 > start && buffer[i - 2] == '\n'))
      return i + 1;
    pos = i + 1;
  }
  *scanned = buffer.size();
  return 0;
}

int ParseHead(std::string_view head, httplib::Request* req, std::string* why) {
  size_t pos = head.find_first_not_of("\r\n");
  if (pos == std::string_view::npos) {
    *why = "empty request";
    return 400;
  }
  if (int status = ParseRequestLine(NextLine(head, &pos), req, why)) return status;
  for (size_t number = 1; pos < head.size(); ++number) {
    std::string_view line = NextLine(head, &pos);
    if (line.empty()) break;
    size_t colon = line.find(':');
    if (colon == std::string_view::npos || !IsToken(line.substr(0, colon))) {
      *why = "malformed header line " + std::to_string(number) + ": expected Name: value";
      return 400;
    }
    std::string_view value = TrimBlanks(line.substr(colon + 1));
    for (char c : value) {
      if (c == '\r' || c == '\0') {
        *why = "header line " + std::to_string(number) + " has a control character";
        return 400;
      }
    }
    req->headers.emplace(std::string(line.substr(0, colon)), std::string(value));
  }
  return 0;
}

bool ParseContentLength(std::string_view text, uint64_t* length) {
  if (text.empty() || text.size() > 19) return false;  // 19 digits cannot overflow
  uint64_t n = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    n = n * 10 + static_cast<uint64_t>(c - '0');
  }
  *length = n;
  return true;
}

BodyFraming DecideFraming(const httplib::Request& head, uint64_t max_body_bytes) {
  BodyFraming framing;
  auto refuse = [&framing](int status, std::string why) {
    framing.status = status;
    framing.why = std::move(why);
    return framing;
  };
  if (head.has_header("Transfer-Encoding"))
    return refuse(411, "Transfer-Encoding " +
                           QuotedForMessage(head.get_header_value("Transfer-Encoding")) +
                           " is not accepted: send the body with a Content-Length");
  size_t lengths = head.get_header_value_count("Content-Length");
  if (lengths > 1) return refuse(400, "more than one Content-Length header");
  if (lengths == 0) {
    if (head.method == "GET" || head.method == "HEAD") return framing;
    return refuse(411, "Content-Length is required");
  }
  std::string text = head.get_header_value("Content-Length");
  if (!ParseContentLength(text, &framing.length))
    return refuse(400, "Content-Length " + QuotedForMessage(text) + " is not a number");
  if (framing.length > max_body_bytes)
    return refuse(413, "request body of " + std::to_string(framing.length) +
                           " bytes is over the limit of " + std::to_string(max_body_bytes) +
                           " bytes");
  return framing;
}

bool MayHaveBody(const httplib::Request& req) {
  return DecideFraming(req, UINT64_MAX).leaves_bytes();
}

std::string_view TrimBlanks(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::string QuotedForMessage(std::string_view value) {
  std::string v(value.substr(0, 64));
  for (char& c : v)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  return "\"" + v + (value.size() > 64 ? "...\"" : "\"");
}

bool WantsClose(const httplib::Request& req) {
  std::string connection = req.get_header_value("Connection");
  if (SameName(connection, "close")) return true;
  return req.version == "HTTP/1.0" && !SameName(connection, "keep-alive");
}

const char* StatusReason(int status) {
  switch (status) {
    case 100: return "Continue";
    case 200: return "OK";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 411: return "Length Required";
    case 413: return "Payload Too Large";
    case 414: return "URI Too Long";
    case 415: return "Unsupported Media Type";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 503: return "Service Unavailable";
    case 505: return "HTTP Version Not Supported";
    default: return status >= 200 && status < 300 ? "OK" : "Error";
  }
}

void WriteResponse(const httplib::Request& req, const httplib::Response& res,
                   const KeepAlive& keep_alive, std::string* out) {
  int status = res.status < 0 ? 200 : res.status;
  out->append("HTTP/1.1 ").append(std::to_string(status)).append(" ");
  out->append(StatusReason(status)).append("\r\n");
  for (const auto& [name, value] : res.headers) {
    // Framing is ours to write, whatever a handler set.
    if (SameName(name, "Content-Length") || SameName(name, "Connection") ||
        SameName(name, "Keep-Alive"))
      continue;
    out->append(name).append(": ").append(value).append("\r\n");
  }
  if (keep_alive.close) {
    out->append("Connection: close\r\n");
  } else {
    out->append("Keep-Alive: timeout=").append(std::to_string(keep_alive.timeout_s));
    out->append(", max=").append(std::to_string(keep_alive.max)).append("\r\n");
  }
  out->append("Content-Length: ").append(std::to_string(res.body.size())).append("\r\n\r\n");
  if (req.method != "HEAD") out->append(res.body);
}

}  // namespace gpulint
