// The API server client's HTTP/1.1: framing, keep-alive, time limits, stop.
#include "kube/https_client.h"

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <string>
#include <thread>

#include "kube/kube_client.h"
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

}  // namespace
}  // namespace gpulint
