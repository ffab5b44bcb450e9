// The API server client: URLs, TLS trust, in-cluster configuration.
#include "kube/kube_client.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <string>

#include "kube/kubeconfig.h"
#include "tests/fake_kube_api.h"
#include "tests/temp_dir.h"

namespace gpulint {
namespace {

using testing::FakeKubeApi;
using testing::TestCa;

// A fake API server that answers GET /version.
class VersionApi {
 public:
  explicit VersionApi(const std::string& sans = "DNS:localhost,IP:127.0.0.1") : api_(sans) {
    api_.server().Get("/version", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(R"({"major":"1","minor":"28"})", "application/json");
    });
    api_.Listen();
  }
  KubeEndpoint Endpoint() const { return api_.Endpoint(); }

 private:
  FakeKubeApi api_;
};

TEST_CASE("the API server's certificate must chain to the configured CA and name the host",
          "[kube]") {
  VersionApi api;
  KubeEndpoint ep = api.Endpoint();
  std::string error;
  auto good = MakeKubeClient(ep, &error);
  REQUIRE(good);
  KubeResponse res = Get(*good, "/version", 1 << 20);
  CHECK(res.status == 200);
  CHECK(res.body == R"({"major":"1","minor":"28"})");

  TestCa other("some other CA");
  ep.ca_pem = other.pem();
  auto untrusted = MakeKubeClient(ep, &error);
  REQUIRE(untrusted);
  CHECK(Get(*untrusted, "/version", 1 << 20).status == 0);

  VersionApi misnamed("DNS:kubernetes.default.svc");
  KubeEndpoint ep2 = misnamed.Endpoint();
  auto wrong_host = MakeKubeClient(ep2, &error);
  REQUIRE(wrong_host);
  CHECK(Get(*wrong_host, "/version", 1 << 20).status == 0);

  ep2.ca_pem = "no PEM here";
  CHECK(MakeKubeClient(ep2, &error) == nullptr);
  CHECK(error == "the API server CA holds no PEM certificate");
}

TEST_CASE("Get refuses an answer larger than it was told", "[kube]") {
  VersionApi api;
  std::string error;
  auto client = MakeKubeClient(api.Endpoint(), &error);
  REQUIRE(client);
  KubeResponse res = Get(*client, "/version", 8);
  CHECK(res.status == 0);
  CHECK(res.error == "the answer to GET /version is larger than 8 bytes");
}

TEST_CASE("in-cluster: the service's address and the service account's files", "[kube]") {
  TempDir sa;
  std::string sa_token = sa.Write("token", "sa-token\n");
  sa.Write("ca.crt", "CA PEM\n");
  unsetenv("KUBERNETES_SERVICE_HOST");
  KubeEndpoint ep;
  std::string error;
  CHECK_FALSE(InClusterEndpoint(sa.path().string(), &ep, &error));
  CHECK(
      error ==
      "not running in a cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set");
  setenv("KUBERNETES_SERVICE_HOST", "fd00::1", 1);
  setenv("KUBERNETES_SERVICE_PORT", "443", 1);
  REQUIRE(InClusterEndpoint(sa.path().string(), &ep, &error));
  CHECK(ep.host == "fd00::1");
  CHECK(ep.port == 443);
  CHECK(ep.ca_pem == "CA PEM\n");
  CHECK(ep.token_file == sa_token);
  unsetenv("KUBERNETES_SERVICE_HOST");
  unsetenv("KUBERNETES_SERVICE_PORT");
}

TEST_CASE("API server URLs", "[kube]") {
  struct Case {
    std::string url, host;
    int port;
    std::string base, error;
  } cases[] = {
      {"https://10.96.0.1:443", "10.96.0.1", 443, "", ""},
      {"https://[::1]:6443/", "::1", 6443, "", ""},
      {"https://rancher.example/k8s/clusters/c-1", "rancher.example", 443, "/k8s/clusters/c-1", ""},
      {"http://10.0.0.1", "", 0, "", "the API server URL http://10.0.0.1 is not https://"},
      {"https://k:0", "", 0, "", "the API server URL https://k:0 has a bad port"},
      {"https://:443", "", 0, "", "the API server URL https://:443 has no host"},
      // A password in the URL is neither sent nor printed.
      {"https://admin:s3cret@k.example:6443", "", 0, "",
       "the API server URL https://***@k.example:6443 holds a user name or password, which "
       "gpulint does not send: give the credential as the kubeconfig user's token, client "
       "certificate or exec plugin"},
      {"http://admin:s3cret@k.example", "", 0, "",
       "the API server URL http://***@k.example is not https://"},
  };
  for (const Case& c : cases) {
    INFO(c.url);
    KubeEndpoint ep;
    std::string error;
    bool ok = ParseServerUrl(c.url, &ep, &error);
    CHECK(ok == c.error.empty());
    CHECK(error == c.error);
    CHECK(error.find("s3cret") == std::string::npos);
    if (ok) {
      CHECK(ep.host == c.host);
      CHECK(ep.port == c.port);
      CHECK(ep.base_path == c.base);
    }
  }
}

TEST_CASE("a token that would end the Authorization header is refused, never quoted", "[kube]") {
  struct Case {
    std::string token;
    bool ok;
  } cases[] = {
      {"eyJhbGciOiJSUzI1NiJ9.payload.sig", true},
      {"with\ttab", true},
      {"abc\r\nX-Injected: yes", false},
      {"abc\nX-Injected: yes", false},
      {std::string("abc\0def", 7), false},
      {"abc\x7f", false},
  };
  for (const Case& c : cases) {
    INFO(c.token);
    std::string error;
    CHECK(CheckBearerToken(c.token, "user \"ci\"'s token", &error) == c.ok);
    if (c.ok) continue;
    CHECK(error.rfind("user \"ci\"'s token holds a", 0) == 0);
    CHECK(error.find("abc") == std::string::npos);
    CHECK(error.find("Injected") == std::string::npos);
  }
  // MakeKubeClient asks the same of every token it would send, wherever it came from.
  TempDir dir;
  KubeEndpoint ep;
  ep.host = "127.0.0.1";
  ep.token_file = dir.Write("token", "secret-part-1\r\nX-Injected: secret-part-2\n");
  std::string error;
  CHECK(MakeKubeClient(ep, &error) == nullptr);
  CHECK(error ==
        "the token in " + ep.token_file +
            " holds a line break (CR or LF), which no HTTP header may carry: it is refused "
            "rather than sent (it would end the Authorization header and start headers of its "
            "own)");
}

TEST_CASE("a server that echoes the token does not put it in a message", "[kube]") {
  FakeKubeApi api;
  api.server().Get("/echo", [](const httplib::Request& req, httplib::Response& res) {
    res.status = 401;
    res.set_content("{\"message\":\"bad credential: " + req.get_header_value("Authorization") +
                        "\"}",
                    "application/json");
  });
  api.Listen();
  std::string error;
  auto client = MakeKubeClient(api.Endpoint(), &error);
  REQUIRE(client);
  KubeResponse res = Get(*client, "/echo", 4096);
  CHECK(res.status == 401);
  CHECK(res.body == "{\"message\":\"bad credential: Bearer <redacted>\"}");
  CHECK(res.Describe().find("test-token") == std::string::npos);
}

TEST_CASE("a token that is part of <redacted> is redacted once, and the read ends", "[kube]") {
  // A kubeconfig's token "t" (or "red", "act"): each replacement holds the
  // token again, so the scrub searches on past what it wrote.
  FakeKubeApi api;
  api.server().Get("/echo", [](const httplib::Request& req, httplib::Response& res) {
    res.status = 401;
    res.set_content("{\"message\":\"" + req.get_header_value("Authorization") + " at t\"}",
                    "application/json");
  });
  api.Listen();
  KubeEndpoint ep = api.Endpoint();
  ep.token = "t";
  std::string error;
  auto client = MakeKubeClient(ep, &error);
  REQUIRE(client);
  KubeResponse res = Get(*client, "/echo", 4096);
  CHECK(res.status == 401);
  CHECK(res.body == "{\"message\":\"Bearer <redacted> a<redacted> <redacted>\"}");
}

}  // namespace
}  // namespace gpulint
