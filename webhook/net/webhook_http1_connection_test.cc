// The server's HTTP/1.1 layer fed plaintext directly, with no socket and no
// TLS: what it consumes, what it queues, what it asks of the connection, and
// what the handler sees.
#include <catch2/catch.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "webhook/net/http1_connection.h"

namespace gpulint {
namespace {

// Admits every head, or refuses each with a 404 when `admit` is false; records each call.
class RecordingHandler : public HttpHandler {
 public:
  bool admit = true;
  bool throw_in_serve = false;
  bool defer = false;  // answer from "another thread": the test, through `pending`
  std::vector<std::string> admitted_paths;
  std::vector<BodyFraming> framings;
  std::vector<std::string> bodies;
  std::vector<std::string> refused;  // "431 why"
  std::shared_ptr<PendingAnswer> pending;

  bool Admit(const HttpRequest& head, const PeerInfo& peer, const BodyFraming& framing,
             HttpResponse& res) override {
    admitted_paths.push_back(head.path);
    framings.push_back(framing);
    if (!admit) {
      res.status = 404;
      res.SetContent("no\n", "text/plain");
    }
    return admit;
  }
  std::shared_ptr<PendingAnswer> Serve(HttpRequest& req, HttpResponse& res,
                                       const ConnectionWakerPtr& waker) override {
    if (throw_in_serve) throw std::runtime_error("boom");
    bodies.push_back(req.body);
    if (defer) return pending = std::make_shared<PendingAnswer>(waker);
    res.SetContent("got " + req.body + "\n", "text/plain");
    return nullptr;
  }
  void Refused(int status, const std::string& why, const PeerInfo&) override {
    refused.push_back(std::to_string(status) + " " + why);
  }
};

// Counts its wakes, as a loop would drive the connection for each.
class CountingWaker : public ConnectionWaker {
 public:
  void Wake() override { ++wakes; }
  int wakes = 0;
};

const std::string kPostHead =
    "POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n";

struct Fixture {
  Http1Limits limits;
  RecordingHandler handler;
  std::shared_ptr<CountingWaker> waker = std::make_shared<CountingWaker>();
  Http1Connection http{limits, handler, nullptr, waker};
  std::string out;

