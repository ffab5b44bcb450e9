// The webhook's limits over real HTTPS (docs/webhook.md, "Limits and
// security"): each refusal answered as it says, logged as "refused" with its
// reason, and counted in gpulint_webhook_refusals_total; probes answered
// while reviews are judged; the server serving on afterwards.
#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "tests/webhook_test_support.h"

namespace gpulint::webhook_test {
namespace {

// What /metrics says of `series` now (GET over HTTPS, so the gauges are fresh).
std::string LiveMetric(TestServer& s, const std::string& series) {
  auto res = s.Client()->Get("/metrics");
  if (!res || res->status != 200) return "no answer";
  std::istringstream in(res->body);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(series + " ", 0) == 0) return line.substr(series.size() + 1);
  return {};
}

// Counted at once, so read in the process: a probe would need a connection.
std::string Refusals(TestServer& s, const std::string& reason) {
  return Metric(s.server(), "gpulint_webhook_refusals_total{reason=\"" + reason + "\"}");
}

// The "refused" log lines of one reason.
std::vector<Json> RefusedLines(TestServer& s, const std::string& reason) {
  std::vector<Json> out;
  for (const Json& line : s.log().Messages("refused"))
    if (line.value("reason", "") == reason) out.push_back(line);
  return out;
}

std::string Review(const std::string& object) {
  return R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u-1",)"
         R"("kind":{"group":"","version":"v1","kind":"Pod"},"operation":"CREATE","namespace":"t",)"
         R"("object":)" +
         object + "}}";
}

// A Pod of `vars` environment variables: a large review judged in full.
std::string LargeReview(size_t vars) {
  std::string env;
  for (size_t i = 0; i < vars; ++i)
    env += (i ? "," : "") + std::string(R"({"name":"E)") + std::to_string(i) + R"(","value":"v"})";
  return Review(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"t"},)"
                R"("spec":{"containers":[{"name":"c","image":"busybox","env":[)" +
                env + R"(],"resources":{"limits":{"memory":"1Gi"}}}]}})");
}

const std::string kSmallReview = Review(
    R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"t"},)"
    R"("spec":{"containers":[{"name":"c","image":"busybox"}]}})");

TEST_CASE("limits: a value bomb is refused over its budget, and the server serves on",
          "[webhook][limits]") {
  TestServer s;
  std::string zeros;
  for (size_t i = 0; i < 1000000; ++i) zeros += i ? ",0" : "0";
  auto res = s.Client()->Post("/validate", Review(R"({"x":[)" + zeros + "]}"), "application/json");
  REQUIRE(res);
  CHECK(res->status == 400);
  CHECK_THAT(res->body, Catch::StartsWith("request body is too costly to judge: the tree would "
                                          "take more than "));
  CHECK_THAT(res->body, Catch::Contains(" bytes, at /request/object/x/"));
  CHECK_THAT(res->body, Catch::Contains("(the budget is 12 times the body's "));
  CHECK(Refusals(s, "over_budget") == "1");
  std::vector<Json> lines = RefusedLines(s, "over_budget");
  REQUIRE(lines.size() == 1);
  CHECK(lines[0]["http_status"] == 400);
  CHECK(lines[0]["path"] == "/validate");
  CHECK_THAT(lines[0]["detail"].get<std::string>(), Catch::Contains("too costly to judge"));
  // The decision's own line says why, too.
  std::vector<Json> decisions = s.log().Messages("admission");
  REQUIRE(decisions.size() == 1);
  CHECK(decisions[0]["decision"] == "invalid");
  // A sound review right after.
  Json ok = s.Review("validate", kSmallReview);
  CHECK(ok["response"]["uid"] == "u-1");
}

TEST_CASE("limits: the same large review within its budget is judged, and refused without one",
          "[webhook][limits]") {
  std::string large = LargeReview(20000);  // ~600 KB
  {
    TestServer s;
    Json review = s.Review("validate", large);
    CHECK(review["response"]["allowed"] == true);
  }
  TestServer tight([](ServerOptions& o, const TempDir&) { o.parse_budget = 1; });
  auto res = tight.Client()->Post("/validate", large, "application/json");
  REQUIRE(res);
  CHECK(res->status == 400);
  CHECK_THAT(res->body, Catch::Contains("(the budget is 1 times the body's"));
}

