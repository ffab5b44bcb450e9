// Paged lists: limit and continue, an expired continue token, refusals.
#include "kube/list.h"

#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <mutex>
#include <string>
#include <vector>

#include "kube/discovery.h"
#include "tests/fake_kube_api.h"
#include "tests/golden.h"
#include "tests/temp_dir.h"

namespace gpulint {
namespace {

using testing::FakeKubeApi;

std::string Status(int code, const std::string& reason, const std::string& message,
                   const std::string& next = "") {
  std::string meta = next.empty() ? "{}" : "{\"continue\":\"" + next + "\"}";
  return "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":" + meta +
         ",\"status\":\"Failure\",\"message\":\"" + message + "\",\"reason\":\"" + reason +
         "\",\"code\":" + std::to_string(code) + "}";
}

// Pods p0..p(n-1) served `limit` at a time; the continue token is the index
// of the next pod. Each request's query is recorded; `answer`, when it returns
// a status, answers a request instead.
class PodPages {
 public:
  explicit PodPages(int n) : n_(n) {
    api_.server().Get("/api/v1/pods", [this](const httplib::Request& req, httplib::Response& res) {
      std::lock_guard<std::mutex> lock(mu_);
      std::string query = "limit=" + req.get_param_value("limit");
      if (req.has_param("fieldSelector"))
        query += " fieldSelector=" + req.get_param_value("fieldSelector");
      if (req.has_param("labelSelector"))
        query += " labelSelector=" + req.get_param_value("labelSelector");
      if (req.has_param("continue")) query += " continue=" + req.get_param_value("continue");
      queries_.push_back(query);
      if (answer_) {
        auto [status, body] = answer_(queries_.size(), req);
        if (status != 0) {
          res.status = status;
          res.set_content(body, "application/json");
          return;
        }
      }
      int limit = std::stoi(req.get_param_value("limit"));
      int from = req.has_param("continue") ? std::stoi(req.get_param_value("continue")) : 0;
      std::string items;
      int i = from;
      for (; i < n_ && i < from + limit; ++i)
        items += std::string(items.empty() ? "" : ",") + "{\"metadata\":{\"name\":\"p" +
                 std::to_string(i) + "\"}}";
      std::string next = i < n_ ? std::to_string(i) : "";
      res.set_content("{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"metadata\":{\"continue\":\"" +
                          next + "\"},\"items\":[" + items + "]}",
                      "application/json");
    });
    api_.Listen();
  }
  using Answer =
      std::function<std::pair<int, std::string>(size_t request, const httplib::Request&)>;
  void SetAnswer(Answer a) {
    std::lock_guard<std::mutex> lock(mu_);
    answer_ = std::move(a);
  }
  std::vector<std::string> queries() {
    std::lock_guard<std::mutex> lock(mu_);
    return queries_;
  }
  KubeEndpoint Endpoint() const { return api_.Endpoint(); }

  // Lists every page; the names read, in order.
  ListResult List(std::vector<std::string>* names, ListOptions options = {}) {
    return ListPaged(Endpoint(), "/api/v1/pods", options, [&](Value& pod) {
      names->push_back(std::string(pod.Find("metadata")->StringAt("name")));
    });
  }

