// Hot reloads (certificate, policy, nodes), readiness and a graceful stop, on
// a live server.
#include <fcntl.h>
#include <sys/resource.h>

#include <catch2/catch.hpp>

#include "tests/webhook_test_support.h"

namespace gpulint::webhook_test {
namespace {

// A Secret volume as kubelet lays it out: files are symlinks through `..data`,
// which is swapped atomically to a new timestamped directory.
class SecretVolume {
 public:
  explicit SecretVolume(std::string dir) : dir_(std::move(dir)) {
    fs::create_directories(dir_);
    fs::create_symlink("..data/tls.crt", dir_ + "/tls.crt");
    fs::create_symlink("..data/tls.key", dir_ + "/tls.key");
  }
  void Publish(const std::string& cert, const std::string& key) {
    std::string version = "..v" + std::to_string(++version_);
    fs::create_directories(dir_ + "/" + version);
    WriteFileAtomic(dir_ + "/" + version + "/tls.crt", cert);
    WriteFileAtomic(dir_ + "/" + version + "/tls.key", key);
    fs::create_symlink(version, dir_ + "/..data_tmp");
    fs::rename(dir_ + "/..data_tmp", dir_ + "/..data");
  }
  std::string cert() const { return dir_ + "/tls.crt"; }
  std::string key() const { return dir_ + "/tls.key"; }

