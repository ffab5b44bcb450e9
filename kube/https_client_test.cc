// The API server client's HTTP/1.1: framing, keep-alive, time limits, stop.
#include "kube/https_client.h"

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <string>
#include <thread>

#include "kube/kube_client.h"
#include "kube/kubeconfig.h"
#include "tests/connect_proxy.h"
#include "tests/fake_kube_api.h"

namespace gpulint {
namespace {

using testing::FakeKubeApi;

std::unique_ptr<HttpsClient> ClientOf(const FakeKubeApi& api) {
  std::string error;
  auto client = MakeKubeClient(api.Endpoint(), &error);
  INFO(error);
  REQUIRE(client);
  return client;
}

HttpResult GetBody(HttpsClient& client, const std::string& path, std::string* body) {
  body->clear();
  return client.Get(path, [&](const char* data, size_t n) {
    body->append(data, n);
    return true;
  });
}

TEST_CASE("https client: lengths, chunks, errors and headers", "[kube][https]") {
  FakeKubeApi api;
  std::atomic<int> requests{0};
  api.server().Get("/length", [&](const httplib::Request& req, httplib::Response& res) {
    ++requests;
    res.set_content(req.get_header_value("Authorization") + " " + req.get_header_value("Accept"),
                    "text/plain");
  });
  api.server().Get("/chunked", [](const httplib::Request&, httplib::Response& res) {
    res.set_chunked_content_provider("application/json", [](size_t, httplib::DataSink& sink) {
      for (const char* part : {"{\"items\":", "[1,2,", "3]}"}) sink.write(part, std::strlen(part));
      sink.done();
      return true;
    });
  });
  api.server().Get("/missing", [](const httplib::Request&, httplib::Response& res) {
    res.status = 404;
    res.set_content(R"({"kind":"Status","code":404})", "application/json");
  });
  api.server().Patch("/echo", [](const httplib::Request& req, httplib::Response& res) {
    res.set_content(req.get_header_value("Content-Type") + " " + req.body, "text/plain");
  });
  api.Listen();
  auto client = ClientOf(api);
  std::string body;
  HttpResult r = GetBody(*client, "/length", &body);
  CHECK(r.status == 200);
  CHECK(r.error.empty());
  CHECK(body == "Bearer test-token application/json");
  r = GetBody(*client, "/chunked", &body);
  CHECK(r.status == 200);
  CHECK(body == "{\"items\":[1,2,3]}");
  r = GetBody(*client, "/missing", &body);
  CHECK(r.status == 404);
  CHECK(body == R"({"kind":"Status","code":404})");
  KubeResponse patched = Patch(*client, "/echo", "[{\"op\":\"add\"}]", kJsonPatchType);
  CHECK(patched.status == 200);
  CHECK(patched.body == "application/json-patch+json [{\"op\":\"add\"}]");
  r = GetBody(*client, "/length", &body);
  CHECK(r.status == 200);
  CHECK(requests == 2);
}

TEST_CASE("https client: an answer whose Content-Length is not a number is an error",
          "[kube][https]") {
  FakeKubeApi api;
  api.server().Get("/bad-length", [](const httplib::Request&, httplib::Response& res) {
    res.set_header("Content-Length", "12x");
    res.set_content("0123456789ab", "text/plain");
  });
  api.Listen();
  auto client = ClientOf(api);
  std::string body;
  HttpResult r = GetBody(*client, "/bad-length", &body);
  CHECK(r.status == 0);
  CHECK(r.error == "the answer's Content-Length \"12x\" is not a number");
  CHECK(body.empty());
}

TEST_CASE("https client: a kept connection the server closed is opened again", "[kube][https]") {
  FakeKubeApi api;
  api.server().set_keep_alive_timeout(1);
  api.server().Get("/x", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("ok", "text/plain");
  });
  api.Listen();
  auto client = ClientOf(api);
  std::string body;
  REQUIRE(GetBody(*client, "/x", &body).status == 200);
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));  // the server drops it
  HttpResult r = GetBody(*client, "/x", &body);
  INFO(r.error);
  CHECK(r.status == 200);
  CHECK(body == "ok");
}