 private:
  FakeKubeApi api_;
  int n_;
  std::mutex mu_;
  std::vector<std::string> queries_;
  Answer answer_;
};

std::vector<std::string> Names(int from, int to) {
  std::vector<std::string> out;
  for (int i = from; i < to; ++i) out.push_back("p" + std::to_string(i));
  return out;
}

TEST_CASE("a list is read page by page, each item handed on once", "[kube][list]") {
  PodPages pages(7);
  std::vector<std::string> names;
  ListOptions options;
  options.page_size = 3;
  options.field_selector = "status.phase!=Succeeded,status.phase!=Failed";
  options.label_selector = "app.kubernetes.io/managed-by=gpulint";
  ListResult r = pages.List(&names, options);
  INFO(r.message);
  REQUIRE(r.ok);
  CHECK(r.pages == 3);
  CHECK(r.items == 7);
  CHECK_FALSE(r.resumed);
  CHECK(names == Names(0, 7));
  const std::string selector =
      " fieldSelector=status.phase!=Succeeded,status.phase!=Failed"
      " labelSelector=app.kubernetes.io/managed-by=gpulint";
  CHECK(pages.queries() == std::vector<std::string>{"limit=3" + selector,
                                                    "limit=3" + selector + " continue=3",
                                                    "limit=3" + selector + " continue=6"});
}

TEST_CASE("an expired continue token: the list goes on with the token the 410 gives",
          "[kube][list]") {
  PodPages pages(7);
  // The second page's token has expired; the server offers to go on from pod 4
  // of a newer state (pod 3 was deleted meanwhile).
  pages.SetAnswer([](size_t request, const httplib::Request&) -> std::pair<int, std::string> {
    if (request != 2) return {0, ""};
    return {410, Status(410, "Expired",
                        "The provided continue parameter is too old to display a consistent list "
                        "result. You can start a new list without the continue parameter, or use "
                        "the continue token in this response to retrieve the remainder of the "
                        "results. Continuing with the provided token results in an inconsistent "
                        "list - objects that were created, modified, or deleted between the time "
                        "the first chunk was returned and now may show up in the list.",
                        "4")};
  });
  std::vector<std::string> names;
  ListOptions options;
  options.page_size = 3;
  ListResult r = pages.List(&names, options);
  REQUIRE(r.ok);
  CHECK(r.resumed);
  CHECK(names == std::vector<std::string>{"p0", "p1", "p2", "p4", "p5", "p6"});
  CHECK(pages.queries() ==
        std::vector<std::string>{"limit=3", "limit=3 continue=3", "limit=3 continue=4"});
}

TEST_CASE("a 410 that gives no token ends the list, with what was read kept", "[kube][list]") {
  PodPages pages(7);
  pages.SetAnswer([](size_t request, const httplib::Request&) -> std::pair<int, std::string> {
    if (request != 2) return {0, ""};
    return {410, Status(410, "Expired", "too old resource version")};
  });
  std::vector<std::string> names;
  ListOptions options;
  options.page_size = 3;
  ListResult r = pages.List(&names, options);
  CHECK_FALSE(r.ok);
  CHECK(r.status == 410);
  CHECK(r.reason == "Expired");
  CHECK(r.message == "too old resource version");
  CHECK(r.items == 3);
  CHECK(names == Names(0, 3));
}

TEST_CASE("a refusal ends the list with the server's reason and message", "[kube][list]") {
  PodPages pages(2);
  pages.SetAnswer([](size_t, const httplib::Request&) -> std::pair<int, std::string> {
    return {403, Status(403, "Forbidden",
                        "pods is forbidden: User \\\"alice\\\" cannot list resource \\\"pods\\\" "
                        "in API group \\\"\\\" at the cluster scope")};
  });
  std::vector<std::string> names;
  ListResult r = pages.List(&names);
  CHECK_FALSE(r.ok);
  CHECK(r.status == 403);
  CHECK(r.reason == "Forbidden");
  CHECK(r.message ==
        "pods is forbidden: User \"alice\" cannot list resource \"pods\" in API group \"\" at the "
        "cluster scope");
  CHECK(names.empty());
}

TEST_CASE("a page larger than allowed ends the list", "[kube][list]") {
  PodPages pages(50);
  std::vector<std::string> names;
  ListOptions options;
  options.max_page_bytes = 1 << 20;
  CHECK(pages.List(&names, options).ok);
  options.max_page_bytes = 100;
  ListResult r = pages.List(&names, options);
  CHECK_FALSE(r.ok);
  CHECK(r.status == 0);
  CHECK(r.message == "a page of /api/v1/pods is larger than 100 bytes");
}

TEST_CASE("a token the server refuses (401) is asked of the exec plugin once more",
          "[kube][list]") {
  PodPages pages(2);
  // The first token the plugin gives has been revoked.
  pages.SetAnswer([](size_t, const httplib::Request& req) -> std::pair<int, std::string> {
    if (req.get_header_value("Authorization") != "Bearer t1") return {0, ""};
    return {401, Status(401, "Unauthorized", "Unauthorized")};
  });
  TempDir dir;
  std::string plugin = dir.Write(
      "plugin",
      "#!/bin/sh\necho run >> \"$(dirname \"$0\")/runs\"\n"
      "n=$(wc -l < \"$(dirname \"$0\")/runs\")\n"
      "echo '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\",'\n"
      "echo '\"status\":{\"token\":\"t'$n'\"}}'\n");
  chmod(plugin.c_str(), 0755);
  ExecConfig config;
  config.api_version = "client.authentication.k8s.io/v1";
  config.command = plugin;
  config.user = "u";
  KubeEndpoint ep = pages.Endpoint();
  ep.token.clear();
  ep.exec = std::make_shared<ExecCredentials>(config);
  std::vector<std::string> names;
  ListResult r = ListPaged(ep, "/api/v1/pods", {}, [&](Value& pod) {
    names.push_back(std::string(pod.Find("metadata")->StringAt("name")));
  });
  INFO(r.message);
  CHECK(r.ok);
  CHECK(names == Names(0, 2));
  CHECK(testing::ReadFile(dir.Path("runs")) == "run\nrun\n");

  // A token refused again is the answer: no third run.
  pages.SetAnswer([](size_t, const httplib::Request&) -> std::pair<int, std::string> {
    return {401, Status(401, "Unauthorized", "Unauthorized")};
  });
  ep.exec->Invalidate();
  r = ListPaged(ep, "/api/v1/pods", {}, [](Value&) {});
  CHECK_FALSE(r.ok);
  CHECK(r.status == 401);
  CHECK(testing::ReadFile(dir.Path("runs")) == "run\nrun\nrun\nrun\n");
}

TEST_CASE("ReadListPage: its metadata, or a page that is no list", "[kube][list]") {
  std::string error;
  ListPage page;
  auto ignore = [](Value&) {};
  REQUIRE(ReadListPage(R"({"metadata":{"resourceVersion":"42","continue":"c"},"items":[{}]})",
                       ignore, &page, &error));
  CHECK(page.next == "c");
  CHECK(page.resource_version == "42");
  CHECK(page.items == 1);
  CHECK_FALSE(ReadListPage(R"({"kind":"Pod","metadata":{}})", ignore, &page, &error));
  CHECK(error == "the answer is not a list (no items)");
  CHECK_FALSE(ReadListPage(R"({"items":[{},)", ignore, &page, &error));
  CHECK(error.rfind("the list is not JSON: ", 0) == 0);
  CHECK(page.items == 1);
}

}  // namespace
}  // namespace gpulint
