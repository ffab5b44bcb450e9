#include "webhook/net/http_message.h"

#include <cstdint>
#include <utility>

namespace gpulint {
namespace {

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

int ParseRequestLine(std::string_view line, HttpRequest* req, std::string* why) {
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

int ParseHead(std::string_view head, HttpRequest* req, std::string* why) {
  size_t pos = head.find_first_not_of("\r\n");
  if (pos == std::string_view::npos) {
    *why = "empty request";
    return 400;
  }
  if (int status = ParseRequestLine(NextLine(head, &pos), req, why)) return status;
  return ParseFieldLines(head, &pos, &req->headers, why) ? 0 : 400;
}

BodyFraming DecideFraming(const HttpRequest& head, uint64_t max_body_bytes) {
  BodyFraming framing;
  auto refuse = [&framing](int status, std::string why) {
    framing.status = status;
    framing.why = std::move(why);
    return framing;
  };
  if (head.headers.Has("Transfer-Encoding"))
    return refuse(411, "Transfer-Encoding " +
                           QuotedForMessage(head.headers.Get("Transfer-Encoding")) +
                           " is not accepted: send the body with a Content-Length");
  size_t lengths = head.headers.Count("Content-Length");
  if (lengths > 1) return refuse(400, "more than one Content-Length header");
  if (lengths == 0) {
    if (head.method == "GET" || head.method == "HEAD") return framing;
    return refuse(411, "Content-Length is required");
  }
  std::string_view text = head.headers.Get("Content-Length");
  if (!ParseContentLength(text, &framing.length))
    return refuse(400, "Content-Length " + QuotedForMessage(text) + " is not a number");
  if (framing.length > max_body_bytes)
    return refuse(413, "request body of " + std::to_string(framing.length) +
                           " bytes is over the limit of " + std::to_string(max_body_bytes) +
                           " bytes");
  return framing;
}

bool MayHaveBody(const HttpRequest& req) { return DecideFraming(req, UINT64_MAX).leaves_bytes(); }

bool WantsClose(const HttpRequest& req) {
  std::string_view connection = req.headers.Get("Connection");
  if (HasToken(connection, "close")) return true;
  return req.version == "HTTP/1.0" && !HasToken(connection, "keep-alive");
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

void WriteResponse(const HttpRequest& req, const HttpResponse& res, const KeepAlive& keep_alive,
                   std::string* out) {
  out->append("HTTP/1.1 ").append(std::to_string(res.status)).append(" ");
  out->append(StatusReason(res.status)).append("\r\n");
  if (!res.content_type.empty())
    out->append("Content-Type: ").append(res.content_type).append("\r\n");
  for (const auto& [name, value] : res.headers) {
    // Framing is ours to write, whatever a handler set.
    if (EqualsIgnoreCase(name, "Content-Length") || EqualsIgnoreCase(name, "Connection") ||
        EqualsIgnoreCase(name, "Keep-Alive"))
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
