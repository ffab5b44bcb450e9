// A stand-in for the API server's Nodes, for the VRAM advertiser's and node
// watch's tests.
#ifndef GPULINT_TESTS_WEBHOOK_FAKE_NODE_API_H_
#define GPULINT_TESTS_WEBHOOK_FAKE_NODE_API_H_

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <vector>

#include "engine/json/json_parser.h"
#include "tests/webhook_test_support.h"

namespace gpulint::webhook_test {

// Nodes behind FakeKubeApi, as kube-apiserver keeps them: GET /api/v1/nodes
// lists them or watches them (every change an event, from the
// resourceVersion asked for), PATCH /api/v1/nodes/NAME/status applies a JSON
// patch, and a patch that changes nothing writes nothing.
class FakeNodeApi {
 public:
  struct Patched {
    std::string node, content_type, body;
  };

  FakeNodeApi() {
    api_.server().Get("/api/v1/nodes", [this](const httplib::Request& req, httplib::Response& res) {
      Get(req, res);
    });
    api_.server().Patch(
        R"(/api/v1/nodes/([^/]+)/status)",
        [this](const httplib::Request& req, httplib::Response& res) { Patch(req, res); });
    api_.Listen();
  }
  ~FakeNodeApi() { api_.Stop(); }

  FakeKubeApi& api() { return api_; }

  void Put(Json node) {
    std::lock_guard<std::mutex> lock(mu_);
    std::string name = node["metadata"]["name"];
    Emit(nodes_.count(name) ? "MODIFIED" : "ADDED", std::move(node));
  }
  void Delete(const std::string& name) {
    std::lock_guard<std::mutex> lock(mu_);
    Json node = nodes_.at(name);
    nodes_.erase(name);
    Emit("DELETED", std::move(node));
  }
  Json Node(const std::string& name) {
    std::lock_guard<std::mutex> lock(mu_);
    return nodes_.at(name);
  }
  std::vector<Patched> patches() {
    std::lock_guard<std::mutex> lock(mu_);
    return patches_;
  }
  // The next `n` PATCHes are answered `status`.
  void FailPatches(int n, int status) {
    std::lock_guard<std::mutex> lock(mu_);
    fail_left_ = n;
    fail_status_ = status;
  }

 private:
  // Under mu_.
  void Emit(const std::string& type, Json node) {
    std::string name = node["metadata"]["name"];
    node["metadata"]["resourceVersion"] = std::to_string(++version_);
    if (type != "DELETED") nodes_[name] = node;
    events_.emplace_back(version_, Json{{"type", type}, {"object", node}}.dump() + "\n");
    cv_.notify_all();
  }

  void Get(const httplib::Request& req, httplib::Response& res) {
    std::unique_lock<std::mutex> lock(mu_);
    if (!req.has_param("watch")) {
      Json items = Json::array();
      for (const auto& [name, node] : nodes_) items.push_back(node);
      res.set_content(Json{{"kind", "NodeList"},
                           {"apiVersion", "v1"},
                           {"metadata", {{"resourceVersion", std::to_string(version_)}}},
                           {"items", items}}
                          .dump(),
                      "application/json");
      return;
    }
    auto sent = std::make_shared<int64_t>(std::stoll(req.get_param_value("resourceVersion")));
    auto end = std::chrono::steady_clock::now() +
               std::chrono::seconds(std::stoi(req.get_param_value("timeoutSeconds")));
    res.set_chunked_content_provider(
        "application/json", [this, sent, end](size_t, httplib::DataSink& sink) {
          std::string out;
          {
            std::unique_lock<std::mutex> lock(mu_);
            cv_.wait_for(lock, std::chrono::milliseconds(20),
                         [&] { return events_.back().first > *sent; });
            for (const auto& [version, line] : events_) {
              if (version <= *sent) continue;
              out += line;
              *sent = version;
            }
          }
          if (!out.empty() && !sink.write(out.data(), out.size())) return false;
          if (api_.stopping() || std::chrono::steady_clock::now() > end) sink.done();
          return true;
        });
  }

  void Patch(const httplib::Request& req, httplib::Response& res) {
    std::lock_guard<std::mutex> lock(mu_);
    std::string name = req.matches[1];
    std::string type = req.get_header_value("Content-Type");
    patches_.push_back({name, type, req.body});
    if (fail_left_ > 0) {
      --fail_left_;
      res.status = fail_status_;
      res.set_content(R"({"kind":"Status","message":"injected failure"})", "application/json");
      return;
    }
    if (type != "application/json-patch+json") {
      res.status = 415;
      return;
    }
    auto it = nodes_.find(name);
    if (it == nodes_.end()) {
      res.status = 404;
      return;
    }
    Json patched;
    try {
      patched = it->second.patch(Json::parse(req.body));
    } catch (const std::exception& e) {
      res.status = 422;
      res.set_content(e.what(), "text/plain");
      return;
    }
    if (patched != it->second) Emit("MODIFIED", patched);
    res.set_content(nodes_.at(name).dump(), "application/json");
  }

  FakeKubeApi api_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, Json> nodes_;
  int64_t version_ = 100;
  std::vector<std::pair<int64_t, std::string>> events_ = {{100, ""}};
  std::vector<Patched> patches_;
  int fail_left_ = 0, fail_status_ = 0;
};

// The policy's vram resource, changed by the test as a policy reload would.

}  // namespace gpulint::webhook_test

#endif  // GPULINT_TESTS_WEBHOOK_FAKE_NODE_API_H_
