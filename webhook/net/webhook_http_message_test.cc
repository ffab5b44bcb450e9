// HTTP/1.1 framing rules of the webhook's server, on plain strings.
#include <catch2/catch.hpp>

#include "webhook/net/http_message.h"

namespace gpulint {
namespace {

TEST_CASE("a head is parsed into method, path, version and headers", "[webhook][http]") {
  HttpRequest req;
  std::string why;
  REQUIRE(ParseHead("POST /val%69date?timeout=10s HTTP/1.1\r\nHost: x\r\n"
                    "Content-Type:  application/json \r\nX-Empty:\r\nx-two: a\r\nX-Two: b\r\n\r\n",
                    &req, &why) == 0);
  CHECK(req.method == "POST");
  CHECK(req.target == "/val%69date?timeout=10s");
  CHECK(req.path == "/validate");
  CHECK(req.version == "HTTP/1.1");
  CHECK(req.headers.Get("content-type") == "application/json");
  CHECK(req.headers.Has("X-Empty"));
  CHECK(req.headers.Get("X-Empty").empty());
  CHECK(req.headers.Count("X-Two") == 2);
  CHECK(req.headers.Get("X-TWO", 1) == "b");
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
    HttpRequest req;
    std::string why;
    CHECK(ParseHead(c.head, &req, &why) == c.status);
    CHECK(why == c.why);
  }
}

TEST_CASE("which requests may leave body bytes behind, and which want to close",
          "[webhook][http]") {
  auto head = [](const std::string& text) {
    HttpRequest req;
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
  // Connection is a list (RFC 9110, 7.6.1).
  CHECK(WantsClose(head("GET / HTTP/1.1\r\nConnection: TE, close\r\n")));
  CHECK(WantsClose(head("GET / HTTP/1.0\r\n")));
  CHECK_FALSE(WantsClose(head("GET / HTTP/1.0\r\nConnection: keep-alive\r\n")));
}

TEST_CASE("responses carry their framing, whatever the handler set", "[webhook][http]") {
  HttpRequest get, head;
  get.method = "GET";
  head.method = "HEAD";
  HttpResponse res;
  res.status = 503;
  res.SetContent("not ready\n", "text/plain");
  res.headers.Add("Content-Length", "999");
  res.headers.Add("connection", "keep-alive");
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
  WriteResponse(get, HttpResponse(), KeepAlive{true, 30, 1000}, &out);
  CHECK(out == "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
}

}  // namespace
}  // namespace gpulint
