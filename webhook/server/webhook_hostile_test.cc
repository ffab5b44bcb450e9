// Hostile input for the webhook that webhook/webhook_hardening_test.cc and
// webhook/server/webhook_admission_test.cc do not already send (issue 6, item 3): each
// over real HTTPS or through HandleReview, each ending in a well-formed review
// or a 4xx, and after each the server still answers a real review. Time is
// bounded by ctest's TIMEOUT and the sockets' own timeouts.
#include <openssl/ssl.h>
#include <stdio.h>

#include <catch2/catch.hpp>

#include "engine/base/objects.h"
#include "engine/cluster/inventory.h"
#include "engine/engine.h"
#include "engine/policy/policy.h"
#include "engine/yaml/loader.h"
#include "tests/default_snapshot.h"
#include "tests/webhook_test_support.h"
#include "webhook/server/admission.h"

namespace gpulint::webhook_test {
namespace {

constexpr char kJson[] = "Content-Type: application/json\r\n";

// The server still judges a real review: capture 16 is denied.
void StillServes(TestServer& s) {
  Json sent = Json::parse(Capture(16));
  Json answer = s.Review("validate", sent.dump());
  CHECK(answer["response"]["uid"] == sent["request"]["uid"]);
  CHECK(answer["response"]["allowed"] == false);
}

std::string ReviewOf(const Json& object, const std::string& operation = "CREATE") {
  Json request = {{"uid", "hostile-1"}, {"operation", operation}, {"namespace", "ml"},
                  {"object", object}};
  return Json{{"apiVersion", "admission.k8s.io/v1"},
              {"kind", "AdmissionReview"},
              {"request", request}}
      .dump();
}

// The default policy with the incidents' nodes (testdata/nodes/incidents.yaml).
Snapshot IncidentNodesSnapshot() {
  static const Inventory inventory = [] {
    std::vector<NodeClass> nodes;
    std::string path = ::gpulint::testing::SourceDir() + "/testdata/nodes/incidents.yaml";
    Error error;
    REQUIRE(LoadYamlString(ReadFile(path), path, {}, [&](Document&& doc) {
      REQUIRE(doc.ok);
      ForEachObject(doc.root, [&](const Value& node) {
        NodeClass n;
        REQUIRE(NodeClassFromNode(node, path, &n, &error));
        nodes.push_back(std::move(n));
      });
      return true;
    }, &error));
    REQUIRE_FALSE(nodes.empty());
    return BuildInventory(DefaultPolicy(), std::move(nodes));
  }();
  return Snapshot{std::shared_ptr<const Policy>(std::shared_ptr<const Policy>(), &DefaultPolicy()),
                  std::shared_ptr<const Inventory>(std::shared_ptr<const Inventory>(), &inventory)};
}

// The review's response, which must be HTTP 200 with the request's uid.
Json Judged(Endpoint endpoint, const std::string& body,
            const Snapshot& snapshot = DefaultSnapshot()) {
  ReviewResult r = HandleReview(endpoint, body, snapshot);
  INFO(r.body);
  REQUIRE(r.http_status == 200);
  Json response = Json::parse(r.body).at("response");
  REQUIRE(response.at("uid") == "hostile-1");
  return response;
}

std::string Refused(const std::string& body) {
  ReviewResult r = HandleReview(Endpoint::kValidate, body, DefaultSnapshot());
  CHECK(r.http_status == 400);
  CHECK(r.content_type == "text/plain; charset=utf-8");
  return r.body;
}

Json GpuContainer(const std::string& name, Json limits) {
  return {{"name", name},
          {"image", "nvcr.io/nvidia/pytorch:24.05-py3"},
          {"resources", {{"limits", limits}, {"requests", limits}}}};
}

Json Pod(Json spec) {
  return {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", {{"name", "p"}}}, {"spec", spec}};
}

// ---- bodies that are not reviews ----------------------------------------

TEST_CASE("webhook hostile: null, scalars and broken text are 400s", "[webhook][hostile]") {
  for (const char* body : {"null", "42", "\"review\"", "true", "1e999999"}) {
    INFO(body);
    CHECK(Refused(body).find("request body is not") == 0);
  }
  CHECK(Refused("null") == "request body is not a JSON object\n");
  CHECK(Refused("\"review\"") == "request body is not a JSON object\n");
  std::string head = R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":)";
  // Invalid UTF-8, a lone surrogate, a raw NUL: the JSON parser refuses each.
  for (std::string uid : {std::string("\"\xC3\x28\""), std::string("\"\\ud800\""),
                          std::string("\"a\0b\"", 5)}) {
    INFO(uid);
    CHECK(Refused(head + uid + "}}").find("request body is not valid JSON: ") == 0);
  }
}

TEST_CASE("webhook hostile: NUL and odd characters in keys are judged, not fatal",
          "[webhook][hostile]") {
  Json pod = Pod({{"containers", Json::array({GpuContainer("c", {{"nvidia.com/gpu", "1"},
                                                                  {"memory", "8Gi"}})})}});
  pod["metadata"]["labels"] = {{std::string("a\0b", 3), "x"}, {"x/y~z", "1"}, {"", "empty"}};
  pod["metadata"]["annotations"] = {{std::string("\0", 1), std::string("\0", 1)}};
  Json v = Judged(Endpoint::kValidate, ReviewOf(pod));
  CHECK(v.at("allowed") == true);
  Json m = Judged(Endpoint::kMutate, ReviewOf(pod));
  REQUIRE(m.contains("patch"));
  // The patch applies to the object as sent (nlohmann's RFC 6902, not ours).
  CHECK_NOTHROW(pod.patch(Json::parse(DecodeBase64(m.at("patch").get<std::string>()))));
}

// ---- quantities ----------------------------------------------------------

TEST_CASE("webhook hostile: quantities no API server would store are denied by name",
          "[webhook][hostile]") {
  struct Case {
    Json value;
    const char* rule;  // expected in the denial
  };
  const Case cases[] = {
      {"1.5", "gpu-fractional"},
      {"-1", "quantity-invalid"},
      {"0x10", "quantity-invalid"},  // a JSON string: ParseQuantity refuses it
      {"", "quantity-invalid"},
  };
  for (const Case& c : cases) {
    INFO(c.value.dump());
    Json pod = Pod({{"containers", Json::array({GpuContainer(
                                       "c", {{"nvidia.com/gpu", c.value}, {"memory", "8Gi"}})})}});
    Json v = Judged(Endpoint::kValidate, ReviewOf(pod));
    CHECK(v.at("allowed") == false);
    CHECK_THAT(v.at("status").at("message").get<std::string>(), Catch::Contains(c.rule));
  }
  // 1e3 is a thousand GPUs: whole, and allowed when requests equal limits.
  Json pod = Pod({{"containers", Json::array({GpuContainer(
                                     "c", {{"nvidia.com/gpu", "1e3"}, {"memory", "8Gi"}})})}});
  CHECK(Judged(Endpoint::kValidate, ReviewOf(pod)).at("allowed") == true);

  // Capped at 2^63-1 as Kubernetes caps it: valid, and fits on no node.
  Json huge = Pod({{"containers", Json::array({GpuContainer(
                                      "c", {{"nvidia.com/gpu", "9223372036854775807Ti"},
                                            {"memory", "9223372036854775807Ti"}})})}});
  Json v = Judged(Endpoint::kValidate, ReviewOf(huge), IncidentNodesSnapshot());
  CHECK(v.at("allowed") == false);
  CHECK_THAT(v.at("status").at("message").get<std::string>(),
             Catch::StartsWith("exceeds-allocatable (spec.containers[0]"));
  CHECK_THAT(v.at("status").at("message").get<std::string>(),
             Catch::Contains("memory request 9223372036854775807 (9223372036854775807 B"));
}

// ---- GPUs where a quick look would not find them ------------------------

TEST_CASE("webhook hostile: GPUs hidden in init containers, sidecars and CronJob templates",
          "[webhook][hostile]") {
  Json bad_gpu = GpuContainer("hidden", {{"nvidia.com/gpu", "1.5"}, {"memory", "8Gi"}});
  Json good = GpuContainer("main", {{"nvidia.com/gpu", "1"}, {"memory", "8Gi"}});
  Json in_init = Pod({{"initContainers", Json::array({bad_gpu})},
                      {"containers", Json::array({good})}});
  Json in_sidecar = Pod({{"containers", Json::array({good, bad_gpu})}});
  Json cronjob = {
      {"apiVersion", "batch/v1"},
      {"kind", "CronJob"},
      {"metadata", {{"name", "nightly"}}},
      {"spec",
       {{"schedule", "0 3 * * *"},
        {"jobTemplate",
         {{"spec", {{"template", {{"spec", {{"containers", Json::array({bad_gpu})}}}}}}}}}}}};
  struct Case {
    const char* what;
    Json object;
    const char* path;
  } cases[] = {
      {"init container", in_init, "spec.initContainers[0]"},
      {"sidecar", in_sidecar, "spec.containers[1]"},
      {"CronJob", cronjob, "spec.jobTemplate.spec.template.spec.containers[0]"},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    Json v = Judged(Endpoint::kValidate, ReviewOf(c.object));
    CHECK(v.at("allowed") == false);
    std::string message = v.at("status").at("message");
    CHECK_THAT(message, Catch::Contains("gpu-fractional (" + std::string(c.path)));
  }
}

// ---- patches -------------------------------------------------------------

TEST_CASE("webhook hostile: patches escape '/' and '~' and create missing maps",
          "[webhook][hostile]") {
  Json pod = Pod({{"containers", Json::array({GpuContainer("c", {{"nvidia.com/gpu", "1"},
                                                                  {"memory", "8Gi"}})})}});
  pod["metadata"]["annotations"] = {{"gpulint.io/vram", "12Gi"}, {"a~b/c", "x"}};
  REQUIRE_FALSE(pod["metadata"].contains("labels"));
  // With nodes that advertise VRAM: the mutation requests it only there.
  Json m = Judged(Endpoint::kMutate, ReviewOf(pod), IncidentNodesSnapshot());
  REQUIRE(m.contains("patch"));
  Json ops = Json::parse(DecodeBase64(m.at("patch").get<std::string>()));
  bool escaped = false;
  for (const Json& op : ops) {
    std::string path = op.at("path");
    // An unescaped '/' inside a key would point somewhere else entirely.
    CHECK(path.find("gpulint.io/") == std::string::npos);
    escaped = escaped || path.find("gpulint.io~1") != std::string::npos;
  }
  CHECK(escaped);
  Json patched = pod.patch(ops);
  // 12Gi and a CUDA context.
  CHECK(patched["spec"]["containers"][0]["resources"]["limits"]["gpulint.io/vram"] == "12909Mi");
  CHECK(patched["metadata"]["annotations"]["a~b/c"] == "x");

  // No annotations at all: one op adds the whole map.
  pod["metadata"].erase("annotations");
  Json bare = Judged(Endpoint::kMutate, ReviewOf(pod));
  REQUIRE(bare.contains("patch"));
  Json bare_ops = Json::parse(DecodeBase64(bare.at("patch").get<std::string>()));
  CHECK_NOTHROW(pod.patch(bare_ops));
}

// ---- transport -----------------------------------------------------------

TEST_CASE("webhook hostile: 8 MiB and 64 MiB bodies are refused and the server goes on",
          "[webhook][hostile]") {
  TestServer s;
  for (size_t size : {size_t{8} << 20, size_t{64} << 20}) {
    INFO(size);
    RawTls c(s.port(), s.ca_file());
    REQUIRE(c.ok());
    std::string head = "POST /validate HTTP/1.1\r\nHost: x\r\n" + std::string(kJson) +
                       "Content-Length: " + std::to_string(size) + "\r\n\r\n";
    // The body really follows; the server answers without reading it and closes.
    REQUIRE(c.Send(head));
    c.Send(std::string(size_t{256} << 10, ' '));
    std::string response = c.ReadResponse();
    CHECK(StatusOf(response) == 413);
  }
  StillServes(s);
}

TEST_CASE("webhook hostile: a Content-Length shorter than the body", "[webhook][hostile]") {
  TestServer s;
  std::string body = Capture(16);
  RawTls c(s.port(), s.ca_file());
  REQUIRE(c.ok());
  // The first 10 bytes are the body; the rest arrives as if it were the next request.
  REQUIRE(c.Send("POST /validate HTTP/1.1\r\nHost: x\r\n" + std::string(kJson) +
                 "Content-Length: 10\r\n\r\n" + body));
  std::string first = c.ReadResponse();
  CHECK(StatusOf(first) == 400);
  CHECK_THAT(BodyOf(first), Catch::StartsWith("request body is not valid JSON: "));
  std::string second = c.ReadResponse();
  CHECK((second.empty() || (StatusOf(second) >= 400 && StatusOf(second) < 500)));
  StillServes(s);
}

TEST_CASE("webhook hostile: chunked bodies, a negative chunk size included, get 411",
          "[webhook][hostile]") {
  TestServer s;
  for (std::string chunks : {std::string("5\r\nhello\r\n0\r\n\r\n"), std::string("-5\r\nhello\r\n"),
                             std::string("ffffffffffffffff\r\n")}) {
    INFO(chunks);
    RawTls c(s.port(), s.ca_file());
    REQUIRE(c.ok());
    REQUIRE(c.Send("POST /validate HTTP/1.1\r\nHost: x\r\n" + std::string(kJson) +
                   "Transfer-Encoding: chunked\r\n\r\n" + chunks));
    std::string response = c.ReadResponse();
    CHECK(StatusOf(response) == 411);
    CHECK(c.ClosedByPeer());
  }
  StillServes(s);
}

// A review of `spaces` spaces, compressed by gzip(1), which Debian always has.
std::string GzipBomb(size_t spaces) {
  std::string command = "{ printf '{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",'; "
                        "head -c " + std::to_string(spaces) + " /dev/zero | tr '\\0' ' '; printf '}'; } | gzip -9";
  FILE* pipe = popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::string out;
  char buf[1 << 16];
  for (size_t n; (n = fread(buf, 1, sizeof buf, pipe)) > 0;) out.append(buf, n);
  REQUIRE(pclose(pipe) == 0);
  return out;
}

TEST_CASE("webhook hostile: a gzip bomb is refused unopened", "[webhook][hostile]") {
  TestServer s;
  // 64 MiB of spaces inside a review, about 64 KiB compressed.
  std::string bomb = GzipBomb(size_t{64} << 20);
  REQUIRE(bomb.size() < (size_t{1} << 20));
  RawTls c(s.port(), s.ca_file());
  REQUIRE(c.ok());
  REQUIRE(c.Send(Post("/validate", std::string(kJson) + "Content-Encoding: gzip\r\n", bomb)));
  std::string response = c.ReadResponse();
  CHECK(StatusOf(response) == 415);
  CHECK(BodyOf(response) == "Content-Encoding \"gzip\" is not accepted: send the body uncompressed\n");
  StillServes(s);
}

TEST_CASE("webhook hostile: a 100 KB header and 10,000 headers", "[webhook][hostile]") {
  TestServer s;
  std::string many;
  for (int i = 0; i < 10000; ++i) many += "X-H" + std::to_string(i) + ": v\r\n";
  std::string small_many;
  for (int i = 0; i < 10000; ++i) small_many += "X:\r\n";  // 40 KB: under the header budget
  for (const std::string& headers :
       {"X-Big: " + std::string(100 * 1000, 'b') + "\r\n", many, small_many}) {
    INFO(headers.size());
    RawTls c(s.port(), s.ca_file());
    REQUIRE(c.ok());
    c.Send(Post("/validate", std::string(kJson) + headers, Capture(16)));
    std::string response = c.ReadResponse();
    int status = StatusOf(response);
    // Over 64 KiB: a 4xx or no answer. Under it, the review is judged.
    if (headers.size() > (64u << 10)) {
      CHECK((response.empty() || (status >= 400 && status < 500)));
    } else {
      CHECK(status == 200);
    }
  }
  StillServes(s);
}

TEST_CASE("webhook hostile: a TLS 1.0 client is refused at the handshake", "[webhook][hostile]") {
  TestServer s;
  for (int version : {TLS1_VERSION, TLS1_1_VERSION}) {
    INFO(version);
    int sock = ::socket(AF_INET, SOCK_STREAM, 0);
    REQUIRE(sock >= 0);
    timeval tv{10, 0};
    setsockopt(sock, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(s.port()));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::connect(sock, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0);
    SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
    // OpenSSL 3 would refuse TLS 1.0 itself at the default security level.
    SSL_CTX_set_security_level(ctx, 0);
    SSL_CTX_set_cipher_list(ctx, "DEFAULT:@SECLEVEL=0");
    REQUIRE(SSL_CTX_set_min_proto_version(ctx, version) == 1);
    REQUIRE(SSL_CTX_set_max_proto_version(ctx, version) == 1);
    SSL* ssl = SSL_new(ctx);
    SSL_set_fd(ssl, sock);
    CHECK(SSL_connect(ssl) != 1);
    // The server's "protocol version" alert, not our client refusing to try.
    CHECK(ERR_GET_REASON(ERR_peek_error()) == SSL_R_TLSV1_ALERT_PROTOCOL_VERSION);
    ERR_clear_error();
    SSL_free(ssl);
    SSL_CTX_free(ctx);
    ::close(sock);
  }
  // Counted by the server's connection thread, which may finish after we do.
  CHECK(Eventually([&] {
    auto metrics = s.Client()->Get("/metrics");
    return metrics && metrics->body.find("gpulint_webhook_tls_handshake_failures_total 2\n") !=
                          std::string::npos;
  }));
  StillServes(s);
}

}  // namespace
}  // namespace gpulint::webhook_test