TEST_CASE("limits: probes are answered while reviews are judged, and a full pool sheds",
          "[webhook][limits]") {
  // One loop, one worker, one review in flight: were reviews judged on the
  // loop, no probe could be answered while one ran.
  TestServer s([](ServerOptions& o, const TempDir&) {
    o.workers = 1;
    o.review_workers = 1;
    o.max_reviews_in_flight = 1;
  });
  std::string large = LargeReview(30000);  // ~900 KB, judged in full
  std::atomic<bool> stop{false};
  std::atomic<int> ok{0}, shed{0}, other{0};
  std::vector<std::thread> clients;
  for (int i = 0; i < 4; ++i) {
    clients.emplace_back([&] {
      auto client = s.Client();
      while (!stop) {
        auto res = client->Post("/validate", large, "application/json");
        if (res && res->status == 200) {
          ++ok;
        } else if (res && res->status == 503 && res->get_header_value("Retry-After") == "1" &&
                   res->body == "server busy: 1 reviews are waiting or being judged, its limit "
                                "(--max-reviews-in-flight); try again\n") {
          ++shed;
        } else {
          ++other;
        }
      }
    });
  }
  // A probe answered while a review is in flight, seen by the probe itself.
  bool seen = Eventually([&] { return LiveMetric(s, "gpulint_webhook_reviews_in_flight") == "1"; });
  auto ready = s.Client()->Get("/readyz");
  // And the pool full: some were shed.
  bool shedding = Eventually([&] { return shed > 0 && ok > 0; });
  stop = true;
  for (std::thread& t : clients) t.join();
  CHECK(seen);
  REQUIRE(ready);
  CHECK(ready->status == 200);
  CHECK(shedding);
  CHECK(other == 0);
  CHECK(Refusals(s, "shed") == std::to_string(shed.load()));
  // A worker counts itself free just after its answer goes.
  CHECK(Eventually([&] { return s.server().reviews_in_flight() == 0; }));
}

TEST_CASE("limits: a slow client is cut at the read timeout, logged with its address",
          "[webhook][limits]") {
  TestServer s([](ServerOptions& o, const TempDir&) { o.read_timeout_seconds = 1; });
  RawTls raw(s.port(), s.ca_file());
  REQUIRE(raw.ok());
  std::string head = "POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     "Content-Length: 3000000\r\n\r\n";
  REQUIRE(raw.Send(head + std::string(45, ' ')));
  // What it sent is all it holds: no reservation for the 3 MB it announced.
  CHECK(Eventually([&] { return s.server().buffered_bytes() > 0; }));
  CHECK(s.server().buffered_bytes() < 4096);
  CHECK(raw.ClosedByPeer());
  REQUIRE(Eventually([&] { return Refusals(s, "slow_client") == "1"; }));
  std::vector<Json> lines = RefusedLines(s, "slow_client");
  REQUIRE(lines.size() == 1);
  CHECK(lines[0]["detail"] == "request not sent whole within 1 s");
  CHECK(lines[0]["bytes_read"] == 45);
  CHECK_THAT(lines[0]["client"].get<std::string>(), Catch::StartsWith("127.0.0.1:"));
  CHECK(Eventually([&] { return s.server().buffered_bytes() == 0; }));
}

TEST_CASE("limits: connections past the limit are closed at once, and counted",
          "[webhook][limits]") {
  TestServer s([](ServerOptions& o, const TempDir&) { o.max_connections = 2; });
  auto first = std::make_unique<RawTls>(s.port(), s.ca_file());
  RawTls second(s.port(), s.ca_file());
  REQUIRE(first->ok());
  REQUIRE(second.ok());
  RawTls third(s.port(), s.ca_file());
  CHECK_FALSE(third.ok());
  CHECK(Refusals(s, "connections") == "1");
  std::vector<Json> lines = RefusedLines(s, "connections");
  REQUIRE(lines.size() == 1);
  CHECK(lines[0]["detail"] ==
        "connections at their limit of 2 (--max-connections): a new one is closed at once");
  // Once one goes, another may come.
  first.reset();
  CHECK(Eventually([&] { return RawTls(s.port(), s.ca_file()).ok(); }));
}

TEST_CASE("limits: no room left to buffer a body is 503, and small reviews go on",
          "[webhook][limits]") {
  TestServer s([](ServerOptions& o, const TempDir&) { o.max_buffered_bytes = 64 * 1024; });
  auto res = s.Client()->Post("/validate", LargeReview(5000), "application/json");  // ~150 KB
  REQUIRE(res);
  CHECK(res->status == 503);
  CHECK(res->get_header_value("Retry-After") == "1");
  CHECK(res->body ==
        "server busy: it holds as many bytes of requests as it may (--max-buffered-bytes); "
        "try again\n");
  CHECK(RefusedLines(s, "shed").size() == 1);
  Json ok = s.Review("validate", kSmallReview);
  CHECK(ok["response"]["allowed"] == true);
}

TEST_CASE("limits: a body over the limit and a head over 64 KiB are oversize", "[webhook][limits]") {
  TestServer s([](ServerOptions& o, const TempDir&) { o.max_body_bytes = 4096; });
  auto res = s.Client()->Post("/validate", std::string(5000, ' '), "application/json");
  REQUIRE(res);
  CHECK(res->status == 413);
  RawTls raw(s.port(), s.ca_file());
  REQUIRE(raw.Send("GET /healthz HTTP/1.1\r\nX: " + std::string(70000, 'a') + "\r\n\r\n"));
  CHECK(StatusOf(raw.ReadResponse()) == 431);
  CHECK(Refusals(s, "oversize") == "2");
  std::vector<Json> lines = RefusedLines(s, "oversize");
  REQUIRE(!lines.empty());  // the second is logged only when it came a second later
  CHECK(lines[0]["http_status"] == 413);
  CHECK(lines[0]["detail"] == "request body of 5000 bytes is over the limit of 4096 bytes");
}

}  // namespace
}  // namespace gpulint::webhook_test
