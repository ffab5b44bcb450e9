// HTTP/1.1 framing rules of the webhook's server, on plain strings.
#include <catch2/catch.hpp>

#include "webhook/net/http_message.h"

namespace gpulint {
namespace {

size_t HeadEnd(std::string_view text) {
  size_t scanned = 0;
  return FindHeadEnd(text, &scanned);
}

TEST_CASE("the head ends at the first empty line, CRLF or bare LF", "[webhook][http]") {
  CHECK(HeadEnd("GET / HTTP/1.1\r\nHost: x\r\n\r\nbody") == 27);
  CHECK(HeadEnd("GET / HTTP/1.1\nHost: x\n\nbody") == 24);
  CHECK(HeadEnd("GET / HTTP/1.1\r\nHost: x\n\r\n") == 26);
  CHECK(HeadEnd("GET / HTTP/1.1\r\nHost: x\r\n") == 0);
  CHECK(HeadEnd("GET / HTTP/1.1\r\nHost: x\r\n\r") == 0);
  // Blank lines before the request line (left over after a body) are skipped.
  CHECK(HeadEnd("\r\n\r\n") == 0);
  CHECK(HeadEnd("\r\nGET / HTTP/1.1\r\n\r\n") == 20);
}

TEST_CASE("a head arriving a byte at a time is found where it ends", "[webhook][http]") {
  std::string text = "POST /validate HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}";
  size_t scanned = 0;
  size_t found = 0;
  for (size_t n = 1; n <= text.size() && !found; ++n) {
    found = FindHeadEnd(std::string_view(text).substr(0, n), &scanned);
    if (!found) CHECK(scanned <= n);
  }
  CHECK(found == text.size() - 2);
}

TEST_CASE("a head is parsed into method, path, version and headers", "[webhook][http]") {
  httplib::Request req;
  std::string why;
  REQUIRE(ParseHead("POST /val%69date?timeout=10s HTTP/1.1\r\nHost: x\r\n"
                    "Content-Type:  application/json \r\nX-Empty:\r\nx-two: a\r\nX-Two: b\r\n\r\n",
                    &req, &why) == 0);
  CHECK(req.method == "POST");
  CHECK(req.target == "/val%69date?timeout=10s");
  CHECK(req.path == "/validate");
  CHECK(req.version == "HTTP/1.1");
  CHECK(req.get_header_value("content-type") == "application/json");
  CHECK(req.has_header("X-Empty"));
  CHECK(req.get_header_value("X-Empty").empty());
  CHECK(req.get_header_value_count("X-Two") == 2);
}

TEST_CASE("broken heads are refused with a status and the reason", "[webhook][http]") {
  struct Case {
    std::string head;
    int status;
    std::string why;
  } cases[] = {
      {"GET /\r\n\r\n", 400, "malformed request line: expected METHOD TARGET HTTP/1.1"},
      {"GET  / HTTP/1.1\r\n\r\n", 400, "malformed request line: expected METHOD TARGET HTTP/1.1"},
      {"G(T / HTTP/1.1\r\n\r\n", 400, "malformed request line: expected METHOD TARGET HTTP/1.1"},
      {"GET / FTP/1.1\r\n\r\n", 400, "malformed request line: expected METHOD TARGET HTTP/1.1"},
      {"GET / HTTP/2.0\r\n\r\n", 505, "HTTP version 2.0 is not supported: use 1.1"},
      {"GET /" + std::string(kMaxRequestTarget, 'a') + " HTTP/1.1\r\n\r\n", 414,
       "request target of 8193 bytes is over the limit of 8192 bytes"},
      {"GET /\x01 HTTP/1.1\r\n\r\n", 400, "the request target has a control character"},
      {"GET / HTTP/1.1\r\nHost x\r\n\r\n", 400, "malformed header line 1: expected Name: value"},
      {"GET / HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n", 400,
       "malformed header line 2: expected Name: value"},
      {"GET / HTTP/1.1\r\nBad Name: x\r\n\r\n", 400, "malformed header line 1: expected Name: value"},
      {"GET / HTTP/1.1\r\nX: a\rb\r\n\r\n", 400, "header line 1 has a control character"},
  };
  for (const Case& c : cases) {
    INFO(c.head.substr(0, 40));
    httplib::Request req;
    std::string why;
    CHECK(ParseHead(c.head, &req, &why) == c.status);
    CHECK(why == c.why);
  }
}

TEST_CASE("Content-Length is digits only", "[webhook][http]") {
  uint64_t n = 7;
  CHECK(ParseContentLength("0", &n));
  CHECK(n == 0);
  CHECK(ParseContentLength("6400", &n));
  CHECK(n == 6400);
  CHECK(ParseContentLength("9999999999999999999", &n));
  CHECK(n == 9999999999999999999u);
  for (const char* bad : {"", "-1", "+1", " 1", "1 ", "0x10", "1e3", "99999999999999999999"})
    CHECK_FALSE(ParseContentLength(bad, &n));
}

TEST_CASE("which requests may leave body bytes behind, and which want to close",
          "[webhook][http]") {
  auto head = [](const std::string& text) {
    httplib::Request req;
    std::string why;
    REQUIRE(ParseHead(text + "\r\n", &req, &why) == 0);
    return req;
  };
  CHECK_FALSE(MayHaveBody(head("GET / HTTP/1.1\r\n")));
  CHECK_FALSE(MayHaveBody(head("POST / HTTP/1.1\r\nContent-Length: 0\r\n")));
  CHECK(MayHaveBody(head("POST / HTTP/1.1\r\n")));
  CHECK(MayHaveBody(head("GET / HTTP/1.1\r\nContent-Length: 3\r\n")));
  CHECK(MayHaveBody(head("GET / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n")));
  CHECK_FALSE(WantsClose(head("GET / HTTP/1.1\r\n")));
  CHECK(WantsClose(head("GET / HTTP/1.1\r\nConnection: Close\r\n")));
  CHECK(WantsClose(head("GET / HTTP/1.0\r\n")));
  CHECK_FALSE(WantsClose(head("GET / HTTP/1.0\r\nConnection: keep-alive\r\n")));
}

TEST_CASE("responses carry their framing, whatever the handler set", "[webhook][http]") {
  httplib::Request get, head;
  get.method = "GET";
  head.method = "HEAD";
  httplib::Response res;
  res.status = 503;
  res.set_content("not ready\n", "text/plain");
  res.set_header("Content-Length", "999");
  res.set_header("Connection", "keep-alive");
  std::string out;
  WriteResponse(get, res, KeepAlive{false, 30, 1000}, &out);
  CHECK(out ==
        "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\n"
        "Keep-Alive: timeout=30, max=1000\r\nContent-Length: 10\r\n\r\nnot ready\n");
  out.clear();
  WriteResponse(head, res, KeepAlive{true, 30, 1000}, &out);
  CHECK(out ==
        "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\n"
        "Connection: close\r\nContent-Length: 10\r\n\r\n");
  out.clear();
  WriteResponse(get, httplib::Response(), KeepAlive{true, 30, 1000}, &out);
  CHECK(out == "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
}

}  // namespace
}  // namespace gpulint
