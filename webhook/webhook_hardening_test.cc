// Hostile and broken clients, each sent for real over HTTPS: the server
// refuses them with the right status, never reads what it refuses, and keeps
// serving the next caller.
#include <netinet/tcp.h>

#include <catch2/catch.hpp>

#include "tests/webhook_test_support.h"

namespace gpulint::webhook_test {
namespace {

// The server still answers a real review correctly.
void StillServes(TestServer& s) {
  Json sent = Json::parse(Capture(16));
  Json answer = s.Review("validate", sent.dump());
  CHECK(answer["response"]["uid"] == sent["request"]["uid"]);
  CHECK(answer["response"]["allowed"] == false);
}

TEST_CASE("a body announced over 3 MiB gets 413 before any of it is read",
          "[webhook][hardening]") {
  TestServer s;
  for (const char* expect : {"", "Expect: 100-continue\r\n"}) {
    INFO(expect);
    RawTls c(s.port(), s.ca_file());
    REQUIRE(c.ok());
    // Headers only: a server that waited for the 64 MiB body would never answer.
    REQUIRE(c.Send(std::string("POST /validate HTTP/1.1\r\nHost: x\r\n") + expect +
                   "Content-Type: application/json\r\nContent-Length: 67108864\r\n\r\n"));
    std::string response = c.ReadResponse();
    CHECK(StatusOf(response) == 413);
    CHECK(BodyOf(response) == "request body of 67108864 bytes is over the limit of 3145728 bytes\n");
    CHECK_THAT(response, Catch::Contains("Connection: close"));
    CHECK_THAT(response, !Catch::Contains("100 Continue"));
    // The connection is over: a request sent after the refusal gets no answer
    // (were it kept open, the body would be parsed as the next request).
    c.Send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
    CHECK(c.ReadResponse().empty());
  }
  StillServes(s);
  CHECK(Metric(s.server(), R"(gpulint_webhook_http_rejections_total{path="/validate",code="413"})") ==
        "2");
}

TEST_CASE("a review of 2 MiB is read whole and judged", "[webhook][hardening]") {
  TestServer s;
  Json sent = Json::parse(Capture(16));
  sent["request"]["object"]["metadata"]["annotations"]["big"] = std::string(2 << 20, 'x');
  Json answer = s.Review("validate", sent.dump());
  CHECK(answer["response"]["uid"] == sent["request"]["uid"]);
  CHECK(answer["response"]["allowed"] == false);
}

TEST_CASE("a body just under the limit is read, one byte over is refused", "[webhook][hardening]") {
  TestServer s([](ServerOptions& o, const TempDir&) { o.max_body_bytes = 4096; });
  std::string body = Capture(16);
  REQUIRE(body.size() < 4096);
  auto client = s.Client();
  auto ok = client->Post("/validate", body, "application/json");
  REQUIRE(ok);
  CHECK(ok->status == 200);
  std::string big = body + std::string(4097 - body.size(), ' ');
  auto refused = client->Post("/validate", big, "application/json");
  REQUIRE(refused);
  CHECK(refused->status == 413);
}

TEST_CASE("bodies that are chunked or compressed or mistyped are refused", "[webhook][hardening]") {
  TestServer s;
  auto client = s.Client();
  std::string body = Capture(16);

  SECTION("Transfer-Encoding: chunked gets 411") {
    auto res = client->Post(
        "/validate",
        [&](size_t offset, httplib::DataSink& sink) {
          sink.write(body.data(), body.size());
          sink.done();
          return true;
        },
        "application/json");
    REQUIRE(res);
    CHECK(res->status == 411);
    CHECK(res->body ==
          "Transfer-Encoding \"chunked\" is not accepted: send the body with a Content-Length\n");
  }
  SECTION("Content-Encoding: gzip gets 415, whatever the body") {
    httplib::Headers headers = {{"Content-Encoding", "gzip"}};
    auto res = client->Post("/validate", headers, body, "application/json");
    REQUIRE(res);
    CHECK(res->status == 415);
    CHECK(res->body == "Content-Encoding \"gzip\" is not accepted: send the body uncompressed\n");
  }
  SECTION("Content-Encoding: identity is plain") {
    httplib::Headers headers = {{"Content-Encoding", "identity"}};
    auto res = client->Post("/validate", headers, body, "application/json");
    REQUIRE(res);
    CHECK(res->status == 200);
  }
  SECTION("a content type other than JSON gets 415") {
    auto res = client->Post("/validate", body, "application/x-www-form-urlencoded");
    REQUIRE(res);
    CHECK(res->status == 415);
    CHECK(res->body ==
          "Content-Type must be application/json, not \"application/x-www-form-urlencoded\"\n");
    auto charset = client->Post("/mutate", body, "Application/JSON; charset=utf-8");
    REQUIRE(charset);
    CHECK(charset->status == 200);
  }
  SECTION("an empty body gets 400") {
    auto res = client->Post("/validate", "", "application/json");
    REQUIRE(res);
    CHECK(res->status == 400);
    CHECK(res->body == "request body is empty: expected an AdmissionReview\n");
  }
  StillServes(s);
}

TEST_CASE("requests that cannot be framed are refused and their connection closed",
          "[webhook][hardening]") {
  TestServer s;
  struct Case {
    std::string request;
    int status;
    std::string body;
  } cases[] = {
      {"POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\r\n{}", 411,
       "Content-Length is required\n"},
      {"POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
       "Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}",
       400, "more than one Content-Length header\n"},
      {"POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
       "Content-Length: -1\r\n\r\n{}",
       400, "Content-Length \"-1\" is not a number\n"},
  };
  for (const Case& c : cases) {
    INFO(c.request);
    RawTls conn(s.port(), s.ca_file());
    REQUIRE(conn.ok());
    REQUIRE(conn.Send(c.request));
    std::string response = conn.ReadResponse();
    CHECK(StatusOf(response) == c.status);
    CHECK(BodyOf(response) == c.body);
    conn.Send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
    CHECK(conn.ReadResponse().empty());
  }
  StillServes(s);
}

TEST_CASE("endless request lines and headers are cut off at 64 KiB", "[webhook][hardening]") {
  TestServer s;
  for (std::string head : {"GET /" + std::string(1 << 20, 'a'),
                           "POST /validate HTTP/1.1\r\nX-Big: " + std::string(1 << 20, 'b')}) {
    RawTls c(s.port(), s.ca_file());
    REQUIRE(c.ok());
    c.Send(head);  // may fail half way: the server stops reading and closes
    std::string response = c.ReadResponse();
    // Either no answer at all or a 4xx, and then the end of the connection.
    CHECK((response.empty() || (StatusOf(response) >= 400 && StatusOf(response) < 500)));
    CHECK(c.ClosedByPeer());
  }
  StillServes(s);
}

TEST_CASE("deep nesting and a missing uid get 400 over HTTPS while object null on DELETE passes", "[webhook][hardening]") {
  TestServer s;
  auto client = s.Client();
  std::string deep = R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","object":)" +
                     std::string(100000, '[');
  auto res = client->Post("/validate", deep, "application/json");
  REQUIRE(res);
  CHECK(res->status == 400);
  CHECK_THAT(res->body, Catch::StartsWith("request body is not valid JSON: "));

  Json no_uid = Json::parse(Capture(16));
  no_uid["request"].erase("uid");
  res = client->Post("/validate", no_uid.dump(), "application/json");
  REQUIRE(res);
  CHECK(res->status == 400);
  CHECK(res->body == "request.uid is missing\n");

  Json deleted = Json::parse(Capture(16));
  deleted["request"]["operation"] = "DELETE";
  deleted["request"]["oldObject"] = deleted["request"]["object"];
  deleted["request"]["object"] = nullptr;
  for (const char* endpoint : {"validate", "mutate"}) {
    Json answer = s.Review(endpoint, deleted.dump());
    CHECK(answer["response"] == Json{{"uid", deleted["request"]["uid"]}, {"allowed", true}});
  }

  Json created = deleted;
  created["request"]["operation"] = "CREATE";
  Json denied = s.Review("validate", created.dump());
  CHECK(denied["response"]["allowed"] == false);
  CHECK(denied["response"]["status"]["message"] ==
        "gpulint could not evaluate this request: request.object is missing on CREATE");
}

TEST_CASE("wrong methods and paths", "[webhook][hardening]") {
  TestServer s;
  auto client = s.Client();
  auto get = client->Get("/validate");
  REQUIRE(get);
  CHECK(get->status == 405);
  CHECK(get->get_header_value("Allow") == "POST");
  CHECK(get->body == "method \"GET\" is not allowed on /validate: use POST\n");
  auto put = client->Put("/healthz", "x", "text/plain");
  REQUIRE(put);
  CHECK(put->status == 405);
  CHECK(put->get_header_value("Allow") == "GET, HEAD");
  for (const char* path : {"/admission", "/validate/enforce", "/validate/", "/mutate/deny/x",
                           "/admit/x", "/validatex"}) {
    INFO(path);
    auto nowhere = client->Post(path, Capture(16), "application/json");
    REQUIRE(nowhere);
    CHECK(nowhere->status == 404);
    CHECK(nowhere->body ==
          "not found: the endpoints are /validate, /mutate and /admit (each also as /audit, "
          "/warn and /deny below it), /healthz, /readyz and /metrics\n");
  }
  StillServes(s);
}

// Each review path takes a mode; the log line says which.
TEST_CASE("a mode in the path: /validate/warn allows what /validate/deny refuses",
          "[webhook][hardening][mode]") {
  TestServer s;
  Json deny = s.Review("validate/deny", Capture(16))["response"];
  CHECK(deny["allowed"] == false);
  CHECK(s.Review("validate", Capture(16))["response"] == deny);
  Json warn = s.Review("validate/warn", Capture(16))["response"];
  CHECK(warn["allowed"] == true);
  CHECK_THAT(warn["warnings"][0].get<std::string>(), Catch::StartsWith("gpulint would deny: "));
  Json audit = s.Review("validate/audit", Capture(16))["response"];
  CHECK(audit["allowed"] == true);
  CHECK_FALSE(audit.contains("warnings"));
  REQUIRE(Eventually([&] { return s.log().Messages("admission").size() == 4; }));
  std::vector<Json> lines = s.log().Messages("admission");
  CHECK(lines[2]["mode"] == "warn");
  CHECK(lines[2]["decision"] == "would_deny");
  CHECK(lines[3]["mode"] == "audit");
  CHECK(Metric(s.server(), "gpulint_webhook_requests_total{endpoint=\"validate\",operation=\"CREATE\","
                           "kind=\"Pod\",decision=\"would_deny\"}") == "2");
}

TEST_CASE("plain HTTP to the TLS port gets nothing and TLS goes on", "[webhook][hardening]") {
  TestServer s;
  httplib::Client plain("127.0.0.1", s.port());
  plain.set_read_timeout(10);
  auto res = plain.Get("/healthz");
  CHECK_FALSE(res);
  auto tls = s.Client()->Get("/metrics");
  REQUIRE(tls);
  CHECK_THAT(tls->body, Catch::Contains("gpulint_webhook_tls_handshake_failures_total 1\n"));
  StillServes(s);
}

TEST_CASE("a client that stops sending mid-request is dropped at the read timeout",
          "[webhook][hardening]") {
  TestServer s([](ServerOptions& o, const TempDir&) { o.read_timeout_seconds = 1; });
  RawTls c(s.port(), s.ca_file());
  REQUIRE(c.ok());
  REQUIRE(c.Send("POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                 "Content-Length: 100\r\n\r\n{\"apiVersion\":"));
  // The server gives up on the body: a 400 (httplib's answer to a short body)
  // or nothing, then the connection ends.
  std::string response = c.ReadResponse();
  CHECK((response.empty() || StatusOf(response) == 400));
  CHECK(c.ClosedByPeer());
  StillServes(s);
}

TEST_CASE("keep-alive carries hundreds of requests on one connection", "[webhook][hardening]") {
  TestServer s;
  RawTls c(s.port(), s.ca_file());
  REQUIRE(c.ok());
  std::string body = Capture(16);
  for (int i = 0; i < 200; ++i) {
    REQUIRE(c.Send(Post("/validate", "Content-Type: application/json\r\n", body)));
    std::string response = c.ReadResponse();
    REQUIRE(StatusOf(response) == 200);
    if (i == 0) CHECK_THAT(response, Catch::Contains("Keep-Alive: timeout=30, max=1000"));
  }
  // The same connection is still open: nothing closed it after httplib's default of 5.
  REQUIRE(c.Send("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"));
  CHECK_THAT(c.ReadResponse(), Catch::Contains("gpulint_webhook_connections_total 1\n"));
}

TEST_CASE("requests that arrive together, each in its own TLS record, are each answered",
          "[webhook][hardening]") {
  // The server reads ahead: the second record comes in with the first one's
  // read and waits in OpenSSL's buffer, not in the socket, so waiting on the
  // socket for it would wait until the keep-alive timeout.
  TestServer s;
  RawTls c(s.port(), s.ca_file());
  REQUIRE(c.ok());
  int one = 1, zero = 0;
  REQUIRE(setsockopt(c.fd(), IPPROTO_TCP, TCP_CORK, &one, sizeof(one)) == 0);
  REQUIRE(c.Send(Post("/validate", "Content-Type: application/json\r\n", Capture(16))));
  REQUIRE(c.Send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"));
  REQUIRE(setsockopt(c.fd(), IPPROTO_TCP, TCP_CORK, &zero, sizeof(zero)) == 0);
  std::string review = c.ReadResponse();
  CHECK(StatusOf(review) == 200);
  CHECK_THAT(review, Catch::Contains("\"allowed\":false"));
  std::string probe = c.ReadResponse();
  CHECK(StatusOf(probe) == 200);
  CHECK(BodyOf(probe) == "ok\n");
}

TEST_CASE("idle keep-alive connections do not hold a thread", "[webhook][hardening]") {
  TestServer s([](ServerOptions& o, const TempDir&) {
    o.workers = 1;
    o.keep_alive_seconds = 120;  // far beyond what the clients below wait
  });
  std::vector<std::unique_ptr<RawTls>> idle;
  for (int i = 0; i < 50; ++i) {
    idle.push_back(std::make_unique<RawTls>(s.port(), s.ca_file()));
    REQUIRE(idle.back()->ok());
    REQUIRE(idle.back()->Send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"));
    REQUIRE(StatusOf(idle.back()->ReadResponse()) == 200);
  }
  // Fifty connections sit idle on the one thread; a new caller is served...
  RawTls next(s.port(), s.ca_file());
  REQUIRE(next.ok());
  REQUIRE(next.Send(Post("/validate", "Content-Type: application/json\r\n", Capture(16))));
  CHECK(StatusOf(next.ReadResponse()) == 200);
  // ...and every idle one is still open and still served.
  for (auto& c : idle) {
    REQUIRE(c->Send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"));
    CHECK(StatusOf(c->ReadResponse()) == 200);
  }
}

TEST_CASE("clients that stall mid-request do not hold a thread (slowloris)",
          "[webhook][hardening]") {
  TestServer s([](ServerOptions& o, const TempDir&) {
    o.workers = 1;
    o.read_timeout_seconds = 120;  // far beyond what the clients below wait
  });
  RawTls in_head(s.port(), s.ca_file()), in_body(s.port(), s.ca_file());
  REQUIRE(in_head.ok());
  REQUIRE(in_body.ok());
  REQUIRE(in_head.Send("POST /validate HTTP/1.1\r\nHost: x\r\nX-Slow: 1"));
  std::string begun = "{\"kind\":";
  REQUIRE(in_body.Send("POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json"
                       "\r\nContent-Length: 100\r\n\r\n" + begun));
  // Both stall on the one thread's watch; a third caller is served meanwhile.
  RawTls third(s.port(), s.ca_file());
  REQUIRE(third.ok());
  REQUIRE(third.Send(Post("/validate", "Content-Type: application/json\r\n", Capture(16))));
  CHECK(StatusOf(third.ReadResponse()) == 200);
  // The stalled ones were kept, and are answered once they finish.
  REQUIRE(in_head.Send("\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"));
  std::string head_answer = in_head.ReadResponse();
  CHECK(StatusOf(head_answer) == 400);
  CHECK_THAT(BodyOf(head_answer), Catch::StartsWith("apiVersion is missing"));
  REQUIRE(in_body.Send(std::string(100 - begun.size(), ' ')));
  std::string late = in_body.ReadResponse();
  CHECK(StatusOf(late) == 400);
  CHECK_THAT(BodyOf(late), Catch::StartsWith("request body is not valid JSON: "));
}

TEST_CASE("with a client CA reviews need a client certificate and probes do not",
          "[webhook][hardening]") {
  TestCa clients("API server client CA");
  CertPair apiserver = clients.Issue("kube-apiserver", "");
  TestServer s([&](ServerOptions& o, const TempDir& dir) {
    WriteFileAtomic(dir / "client-ca.pem", clients.pem());
    o.tls.client_ca = dir / "client-ca.pem";
  });
  std::string body = Capture(16);

  auto anonymous = s.Client();
  auto probe = anonymous->Get("/healthz");
  REQUIRE(probe);
  CHECK(probe->status == 200);
  auto refused = anonymous->Post("/validate", body, "application/json");
  REQUIRE(refused);
  CHECK(refused->status == 401);
  CHECK(refused->body == "a client certificate signed by the configured client CA is required\n");

  WriteFileAtomic(s.dir() / "client.crt", apiserver.cert_pem);
  WriteFileAtomic(s.dir() / "client.key", apiserver.key_pem);
  httplib::SSLClient signed_client("127.0.0.1", s.port(), s.dir() / "client.crt",
                                   s.dir() / "client.key");
  signed_client.set_ca_cert_path(s.ca_file());
  auto ok = signed_client.Post("/validate", body, "application/json");
  REQUIRE(ok);
  CHECK(ok->status == 200);

  // A certificate from another CA fails the handshake itself.
  CertPair stranger = s.ca().Issue("stranger", "");
  WriteFileAtomic(s.dir() / "stranger.crt", stranger.cert_pem);
  WriteFileAtomic(s.dir() / "stranger.key", stranger.key_pem);
  httplib::SSLClient other("127.0.0.1", s.port(), s.dir() / "stranger.crt",
                           s.dir() / "stranger.key");
  other.set_ca_cert_path(s.ca_file());
  CHECK_FALSE(other.Post("/validate", body, "application/json"));
}

TEST_CASE("server contexts refuse TLS below 1.2 and mismatched pairs", "[webhook][hardening]") {
  TempDir dir;
  TestCa ca("ctx CA");
  CertPair a = ca.Issue("a"), b = ca.Issue("b");
  WriteFileAtomic(dir / "a.crt", a.cert_pem);
  WriteFileAtomic(dir / "a.key", a.key_pem);
  WriteFileAtomic(dir / "b.key", b.key_pem);
  std::string error;
  int64_t not_after = 0;
  SslCtxPtr ctx = MakeServerContext({dir / "a.crt", dir / "a.key", ""}, &error, &not_after);
  REQUIRE(ctx);
  CHECK(SSL_CTX_get_min_proto_version(ctx.get()) == TLS1_2_VERSION);
  CHECK(not_after > std::time(nullptr) + 29L * 24 * 3600);
  CHECK(MakeServerContext({dir / "a.crt", dir / "b.key", ""}, &error, &not_after) == nullptr);
  CHECK(error == dir / "b.key" + ": the private key does not match the certificate in " + dir / "a.crt");
  CHECK(MakeServerContext({dir / "missing.crt", dir / "a.key", ""}, &error, &not_after) == nullptr);
  CHECK_THAT(error, Catch::StartsWith(dir / "missing.crt" + ": cannot load the certificate: "));
}

TEST_CASE("many concurrent connections are all served", "[webhook][hardening]") {
  TestServer s;
  std::string body = Capture(16);
  std::vector<std::unique_ptr<RawTls>> conns;
  for (int i = 0; i < 48; ++i) {
    conns.push_back(std::make_unique<RawTls>(s.port(), s.ca_file()));
    REQUIRE(conns.back()->ok());
  }
  for (auto& c : conns) REQUIRE(c->Send(Post("/validate", "Content-Type: application/json\r\n", body)));
  for (auto& c : conns) CHECK(StatusOf(c->ReadResponse()) == 200);
}

}  // namespace
}  // namespace gpulint::webhook_test