 private:
  std::string dir_;
  int version_ = 0;
};

std::string Reloads(WebhookServer& s, const std::string& what, const std::string& result) {
  return Metric(s, "gpulint_webhook_reloads_total{what=\"" + what + "\",result=\"" + result + "\"}");
}

std::string Get(RawTls& c, const std::string& path) {
  REQUIRE(c.Send("GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n"));
  return c.ReadResponse();
}

TEST_CASE("a new certificate from a Secret's symlink swap serves new connections while old ones live on",
          "[webhook][reload]") {
  TempDir keys;
  TestCa first_ca("first CA"), second_ca("second CA");
  WriteFileAtomic(keys / "first-ca.pem", first_ca.pem());
  WriteFileAtomic(keys / "second-ca.pem", second_ca.pem());
  SecretVolume secret(keys / "secret");
  CertPair first = first_ca.Issue("first");
  secret.Publish(first.cert_pem, first.key_pem);
  TestServer s([&](ServerOptions& o, const TempDir&) {
    o.tls.cert = secret.cert();
    o.tls.key = secret.key();
  });

  RawTls held(s.port(), keys / "first-ca.pem");
  REQUIRE(held.ok());
  CHECK(StatusOf(Get(held, "/healthz")) == 200);

  CertPair second = second_ca.Issue("second");
  secret.Publish(second.cert_pem, second.key_pem);
  REQUIRE(Eventually([&] { return Reloads(s.server(), "certificate", "ok") == "2"; }));

  RawTls fresh(s.port(), keys / "second-ca.pem");
  REQUIRE(fresh.ok());
  CHECK(fresh.PeerName() == "second");
  CHECK_FALSE(RawTls(s.port(), keys / "first-ca.pem").ok());
  // The connection made before the swap goes on with its certificate.
  CHECK(StatusOf(Get(held, "/healthz")) == 200);
  CHECK(held.PeerName() == "first");

  SECTION("a garbage pair is refused, counted, and the last good one keeps serving") {
    secret.Publish("not a certificate\n", second.key_pem);
    REQUIRE(Eventually([&] { return Reloads(s.server(), "certificate", "failed") == "1"; }));
    RawTls after(s.port(), keys / "second-ca.pem");
    REQUIRE(after.ok());
    CHECK(after.PeerName() == "second");
    CHECK(StatusOf(Get(after, "/readyz")) == 200);
    std::vector<Json> refused = s.log().Messages("certificate refused, the last good one keeps serving");
    REQUIRE(refused.size() == 1);
    CHECK_THAT(refused[0]["error"].get<std::string>(),
               Catch::StartsWith(secret.key() + ": the private key does not match") ||
                   Catch::StartsWith(secret.cert() + ": cannot load the certificate"));
  }
}

TEST_CASE("a certificate renamed over the old file is picked up", "[webhook][reload]") {
  TestServer s;
  CertPair renamed = s.ca().Issue("renamed");
  WriteFileAtomic(s.dir() / "tls.key", renamed.key_pem);
  WriteFileAtomic(s.dir() / "tls.crt", renamed.cert_pem);
  REQUIRE(Eventually([&] { return RawTls(s.port(), s.ca_file()).PeerName() == "renamed"; }));
  CHECK(std::stoll(Metric(s.server(), "gpulint_webhook_certificate_expiry_timestamp_seconds")) >
        std::time(nullptr));
}

TEST_CASE("an expired certificate serves, is logged as expired and flagged until one is renewed",
          "[webhook][reload]") {
  TempDir keys;
  TestCa ca("expiry CA");
  CertPair expired = ca.Issue("expired", "DNS:localhost,IP:127.0.0.1", -24 * 3600);
  WriteFileAtomic(keys / "tls.crt", expired.cert_pem);
  WriteFileAtomic(keys / "tls.key", expired.key_pem);
  TestServer s([&](ServerOptions& o, const TempDir&) {
    o.tls.cert = keys / "tls.crt";
    o.tls.key = keys / "tls.key";
  });
  std::vector<Json> logged = s.log().Messages("certificate expired");
  REQUIRE(logged.size() == 1);
  CHECK(logged[0]["level"] == "error");
  CHECK(logged[0]["cert"] == keys / "tls.crt");
  CHECK(logged[0]["not_after"] == s.log().Messages("certificate loaded")[0]["not_after"]);
  int64_t expiry = std::stoll(Metric(s.server(), "gpulint_webhook_certificate_expiry_timestamp_seconds"));
  CHECK(expiry < std::time(nullptr));
  CHECK(Metric(s.server(), "gpulint_webhook_certificate_expired") == "1");
  CHECK(s.server().ready());

  CertPair renewed = ca.Issue("renewed");
  WriteFileAtomic(keys / "tls.key", renewed.key_pem);
  WriteFileAtomic(keys / "tls.crt", renewed.cert_pem);
  REQUIRE(Eventually([&] { return Metric(s.server(), "gpulint_webhook_certificate_expired") == "0"; }));
  CHECK(s.log().Messages("certificate expired").size() == 1);
}

TEST_CASE("a certificate that expires while loaded is logged when it does", "[webhook][reload]") {
  TestServer s([](ServerOptions& o, const TempDir& dir) {
    TestCa ca("short CA");
    CertPair brief = ca.Issue("brief", "DNS:localhost,IP:127.0.0.1", 1);
    WriteFileAtomic(dir / "brief.crt", brief.cert_pem);
    WriteFileAtomic(dir / "brief.key", brief.key_pem);
    o.tls.cert = dir / "brief.crt";
    o.tls.key = dir / "brief.key";
  });
  REQUIRE(Eventually([&] { return s.log().Messages("certificate expired").size() == 1; }));
  CHECK(Metric(s.server(), "gpulint_webhook_certificate_expired") == "1");
}

TEST_CASE("the policy reloads on change, an invalid one is refused and the last good one kept",
          "[webhook][reload]") {
  const std::string strict =
      "apiVersion: gpulint.io/v1alpha1\nkind: Policy\nmetadata: {name: strict}\nspec: {}\n";
  const std::string exempt =
      "apiVersion: gpulint.io/v1alpha1\nkind: Policy\nmetadata: {name: exempt}\n"
      "spec:\n  exemptions:\n    namespaces: [gpu-test]\n";
  TestServer s([&](ServerOptions& o, const TempDir& dir) {
    WriteFileAtomic(dir / "policy.yaml", strict);
    o.policy_file = dir / "policy.yaml";
  });
  std::string denied = Capture(16);
  CHECK(s.Review("validate", denied)["response"]["allowed"] == false);

  WriteFileAtomic(s.dir() / "policy.yaml", exempt);
  REQUIRE(Eventually([&] { return Reloads(s.server(), "policy", "ok") == "2"; }));
  CHECK(s.Review("validate", denied)["response"]["allowed"] == true);

  WriteFileAtomic(s.dir() / "policy.yaml", "apiVersion: gpulint.io/v1alpha1\nkind: Policy\nspec: [\n");
  REQUIRE(Eventually([&] { return Reloads(s.server(), "policy", "failed") == "1"; }));
  CHECK(s.Review("validate", denied)["response"]["allowed"] == true);
  auto ready = s.Client()->Get("/readyz");
  REQUIRE(ready);
  CHECK(ready->status == 200);
  std::vector<Json> refused = s.log().Messages("policy refused, the last good one keeps serving");
  REQUIRE(refused.size() == 1);
  CHECK_THAT(refused[0]["error"].get<std::string>(), Catch::StartsWith(s.dir() / "policy.yaml"));
}

// A policy with several errors: the one line of kubectl's warning names the
// first and counts the rest ('gpulint policy check' lists them all).
TEST_CASE("a policy with two errors: the warning names the first and counts the other",
          "[webhook][reload]") {
  TestServer s([](ServerOptions& o, const TempDir& dir) {
    WriteFileAtomic(dir / "policy.yaml",
                    "apiVersion: gpulint.io/v1alpha1\nkind: Policy\nspce: {}\n"
                    "spec: {mutations: {vram: \"yes\"}}\n");
    o.policy_file = dir / "policy.yaml";
  });
  Json r = s.Review("validate", Capture(16))["response"];
  CHECK(r["allowed"] == true);
  CHECK(r["warnings"] ==
        Json::array({"gpulint is not enforcing, its policy did not load: policy.yaml:3:7: unknown "
                     "field \"spce\" (did you mean \"spec\"?); and 1 more error"}));
}

// A webhook with no valid policy must not leave the cluster unable to create
// pods (failurePolicy Fail refuses every pod when no webhook is ready): it is
// ready, allows every review with a warning that names the problem, and says
// so in its log and metrics, until a policy loads.
TEST_CASE("without a valid policy every review is allowed, with a warning, until one loads",
          "[webhook][reload]") {
  TestServer s([](ServerOptions& o, const TempDir& dir) {
    WriteFileAtomic(dir / "policy.yaml",
                    "apiVersion: gpulint.io/v1alpha1\nkind: Policy\nspec:\n  rules:\n"
                    "    foo: {severity: info}\n");
    o.policy_file = dir / "policy.yaml";
  });
  auto client = s.Client();
  auto ready = client->Get("/readyz");
  REQUIRE(ready);
  CHECK(ready->status == 200);
  CHECK(ready->body == "ok (not enforcing: no valid policy loaded)\n");
  CHECK(Metric(s.server(), "gpulint_webhook_policy_loaded") == "0");
  const std::string warning =
      "gpulint is not enforcing, its policy did not load: policy.yaml:5:10: spec.rules.foo: "
      "unknown rule \"foo\" (rules: parse-error, ";
  for (const char* endpoint : {"validate", "mutate", "validate/deny", "mutate/deny"}) {
    INFO(endpoint);
    Json r = s.Review(endpoint, Capture(16))["response"];  // denied once a policy loads
    CHECK(r["allowed"] == true);
    CHECK_FALSE(r.contains("patch"));
    REQUIRE(r["warnings"].size() == 1);
    CHECK_THAT(r["warnings"][0].get<std::string>(), Catch::StartsWith(warning));
    CHECK(r["warnings"][0].get<std::string>().size() <= kMaxWarningBytes);
  }
  std::vector<Json> refused = s.log().Messages(
      "policy refused, and no valid policy has loaded: every review is allowed, with a warning, "
      "until one does");
  REQUIRE(refused.size() == 1);
  CHECK_THAT(refused[0]["error"].get<std::string>(), Catch::StartsWith(s.dir() / "policy.yaml"));
  REQUIRE(Eventually([&] { return !s.log().Messages("admission").empty(); }));
  CHECK(s.log().Messages("admission").back()["decision"] == "unenforced");

  WriteFileAtomic(s.dir() / "policy.yaml",
                  "apiVersion: gpulint.io/v1alpha1\nkind: Policy\nmetadata: {name: ok}\nspec: {}\n");
  REQUIRE(Eventually([&] { return Metric(s.server(), "gpulint_webhook_policy_loaded") == "1"; }));
  Json r = s.Review("validate", Capture(16))["response"];
  CHECK(r["allowed"] == false);
  CHECK_THAT(r.dump(), !Catch::Contains("not enforcing"));
}

TEST_CASE("not ready until a valid certificate is loaded", "[webhook][reload]") {
  TestServer s([](ServerOptions& o, const TempDir& dir) {
    WriteFileAtomic(dir / "broken.crt", "garbage\n");
    o.tls.cert = dir / "broken.crt";
  });
  CHECK_FALSE(s.server().ready());
  CHECK_FALSE(RawTls(s.port(), s.ca_file()).ok());
  fs::copy_file(s.dir() / "tls.crt", s.dir() / "next.crt");
  fs::rename(s.dir() / "next.crt", s.dir() / "broken.crt");
  REQUIRE(Eventually([&] { return s.server().ready(); }));
  RawTls c(s.port(), s.ca_file());
  REQUIRE(c.ok());
  CHECK(StatusOf(Get(c, "/readyz")) == 200);
}

TEST_CASE("the nodes file feeds the inventory and reloads on change", "[webhook][reload]") {
  TestServer s([](ServerOptions& o, const TempDir& dir) {
    WriteFileAtomic(dir / "nodes.json", ReadFile(AdmissionDir() + "/nodes-list.json"));
    o.nodes_file = dir / "nodes.json";
  });
  CHECK(Metric(s.server(), "gpulint_webhook_inventory_nodes") == "3");
  // 02 selects an H100 node: none of the three matches.
  CHECK_THAT(s.Review("validate", Capture(2)).dump(), Catch::Contains("no-matching-node"));

  WriteFileAtomic(s.dir() / "nodes.json", "{\"kind\":\"NodeList\",\"items\":[{\"spec\":7}]}");
  REQUIRE(Eventually([&] { return Reloads(s.server(), "nodes", "failed") == "1"; }));
  CHECK(Metric(s.server(), "gpulint_webhook_inventory_nodes") == "3");

  WriteFileAtomic(s.dir() / "nodes.json", "{\"kind\":\"NodeList\",\"apiVersion\":\"v1\",\"items\":[]}");
  REQUIRE(Eventually([&] { return Reloads(s.server(), "nodes", "ok") == "2"; }));
  CHECK(Metric(s.server(), "gpulint_webhook_inventory_nodes") == "0");
  CHECK_THAT(s.Review("validate", Capture(2)).dump(), !Catch::Contains("no-matching-node"));
}

TEST_CASE("shutdown turns readiness off at once and lets in-flight requests finish",
          "[webhook][reload]") {
  SECTION("readiness turns false while the drain delay keeps the listener open") {
    TestServer s([](ServerOptions& o, const TempDir&) { o.drain = std::chrono::seconds(2); });
    auto client = s.Client();
    REQUIRE(client->Get("/readyz")->status == 200);
    std::thread stopper([&] { s.server().Shutdown(); });
    REQUIRE(Eventually([&] { return s.server().stopping(); }));
    auto ready = s.Client()->Get("/readyz");
    REQUIRE(ready);
    CHECK(ready->status == 503);
    CHECK(ready->body == "not ready: shutting down\n");
    stopper.join();
    CHECK_FALSE(s.Client()->Get("/healthz"));
  }
  SECTION("a request half sent when the stop begins is answered") {
    TestServer s;
    std::string body = Capture(16);
    RawTls c(s.port(), s.ca_file());
    REQUIRE(c.ok());
    REQUIRE(c.Send("POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                   "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" +
                   body.substr(0, 100)));
    std::thread stopper([&] { s.server().Shutdown(); });
    REQUIRE(Eventually([&] { return s.server().stopping(); }));
    REQUIRE(c.Send(body.substr(100)));
    std::string response = c.ReadResponse();
    CHECK(StatusOf(response) == 200);
    CHECK(Json::parse(BodyOf(response))["response"]["uid"] == Json::parse(body)["request"]["uid"]);
    stopper.join();
    CHECK(s.log().Messages("stopped").size() == 1);
  }
}

TEST_CASE("running out of file descriptors is logged, and so is recovering", "[webhook][reload]") {
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
  // The sanitizers' runtime needs descriptors of its own: UBSan tests that a
  // vptr is readable through a pipe and, with none to be had, reports a valid
  // object as having an invalid vptr. The uninstrumented build runs this.
  WARN("not run under the sanitizers: their runtime needs file descriptors too");
  return;
#endif
#endif
  TestServer s;
  // ctest runs each test case in its own process, so the lowered limit stays here.
  rlimit saved{};
  REQUIRE(getrlimit(RLIMIT_NOFILE, &saved) == 0);
  std::vector<int> held;
  rlimit low = saved;
  low.rlim_cur = 256;
  REQUIRE(setrlimit(RLIMIT_NOFILE, &low) == 0);
  for (int fd; (fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0;) held.push_back(fd);
  REQUIRE(errno == EMFILE);
  REQUIRE(Eventually([&] {
    return !s.log().Messages("out of file descriptors: new connections wait until some close").empty();
  }));
  Json out = s.log().Messages("out of file descriptors: new connections wait until some close")[0];
  CHECK(out["level"] == "error");
  CHECK(out["limit"] == 256);
  for (int fd : held) ::close(fd);
  REQUIRE(Eventually([&] { return !s.log().Messages("file descriptors available again").empty(); }));
  CHECK(s.log().Messages("out of file descriptors: new connections wait until some close").size() == 1);
  RawTls after(s.port(), s.ca_file());
  REQUIRE(after.ok());
  CHECK(StatusOf(Get(after, "/healthz")) == 200);
  REQUIRE(setrlimit(RLIMIT_NOFILE, &saved) == 0);
}

TEST_CASE("/metrics speaks the Prometheus text format", "[webhook][reload]") {
  TestServer s;
  s.Review("validate", Capture(16));
  auto res = s.Client()->Get("/metrics");
  REQUIRE(res);
  CHECK(res->get_header_value("Content-Type") == "text/plain; version=0.0.4; charset=utf-8");
  const std::string& m = res->body;
  CHECK_THAT(m, Catch::Contains("# TYPE gpulint_webhook_requests_total counter\n"));
  CHECK_THAT(m, Catch::Contains(
                    "gpulint_webhook_requests_total{endpoint=\"validate\",operation=\"CREATE\","
                    "kind=\"Pod\",decision=\"denied\"} 1\n"));
  CHECK_THAT(m, Catch::Contains("# TYPE gpulint_webhook_request_duration_seconds histogram\n"));
  CHECK_THAT(m, Catch::Contains(
                    "gpulint_webhook_request_duration_seconds_bucket{endpoint=\"validate\",le=\"+Inf\"} 1\n"));
  CHECK_THAT(m, Catch::Contains(
                    "gpulint_webhook_findings_total{rule=\"gpu-request-limit-mismatch\",severity=\"error\"} 1\n"));
  CHECK_THAT(m, Catch::Contains("gpulint_webhook_reloads_total{what=\"policy\",result=\"failed\"} 0\n"));
  CHECK_THAT(m, Catch::Contains("gpulint_webhook_ready 1\n"));
  CHECK_THAT(m, Catch::Contains("# TYPE gpulint_webhook_certificate_expiry_timestamp_seconds gauge\n"));
}

TEST_CASE("metric label sets are capped against clients that invent kinds", "[webhook][reload]") {
  Metrics m;
  for (size_t i = 0; i < Metrics::kMaxSeries + 50; ++i)
    m.CountRequest("validate", "CREATE", "Kind" + std::to_string(i), "allowed", 0.001);
  std::string text = m.Render();
  CHECK_THAT(text, Catch::Contains(
                       "gpulint_webhook_requests_total{endpoint=\"validate\",operation=\"other\","
                       "kind=\"other\",decision=\"allowed\"} 50\n"));
  CHECK_THAT(text, !Catch::Contains("kind=\"Kind1049\""));
}

}  // namespace
}  // namespace gpulint::webhook_test