TEST_CASE("https client: a slow answer times out, Stop ends a stream at once", "[kube][https]") {
  FakeKubeApi api;
  api.server().Get("/slow", [](const httplib::Request&, httplib::Response& res) {
    std::this_thread::sleep_for(std::chrono::seconds(3));
    res.set_content("late", "text/plain");
  });
  api.server().Get("/watch", [&api](const httplib::Request&, httplib::Response& res) {
    res.set_chunked_content_provider("application/json", [&api](size_t, httplib::DataSink& sink) {
      while (!api.stopping()) {
        sink.write("{}\n", 3);
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
      return false;
    });
  });
  api.Listen();
  auto slow = ClientOf(api);
  slow->set_read_timeout(1);
  std::string body;
  HttpResult r = GetBody(*slow, "/slow", &body);
  CHECK(r.status == 0);
  CHECK(r.error == "no answer within 1 s");

  auto watch = ClientOf(api);
  std::atomic<int> events{0};
  HttpResult ended;
  std::thread reader([&] {
    ended = watch->Get("/watch", [&](const char*, size_t) {
      ++events;
      return true;
    });
  });
  while (events < 2) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  watch->Stop();
  reader.join();  // the stream never ends by itself: only the stop ends it
  CHECK(ended.error == "stopped");
  CHECK(watch->Get("/watch", nullptr).error == "stopped");  // and nothing more is sent
}

// A handler that sends `piece` every `every` until the client goes away or the
// server stops, counting what it sent; `done` once it has ended.
void Endless(FakeKubeApi& api, const std::string& path, std::string piece,
             std::chrono::milliseconds every, std::atomic<size_t>* sent, std::atomic<bool>* done) {
  api.server().Get(path, [&api, piece, every, sent, done](const httplib::Request&,
                                                          httplib::Response& res) {
    res.set_chunked_content_provider(
        "application/json", [&api, piece, every, sent, done](size_t, httplib::DataSink& sink) {
          while (!api.stopping() && sink.write(piece.data(), piece.size())) {
            *sent += piece.size();
            if (every.count()) std::this_thread::sleep_for(every);
          }
          *done = true;
          return false;
        });
  });
}

bool WaitFor(const std::atomic<bool>& flag, std::chrono::seconds limit) {
  auto until = std::chrono::steady_clock::now() + limit;
  while (!flag && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  return flag;
}

// The review's endless discovery body: GET /apis that never ends was read
// for 649 s. A capped read now stops at the cap and closes the connection.
TEST_CASE("https client: a capped read stops at its cap", "[kube][https]") {
  // Before the server, so that they outlive its threads (a handler still
  // running as the test ends writes them).
  std::atomic<size_t> sent{0};
  std::atomic<bool> done{false};
  FakeKubeApi api;
  Endless(api, "/apis", std::string(64 << 10, 'x'), std::chrono::milliseconds(0), &sent, &done);
  api.Listen();
  auto client = ClientOf(api);
  KubeResponse res = Get(*client, "/apis", 1 << 20);
  CHECK(res.status == 0);
  CHECK(res.error == "the answer to GET /apis is larger than 1048576 bytes");
  // The server is told: its writes fail once the client has closed.
  CHECK(WaitFor(done, std::chrono::seconds(20)));
  CHECK(sent < (64u << 20));
}

TEST_CASE("https client: a body that trickles is cut at the request timeout and the deadline",
          "[kube][https]") {
  // Before the server, so that they outlive its threads (a handler still
  // running as the test ends writes them).
  std::atomic<size_t> sent{0};
  std::atomic<bool> done{false};
  FakeKubeApi api;
  // A byte every 100 ms: no read ever waits long enough to time out.
  Endless(api, "/trickle", "x", std::chrono::milliseconds(100), &sent, &done);
  api.Listen();
  KubeEndpoint ep = api.Endpoint();
  ep.request_timeout = std::chrono::seconds(1);
  std::string error;
  auto client = MakeKubeClient(ep, &error);
  REQUIRE(client);
  auto start = std::chrono::steady_clock::now();
  HttpResult r = client->Get("/trickle", [](const char*, size_t) { return true; });
  CHECK(r.error == "no whole answer within 1s (the request timeout)");
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(10));

  ep.request_timeout = std::chrono::milliseconds(0);
  ep.deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  ep.deadline_label = "gpulint audit --timeout 1s";
  client = MakeKubeClient(ep, &error);
  REQUIRE(client);
  r = client->Get("/trickle", [](const char*, size_t) { return true; });
  CHECK(r.error == "the deadline passed (gpulint audit --timeout 1s)");
  // Past the deadline nothing more is sent.
  r = client->Get("/trickle", [](const char*, size_t) { return true; });
  CHECK(r.status == 0);
  CHECK(r.error == "the deadline passed (gpulint audit --timeout 1s)");
}

TEST_CASE("https client: through an HTTP proxy with CONNECT", "[kube][https][proxy]") {
  // A server named kube.test, which only the proxy can resolve: a request
  // that arrives went through the proxy.
  FakeKubeApi api("DNS:kube.test");
  api.server().Get("/version", [](const httplib::Request& req, httplib::Response& res) {
    res.set_content(req.get_header_value("Authorization"), "text/plain");
  });
  api.Listen();
  testing::ConnectProxy proxy({"--auth", "ops:hunter2", "--map", "kube.test=127.0.0.1"});
  std::string target = "kube.test:" + std::to_string(api.port());
  KubeEndpoint ep = api.Endpoint();
  ep.host = "kube.test";

  SECTION("HTTPS_PROXY with its credentials") {
    ProxyEnvironment env{"http://ops:hunter2@127.0.0.1:" + std::to_string(proxy.port()), ""};
    std::string error;
    REQUIRE(ProxyFromEnvironment(env, ep.host, ep.port, &ep.proxy, &error));
    auto client = MakeKubeClient(ep, &error);
    REQUIRE(client);
    std::string body;
    HttpResult r = GetBody(*client, "/version", &body);
    INFO(r.error);
    CHECK(r.status == 200);
    CHECK(body == "Bearer test-token");  // the server's credential went through the tunnel
    CHECK(proxy.Log() == "CONNECT " + target + "\n");
  }
  SECTION("NO_PROXY sends it directly, where kube.test does not resolve") {
    ProxyEnvironment env{proxy.url(), "kube.test"};
    std::string error;
    REQUIRE(ProxyFromEnvironment(env, ep.host, ep.port, &ep.proxy, &error));
    CHECK(ep.proxy.empty());
    auto client = MakeKubeClient(ep, &error);
    REQUIRE(client);
    std::string body;
    HttpResult r = GetBody(*client, "/version", &body);
    CHECK(r.status == 0);
    CHECK(r.error.rfind("cannot resolve kube.test", 0) == 0);
    CHECK(proxy.Log().empty());
  }
  SECTION("a proxy that wants credentials says so, and the error shows none") {
    std::string error;
    REQUIRE(ParseProxyUrl(proxy.url(), "HTTPS_PROXY", &ep.proxy, &error));
    auto client = MakeKubeClient(ep, &error);
    REQUIRE(client);
    std::string body;
    HttpResult r = GetBody(*client, "/version", &body);
    CHECK(r.status == 0);
    CHECK(r.error == "the proxy " + proxy.url() + " (CONNECT " + target +
                         ") refused the tunnel: \"HTTP/1.1 407 Proxy Authentication Required\" "
                         "(the proxy wants credentials: give them in the proxy URL, "
                         "http://user:password@host:port)");
    CHECK(proxy.Log() == "REFUSED " + target + " 407\n");
  }
  SECTION("a kubeconfig's proxy-url, read by FindEndpoint") {
    TempDir dir;
    dir.Write("ca.crt", api.ca_pem());
    KubeconfigOptions options;
    options.kubeconfig = dir.Write(
        "config", "apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters:\n- name: c\n"
                  "  cluster:\n    server: https://" + target + "\n    certificate-authority: ca.crt\n"
                  "    proxy-url: http://ops:hunter2@127.0.0.1:" + std::to_string(proxy.port()) +
                  "\ncontexts:\n- name: c\n  context: {cluster: c, user: u}\n"
                  "users:\n- name: u\n  user: {token: from-config}\n");
    KubeEndpoint found;
    std::string origin, error;
    REQUIRE(FindEndpoint(options, &found, &origin, &error));
    auto client = MakeKubeClient(found, &error);
    REQUIRE(client);
    std::string body;
    HttpResult r = GetBody(*client, "/version", &body);
    INFO(r.error);
    CHECK(r.status == 200);
    CHECK(body == "Bearer from-config");
    CHECK(proxy.Log() == "CONNECT " + target + "\n");
  }
}

}  // namespace
}  // namespace gpulint