  ConsumerStep Feed(std::string_view bytes, bool stopping = false) {
    return http.Consume(bytes, stopping, &out);
  }
};

BodyFraming Framing(const std::string& head, uint64_t max = 100) {
  HttpRequest req;
  std::string why;
  REQUIRE(ParseHead(head + "\r\n", &req, &why) == 0);
  return DecideFraming(req, max);
}

TEST_CASE("http1: the body's framing is decided from the head, with the reason",
          "[webhook][http1]") {
  struct Case {
    std::string head;
    int status;
    std::string why;
    uint64_t length;
  } cases[] = {
      {"GET / HTTP/1.1\r\n", 0, "", 0},
      {"HEAD / HTTP/1.1\r\n", 0, "", 0},
      {"POST / HTTP/1.1\r\nContent-Length: 0\r\n", 0, "", 0},
      {"POST / HTTP/1.1\r\nContent-Length: 100\r\n", 0, "", 100},
      {"GET / HTTP/1.1\r\nContent-Length: 3\r\n", 0, "", 3},
      {"POST / HTTP/1.1\r\n", 411, "Content-Length is required", 0},
      {"DELETE / HTTP/1.1\r\n", 411, "Content-Length is required", 0},
      {"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 2\r\n", 411,
       "Transfer-Encoding \"chunked\" is not accepted: send the body with a Content-Length", 0},
      {"POST / HTTP/1.1\r\nContent-Length: 2\r\nContent-Length: 2\r\n", 400,
       "more than one Content-Length header", 0},
      {"POST / HTTP/1.1\r\nContent-Length: -1\r\n", 400, "Content-Length \"-1\" is not a number",
       0},
      {"POST / HTTP/1.1\r\nContent-Length: 0x10\r\n", 400,
       "Content-Length \"0x10\" is not a number", 0},
      {"POST / HTTP/1.1\r\nContent-Length: 101\r\n", 413,
       "request body of 101 bytes is over the limit of 100 bytes", 101},
  };
  for (const Case& c : cases) {
    INFO(c.head);
    BodyFraming f = Framing(c.head);
    CHECK(f.status == c.status);
    CHECK(f.why == c.why);
    CHECK(f.length == c.length);
    CHECK(f.leaves_bytes() == (c.status != 0 || c.length > 0));
  }
}

TEST_CASE("http1: a request in pieces is answered once whole, and the connection kept",
          "[webhook][http1]") {
  Fixture f;
  std::string request = kPostHead + "Content-Length: 2\r\n\r\n{}";
  // Nothing yet: between requests.
  CHECK(f.Feed("").next == ConnectionNext::kAwaitRequest);
  // Half a head: a request is under way, nothing consumed, the handler not called.
  ConsumerStep step = f.Feed(std::string_view(request).substr(0, 20));
  CHECK(step.next == ConnectionNext::kRead);
  CHECK(step.consumed == 0);
  CHECK(f.handler.admitted_paths.empty());
  // The head without its body: admitted, the head consumed, 2 bytes wanted.
  step = f.Feed(std::string_view(request).substr(0, request.size() - 2));
  CHECK(step.next == ConnectionNext::kRead);
  CHECK(step.consumed == request.size() - 2);
  CHECK(step.wanted == 2);
  REQUIRE(f.handler.framings.size() == 1);
  CHECK(f.handler.framings[0].length == 2);
  CHECK(f.out.empty());
  // The body: served and answered.
  step = f.Feed("{}");
  CHECK(step.next == ConnectionNext::kWrite);
  CHECK(step.consumed == 2);
  CHECK(f.handler.bodies == std::vector<std::string>{"{}"});
  CHECK(f.out ==
        "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n"
        "Keep-Alive: timeout=30, max=1000\r\nContent-Length: 7\r\n\r\ngot {}\n");
  // Once it is sent, the connection waits for the next request.
  CHECK(f.Feed("").next == ConnectionNext::kAwaitRequest);
}

TEST_CASE("http1: pipelined requests are taken one at a time", "[webhook][http1]") {
  Fixture f;
  std::string first = kPostHead + "Content-Length: 1\r\n\r\na";
  std::string second = "GET /healthz HTTP/1.1\r\n\r\n";
  std::string both = first + second;
  ConsumerStep step = f.Feed(both);
  CHECK(step.next == ConnectionNext::kWrite);
  CHECK(step.consumed == first.size());
  step = f.Feed(std::string_view(both).substr(step.consumed));
  CHECK(step.next == ConnectionNext::kWrite);
  CHECK(step.consumed == second.size());
  CHECK(f.handler.admitted_paths == std::vector<std::string>{"/validate", "/healthz"});
}

TEST_CASE("http1: Expect: 100-continue gets an interim answer only when the body is not here",
          "[webhook][http1]") {
  Fixture f;
  std::string head = kPostHead + "Expect: 100-continue\r\nContent-Length: 2\r\n\r\n";
  ConsumerStep step = f.Feed(head);
  CHECK(step.next == ConnectionNext::kWrite);
  CHECK(step.consumed == head.size());
  CHECK(f.out == "HTTP/1.1 100 Continue\r\n\r\n");
  f.out.clear();
  step = f.Feed("");
  CHECK(step.next == ConnectionNext::kRead);
  CHECK(step.wanted == 2);
  CHECK(f.Feed("{}").next == ConnectionNext::kWrite);
  CHECK(f.handler.bodies == std::vector<std::string>{"{}"});

  Fixture g;  // the body came with the head: no 100 Continue
  CHECK(g.Feed(head + "{}").next == ConnectionNext::kWrite);
  CHECK(g.out.rfind("HTTP/1.1 200 OK\r\n", 0) == 0);
}

TEST_CASE("http1: a refused framing is refused even when the handler admits it, body unread",
          "[webhook][http1]") {
  Fixture f;
  std::string head = kPostHead + "Content-Length: 99999999\r\nExpect: 100-continue\r\n\r\n";
  ConsumerStep step = f.Feed(head + "{\"partial");
  CHECK(step.next == ConnectionNext::kWrite);
  CHECK(f.handler.framings.at(0).status == 413);
  CHECK(f.handler.bodies.empty());
  CHECK(f.out ==
        "HTTP/1.1 413 Payload Too Large\r\nContent-Type: text/plain; charset=utf-8\r\n"
        "Connection: close\r\nContent-Length: 66\r\n\r\n"
        "request body of 99999999 bytes is over the limit of 3145728 bytes\n");
  // The rest of the body follows unread: drain it, then close.
  CHECK(f.Feed("").next == ConnectionNext::kLinger);
}

TEST_CASE("http1: a handler's refusal closes only when a body may follow", "[webhook][http1]") {
  Fixture f;
  f.handler.admit = false;
  CHECK(f.Feed("GET /nowhere HTTP/1.1\r\n\r\n").next == ConnectionNext::kWrite);
  CHECK(f.out.find("Keep-Alive: timeout=30, max=1000\r\n") != std::string::npos);
  CHECK(f.Feed("").next == ConnectionNext::kAwaitRequest);
  f.out.clear();
  CHECK(f.Feed(kPostHead + "Content-Length: 5\r\n\r\n").next == ConnectionNext::kWrite);
  CHECK(f.out.find("Connection: close\r\n") != std::string::npos);
  CHECK(f.Feed("").next == ConnectionNext::kLinger);
}

TEST_CASE("http1: heads that do not parse or are too long are refused, then lingered",
          "[webhook][http1]") {
  Fixture f;
  f.limits.max_header_bytes = 64;
  Http1Connection small(f.limits, f.handler, nullptr);
  std::string out;
  ConsumerStep step = small.Consume("GET /" + std::string(100, 'a'), false, &out);
  CHECK(step.next == ConnectionNext::kWrite);
  CHECK(out.find("\r\n\r\nrequest line and headers are over the limit of 64 bytes\n") !=
        std::string::npos);
  CHECK(small.Consume("", false, &out).next == ConnectionNext::kLinger);
  // The handler hears of it, for the logs and the counts.
  CHECK(f.handler.refused ==
        std::vector<std::string>{"431 request line and headers are over the limit of 64 bytes"});

  Fixture g;
  CHECK(g.Feed("GARBAGE\r\n\r\n").next == ConnectionNext::kWrite);
  CHECK(g.out.find("400 Bad Request") != std::string::npos);
  CHECK(g.handler.admitted_paths.empty());
  CHECK(g.Feed("").next == ConnectionNext::kLinger);
  CHECK(g.handler.refused ==
        std::vector<std::string>{"400 malformed request line: expected METHOD TARGET HTTP/1.1"});
}

TEST_CASE("http1: an answer worked out elsewhere is sent when it is ready, and only then",
          "[webhook][http1]") {
  Fixture f;
  f.handler.defer = true;
  std::string request = kPostHead + "Content-Length: 2\r\n\r\n{}";
  std::string next = "GET /healthz HTTP/1.1\r\n\r\n";
  ConsumerStep step = f.Feed(request + next);
  // The request is the handler's: consumed whole, nothing sent, nothing more read.
  CHECK(step.next == ConnectionNext::kPending);
  CHECK(step.consumed == request.size());
  CHECK(f.out.empty());
  REQUIRE(f.handler.pending);
  // Woken before the answer is there (or by mistake): still waiting.
  step = f.Feed(next);
  CHECK(step.next == ConnectionNext::kPending);
  CHECK(step.consumed == 0);
  CHECK(f.handler.admitted_paths == std::vector<std::string>{"/validate"});
  // Completed: the connection is woken and sends it, then takes the next request.
  HttpResponse res;
  res.SetContent("judged\n", "text/plain");
  f.handler.pending->Complete(res);
  CHECK(f.waker->wakes == 1);
  step = f.Feed(next);
  CHECK(step.next == ConnectionNext::kWrite);
  CHECK(step.consumed == 0);
  CHECK(f.out.find("\r\n\r\njudged\n") != std::string::npos);
  f.handler.defer = false;
  step = f.Feed(next);
  CHECK(step.next == ConnectionNext::kWrite);
  CHECK(step.consumed == next.size());
  CHECK(f.handler.admitted_paths == std::vector<std::string>{"/validate", "/healthz"});
}

TEST_CASE("http1: a connection that goes first abandons the answer it waited for",
          "[webhook][http1]") {
  RecordingHandler handler;
  handler.defer = true;
  Http1Limits limits;
  {
    Http1Connection http(limits, handler, nullptr, std::make_shared<CountingWaker>());
    std::string out;
    CHECK(http.Consume(kPostHead + "Content-Length: 2\r\n\r\n{}", false, &out).next ==
          ConnectionNext::kPending);
    CHECK_FALSE(handler.pending->abandoned());
  }
  CHECK(handler.pending->abandoned());
  handler.pending->Complete(HttpResponse());  // nobody is there: no harm
}

TEST_CASE("http1: no room to buffer a request is 503, and the connection lingers",
          "[webhook][http1]") {
  Fixture f;
  CHECK(f.Feed(kPostHead + "Content-Length: 100\r\n\r\n{\"a").next == ConnectionNext::kRead);
  std::string out;
  ConsumerStep step = f.http.OutOfBuffer(false, &out);
  CHECK(step.next == ConnectionNext::kWrite);
  CHECK(out.rfind("HTTP/1.1 503 Service Unavailable\r\n", 0) == 0);
  CHECK(out.find("Retry-After: 1\r\n") != std::string::npos);
  CHECK(out.find("Connection: close\r\n") != std::string::npos);
  CHECK(out.find("\r\n\r\nserver busy: it holds as many bytes of requests as it may "
                 "(--max-buffered-bytes); try again\n") != std::string::npos);
  CHECK(f.handler.bodies.empty());
  CHECK(f.handler.refused.size() == 1);
  CHECK(f.Feed("").next == ConnectionNext::kLinger);
}

TEST_CASE("http1: Connection: close, a stopping server and the request budget end the connection",
          "[webhook][http1]") {
  Fixture close;
  CHECK(close.Feed("GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n").next ==
        ConnectionNext::kWrite);
  CHECK(close.out.find("Connection: close\r\n") != std::string::npos);
  CHECK(close.Feed("").next == ConnectionNext::kClose);

  Fixture stopping;
  CHECK(stopping.Feed("GET /healthz HTTP/1.1\r\n\r\n", true).next == ConnectionNext::kWrite);
  CHECK(stopping.out.find("Connection: close\r\n") != std::string::npos);
  CHECK(stopping.Feed("", true).next == ConnectionNext::kClose);

  Fixture budget;
  budget.limits.keep_alive_requests = 2;
  Http1Connection http(budget.limits, budget.handler, nullptr);
  std::string out;
  CHECK(http.Consume("GET /a HTTP/1.1\r\n\r\n", false, &out).next == ConnectionNext::kWrite);
  CHECK(out.find("Keep-Alive: timeout=30, max=2\r\n") != std::string::npos);
  out.clear();
  CHECK(http.Consume("GET /b HTTP/1.1\r\n\r\n", false, &out).next == ConnectionNext::kWrite);
  CHECK(out.find("Connection: close\r\n") != std::string::npos);
  CHECK(http.Consume("", false, &out).next == ConnectionNext::kClose);
}

TEST_CASE("http1: a handler that throws gets 500 and the connection goes on", "[webhook][http1]") {
  Fixture f;
  f.handler.throw_in_serve = true;
  CHECK(f.Feed(kPostHead + "Content-Length: 2\r\n\r\n{}").next == ConnectionNext::kWrite);
  CHECK(f.out.rfind("HTTP/1.1 500 Internal Server Error\r\n", 0) == 0);
  CHECK(f.out.find("\r\n\r\ninternal error\n") != std::string::npos);
  CHECK(f.Feed("").next == ConnectionNext::kAwaitRequest);
}

}  // namespace
}  // namespace gpulint
