// A stand-in for the API server's collections (Nodes; DeviceClasses and
// ResourceSlices), for the VRAM advertiser's and the node and DRA watches'
// tests.
#ifndef GPULINT_TESTS_WEBHOOK_FAKE_NODE_API_H_
#define GPULINT_TESTS_WEBHOOK_FAKE_NODE_API_H_

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "engine/json/json_parser.h"
#include "tests/webhook_test_support.h"

namespace gpulint::webhook_test {

// One collection of objects behind FakeKubeApi, as kube-apiserver keeps it:
// GET `path` lists them (a List of `list_kind`) or watches them (every change
// an event, from the resourceVersion asked for).
class FakeCollection {
 public:
  FakeCollection(FakeKubeApi& api, const std::string& path, std::string list_kind)
      : api_(api), list_kind_(std::move(list_kind)) {
    api_.server().Get(path, [this](const httplib::Request& req, httplib::Response& res) {
      Get(req, res);
    });
  }

  void Put(Json object) {
    std::lock_guard<std::mutex> lock(mu_);
    std::string name = object["metadata"]["name"];
    Emit(objects_.count(name) ? "MODIFIED" : "ADDED", std::move(object));
  }
  void Delete(const std::string& name) {
    std::lock_guard<std::mutex> lock(mu_);
    Json object = objects_.at(name);
    objects_.erase(name);
    Emit("DELETED", std::move(object));
  }
  Json Object(const std::string& name) {
    std::lock_guard<std::mutex> lock(mu_);
    return objects_.at(name);
  }
  // Applies `patch` (a JSON patch) to the object; false (with *status) when
  // there is none or the patch does not apply. A patch that changes nothing
  // writes nothing.
  bool Patch(const std::string& name, const std::string& patch, int* status, std::string* body) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = objects_.find(name);
    if (it == objects_.end()) {
      *status = 404;
      return false;
    }
    Json patched;
    try {
      patched = it->second.patch(Json::parse(patch));
    } catch (const std::exception& e) {
      *status = 422;
      *body = e.what();
      return false;
    }
    if (patched != it->second) Emit("MODIFIED", patched);
    *body = objects_.at(name).dump();
    return true;
  }

 private:
  // Under mu_.
  void Emit(const std::string& type, Json object) {
    std::string name = object["metadata"]["name"];
    object["metadata"]["resourceVersion"] = std::to_string(++version_);
    if (type != "DELETED") objects_[name] = object;
    events_.emplace_back(version_, Json{{"type", type}, {"object", object}}.dump() + "\n");
    cv_.notify_all();
  }

  void Get(const httplib::Request& req, httplib::Response& res) {
    std::unique_lock<std::mutex> lock(mu_);
    if (!req.has_param("watch")) {
      Json items = Json::array();
      for (const auto& [name, object] : objects_) items.push_back(object);
      res.set_content(Json{{"kind", list_kind_},
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

  FakeKubeApi& api_;
  const std::string list_kind_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, Json> objects_;
  int64_t version_ = 100;
  std::vector<std::pair<int64_t, std::string>> events_ = {{100, ""}};
};

// Nodes behind FakeKubeApi (a FakeCollection), and PATCH
// /api/v1/nodes/NAME/status, which applies a JSON patch.
class FakeNodeApi {
 public:
  struct Patched {
    std::string node, content_type, body;
  };

  FakeNodeApi() : nodes_(api_, "/api/v1/nodes", "NodeList") {
    api_.server().Patch(
        R"(/api/v1/nodes/([^/]+)/status)",
        [this](const httplib::Request& req, httplib::Response& res) { Patch(req, res); });
    api_.Listen();
  }
  ~FakeNodeApi() { api_.Stop(); }

  FakeKubeApi& api() { return api_; }

  void Put(Json node) { nodes_.Put(std::move(node)); }
  void Delete(const std::string& name) { nodes_.Delete(name); }
  Json Node(const std::string& name) { return nodes_.Object(name); }
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
  void Patch(const httplib::Request& req, httplib::Response& res) {
    std::string name = req.matches[1];
    std::string type = req.get_header_value("Content-Type");
    {
      std::lock_guard<std::mutex> lock(mu_);
      patches_.push_back({name, type, req.body});
      if (fail_left_ > 0) {
        --fail_left_;
        res.status = fail_status_;
        res.set_content(R"({"kind":"Status","message":"injected failure"})", "application/json");
        return;
      }
    }
    if (type != "application/json-patch+json") {
      res.status = 415;
      return;
    }
    int status = 200;
    std::string body;
    if (!nodes_.Patch(name, req.body, &status, &body)) {
      res.status = status;
      if (!body.empty()) res.set_content(body, "text/plain");
      return;
    }
    res.set_content(body, "application/json");
  }

  FakeKubeApi api_;
  FakeCollection nodes_;
  std::mutex mu_;
  std::vector<Patched> patches_;
  int fail_left_ = 0, fail_status_ = 0;
};

// The policy's vram resource, changed by the test as a policy reload would.

}  // namespace gpulint::webhook_test

#endif  // GPULINT_TESTS_WEBHOOK_FAKE_NODE_API_H_
