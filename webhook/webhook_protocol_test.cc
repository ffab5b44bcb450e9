// HTTP/1.1 as the webhook's own server speaks it (webhook/tls_server.h), over
// real HTTPS: interim answers, HEAD, HTTP/1.0, pipelining, the keep-alive
// budget and the heads it refuses.
#include <catch2/catch.hpp>

#include "tests/webhook_test_support.h"

namespace gpulint::webhook_test {
namespace {

std::string Review() { return ReadFile(CapturedReviews()[15]); }  // capture 16

std::string PostHead(size_t length, const std::string& extra = "") {
  return "POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" + extra +
         "Content-Length: " + std::to_string(length) + "\r\n\r\n";
}

TEST_CASE("Expect: 100-continue gets 100 Continue, then the answer to the body",
          "[webhook][protocol]") {
  TestServer s;
  RawTls c(s.port(), s.ca_file());
  REQUIRE(c.ok());
  std::string body = Review();
  REQUIRE(c.Send(PostHead(body.size(), "Expect: 100-continue\r\n")));
  CHECK(c.ReadResponse() == "HTTP/1.1 100 Continue\r\n\r\n");
  REQUIRE(c.Send(body));
  std::string answer = c.ReadResponse();
  CHECK(StatusOf(answer) == 200);
  CHECK_THAT(answer, Catch::Contains("\"allowed\":false"));
}

TEST_CASE("HEAD gets the headers of GET without the body, and the connection goes on",
          "[webhook][protocol]") {
  TestServer s;
  RawTls c(s.port(), s.ca_file());
  REQUIRE(c.ok());
  REQUIRE(c.Send("HEAD /healthz HTTP/1.1\r\nHost: x\r\n\r\n"));
  std::string head = c.ReadResponse(true);
  CHECK(StatusOf(head) == 200);
  CHECK_THAT(head, Catch::Contains("Content-Length: 3\r\n"));
  CHECK(BodyOf(head).empty());
  REQUIRE(c.Send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"));
  CHECK(BodyOf(c.ReadResponse()) == "ok\n");
}

TEST_CASE("HTTP/1.0 and Connection: close are answered, then closed", "[webhook][protocol]") {
  TestServer s;
  for (const char* request : {"GET /healthz HTTP/1.0\r\n\r\n",
                              "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"}) {
    INFO(request);
    RawTls c(s.port(), s.ca_file());
    REQUIRE(c.ok());
    REQUIRE(c.Send(request));
    std::string answer = c.ReadResponse();
    CHECK(StatusOf(answer) == 200);
    CHECK_THAT(answer, Catch::Contains("Connection: close\r\n"));
    CHECK(c.ClosedByPeer());
  }
  RawTls kept(s.port(), s.ca_file());
  REQUIRE(kept.ok());
  REQUIRE(kept.Send("GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"));
  CHECK_THAT(kept.ReadResponse(), Catch::Contains("Keep-Alive: timeout=30, max=1000\r\n"));
  REQUIRE(kept.Send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"));
  CHECK(StatusOf(kept.ReadResponse()) == 200);
}

TEST_CASE("pipelined requests in one write are answered in order", "[webhook][protocol]") {
  TestServer s;
  RawTls c(s.port(), s.ca_file());
  REQUIRE(c.ok());
  std::string body = Review();
  REQUIRE(c.Send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n" + PostHead(body.size()) + body +
                 "GET /nowhere HTTP/1.1\r\nHost: x\r\n\r\n" + "GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n"));
  CHECK(BodyOf(c.ReadResponse()) == "ok\n");
  CHECK_THAT(c.ReadResponse(), Catch::Contains("\"allowed\":false"));
  CHECK(StatusOf(c.ReadResponse()) == 404);
  CHECK(BodyOf(c.ReadResponse()) == "ok\n");
}

TEST_CASE("a long pipeline is answered whole, a few requests per turn", "[webhook][protocol]") {
  TestServer s([](ServerOptions& o, const TempDir&) { o.workers = 1; });
  RawTls c(s.port(), s.ca_file()), other(s.port(), s.ca_file());
  REQUIRE(c.ok());
  REQUIRE(other.ok());
  std::string pipeline;
  for (int i = 0; i < 100; ++i) pipeline += "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n";
  pipeline += "GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n";
  REQUIRE(c.Send(pipeline));
  REQUIRE(other.Send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"));
  CHECK(StatusOf(other.ReadResponse()) == 200);
  for (int i = 0; i < 100; ++i) REQUIRE(BodyOf(c.ReadResponse()) == "ok\n");
  std::string last = c.ReadResponse();
  CHECK(StatusOf(last) == 200);
  CHECK_THAT(last, Catch::Contains("Content-Length: 3\r\n"));
}

TEST_CASE("a connection closes after its keep-alive budget of requests", "[webhook][protocol]") {
  TestServer s([](ServerOptions& o, const TempDir&) { o.keep_alive_requests = 3; });
  RawTls c(s.port(), s.ca_file());
  REQUIRE(c.ok());
  for (int i = 1; i <= 3; ++i) {
    REQUIRE(c.Send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"));
    std::string answer = c.ReadResponse();
    CHECK(StatusOf(answer) == 200);
    CHECK_THAT(answer, Catch::Contains(i < 3 ? "Keep-Alive: timeout=30, max=3\r\n"
                                             : "Connection: close\r\n"));
  }
  CHECK(c.ClosedByPeer());
}

TEST_CASE("heads that do not parse are refused with the reason, and closed",
          "[webhook][protocol]") {
  TestServer s;
  struct Case {
    std::string head;
    int status;
    std::string body;
  } cases[] = {
      {"GARBAGE\r\n\r\n", 400, "malformed request line: expected METHOD TARGET HTTP/1.1\n"},
      {"GET /healthz HTTP/3\r\n\r\n", 505, "HTTP version 3 is not supported: use 1.1\n"},
      {"GET /" + std::string(9000, 'a') + " HTTP/1.1\r\n\r\n", 414,
       "request target of 9001 bytes is over the limit of 8192 bytes\n"},
      {"GET /healthz HTTP/1.1\r\nNo colon here\r\n\r\n", 400,
       "malformed header line 1: expected Name: value\n"},
      {"GET /healthz HTTP/1.1\r\nX: " + std::string(70000, 'x') + "\r\n\r\n", 431,
       "request line and headers are over the limit of 65536 bytes\n"},
  };
  for (const Case& k : cases) {
    INFO(k.head.substr(0, 60));
    RawTls c(s.port(), s.ca_file());
    REQUIRE(c.ok());
    c.Send(k.head);  // the 431 case may be cut off half way
    std::string answer = c.ReadResponse();
    CHECK(StatusOf(answer) == k.status);
    CHECK(BodyOf(answer) == k.body);
    CHECK_THAT(answer, Catch::Contains("Connection: close\r\n"));
    CHECK(c.ClosedByPeer());
  }
  Json sent = Json::parse(Review());
  CHECK(s.Review("validate", sent.dump())["response"]["uid"] == sent["request"]["uid"]);
}

}  // namespace
}  // namespace gpulint::webhook_test
