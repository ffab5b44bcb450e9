// The DRA watch (webhook/kube/dra_watch.h) against a local HTTPS stand-in for
// the API server: discovery, then DeviceClasses and ResourceSlices listed and
// watched, and what the sink is told.
#include <catch2/catch.hpp>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "engine/cluster/inventory.h"
#include "tests/webhook_fake_node_api.h"
#include "webhook/kube/dra_watch.h"

namespace gpulint::webhook_test {
namespace {

using namespace std::chrono_literals;

// Discovery documents: the core group, and resource.k8s.io when `served`.
class FakeDraApi {
 public:
  explicit FakeDraApi(bool served) : classes_(api_, kClasses, "DeviceClassList"),
                                     slices_(api_, kSlices, "ResourceSliceList") {
    api_.server().Get("/api/v1", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(R"({"kind":"APIResourceList","groupVersion":"v1","resources":[
          {"name":"nodes","kind":"Node","namespaced":false}]})",
                      "application/json");
    });
    api_.server().Get("/apis", [served](const httplib::Request&, httplib::Response& res) {
      res.set_content(served ? R"({"kind":"APIGroupList","groups":[{"name":"resource.k8s.io",
          "preferredVersion":{"groupVersion":"resource.k8s.io/v1","version":"v1"}}]})"
                             : R"({"kind":"APIGroupList","groups":[]})",
                      "application/json");
    });
    api_.server().Get("/apis/resource.k8s.io/v1", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(R"({"kind":"APIResourceList","groupVersion":"resource.k8s.io/v1","resources":[
          {"name":"deviceclasses","kind":"DeviceClass","namespaced":false},
          {"name":"resourceslices","kind":"ResourceSlice","namespaced":false}]})",
                      "application/json");
    });
  }
  ~FakeDraApi() { api_.Stop(); }
  void Listen() { api_.Listen(); }

  FakeKubeApi& api() { return api_; }
  FakeCollection& classes() { return classes_; }
  FakeCollection& slices() { return slices_; }

 private:
  static constexpr const char* kClasses = "/apis/resource.k8s.io/v1/deviceclasses";
  static constexpr const char* kSlices = "/apis/resource.k8s.io/v1/resourceslices";
  FakeKubeApi api_;
  FakeCollection classes_, slices_;
};

Json Class(const std::string& name, const std::string& resource) {
  Json c = {{"metadata", {{"name", name}}},
            {"spec", {{"selectors", {{{"cel", {{"expression", "device.driver == 'gpu.nvidia.com'"}}}}}}}}};
  if (!resource.empty()) c["spec"]["extendedResourceName"] = resource;
  return c;
}

Json Slice(const std::string& node, int devices, int generation = 1) {
  Json list = Json::array();
  for (int i = 0; i < devices; ++i)
    list.push_back({{"name", "gpu-" + std::to_string(i)},
                    {"capacity", {{"memory", {{"value", "80Gi"}}}}}});
  return {{"metadata", {{"name", node + "-gpu"}}},
          {"spec",
           {{"driver", "gpu.nvidia.com"},
            {"nodeName", node},
            {"pool", {{"name", node}, {"generation", generation}, {"resourceSliceCount", 1}}},
            {"devices", list}}}};
}

// What the watch told: each SetDra in turn.
class Recorder : public DraSink {
 public:
  struct Told {
    std::shared_ptr<const DraInventory> dra;
    bool all = false;
    std::set<std::string> nodes;
  };
  void SetDra(std::shared_ptr<const DraInventory> dra,
              const std::set<std::string>* changed_nodes) override {
    std::lock_guard<std::mutex> lock(mu_);
    told_.push_back({std::move(dra), changed_nodes == nullptr,
                     changed_nodes ? *changed_nodes : std::set<std::string>()});
    cv_.notify_all();
  }
  // The `n`th telling (from 1), waited for up to 10 s.
  Told Nth(size_t n) {
    std::unique_lock<std::mutex> lock(mu_);
    REQUIRE(cv_.wait_for(lock, 10s, [&] { return told_.size() >= n; }));
    return told_[n - 1];
  }
  size_t count() {
    std::lock_guard<std::mutex> lock(mu_);
    return told_.size();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Told> told_;
};

DraWatcher::Options Fast() {
  DraWatcher::Options o;
  o.watch.min_backoff = 50ms;
  o.watch.max_backoff = 200ms;
  o.watch.watch_timeout_seconds = 5;
  o.coalesce = 50ms;
  o.decide_within = 1s;
  return o;
}

// Whether `sync` reports an open watch within 10 s.
bool Watching(const WatchSync& sync) {
  for (auto until = WatchSync::Clock::now() + 10s; WatchSync::Clock::now() < until;) {
    if (sync.At(WatchSync::Clock::now()).watching) return true;
    std::this_thread::sleep_for(20ms);
  }
  return false;
}

NodeClass Node(const std::string& name) {
  NodeClass n;
  n.name = name;
  return n;
}

TEST_CASE("the DRA watch lists classes and slices, then tells each change with its nodes",
          "[webhook][dra-watch]") {
  FakeDraApi fake(true);
  fake.classes().Put(Class("gpu.nvidia.com", "nvidia.com/gpu"));
  fake.slices().Put(Slice("a100-0", 2));
  fake.slices().Put(Slice("a100-1", 4));
  fake.Listen();
  Recorder sink;
  LogCapture log;
  DraWatcher watch(fake.api().Endpoint(), &sink, log.Sink(), Fast());
  watch.Start();

  Recorder::Told listed = sink.Nth(1);
  REQUIRE(listed.dra);
  CHECK(listed.all);
  CHECK(listed.dra->classes().size() == 1);
  CHECK(listed.dra->ClassForResource("nvidia.com/gpu") == 0);
  CHECK(listed.dra->devices().size() == 6);
  REQUIRE(listed.dra->DevicesOf(Node("a100-1")));
  CHECK(listed.dra->DevicesOf(Node("a100-1"))->devices.size() == 4);
  CHECK(log.Messages("DRA objects published").size() == 1);
  // Each of its watches keeps how current it is, for /metrics and /readyz.
  CHECK(watch.class_sync().resource() == "deviceclasses");
  CHECK(watch.slice_sync().resource() == "resourceslices");
  CHECK(Watching(watch.class_sync()));
  CHECK(Watching(watch.slice_sync()));

  // A slice of one node: that node alone, and the other node's devices are
  // the ones it had (shared, not evaluated again).
  fake.slices().Put(Slice("a100-0", 3, 2));
  Recorder::Told one = sink.Nth(2);
  CHECK_FALSE(one.all);
  CHECK(one.nodes == std::set<std::string>{"a100-0"});
  CHECK(one.dra->DevicesOf(Node("a100-0"))->devices.size() == 3);
  CHECK(one.dra->DevicesOf(Node("a100-1"))->devices.front() ==
        listed.dra->DevicesOf(Node("a100-1"))->devices.front());

  // A class changes what every device is.
  fake.classes().Put(Class("gpu.nvidia.com", "example.com/gpu"));
  Recorder::Told all = sink.Nth(3);
  CHECK(all.all);
  CHECK(all.dra->ClassForResource("example.com/gpu") == 0);
  CHECK(all.dra->ClassForResource("nvidia.com/gpu") == -1);

  fake.slices().Delete("a100-1-gpu");
  Recorder::Told gone = sink.Nth(4);
  CHECK(gone.nodes == std::set<std::string>{"a100-1"});
  CHECK(gone.dra->DevicesOf(Node("a100-1")) == nullptr);
  watch.Stop();
}

TEST_CASE("where resource.k8s.io is not served, the DRA watch says so once and tells none",
          "[webhook][dra-watch]") {
  FakeDraApi fake(false);
  fake.Listen();
  Recorder sink;
  LogCapture log;
  DraWatcher watch(fake.api().Endpoint(), &sink, log.Sink(), Fast());
  watch.Start();
  Recorder::Told told = sink.Nth(1);
  REQUIRE(told.dra);  // known: the cluster has no DeviceClasses
  CHECK(told.dra->classes().empty());
  CHECK(told.all);
  CHECK(log.Messages("resource.k8s.io is not served: no DRA devices, and none of the inventory's "
                     "extended resources is DRA's")
            .size() == 1);
  // Nothing to watch: never stale, however long it runs.
  for (const WatchSync* sync : {&watch.class_sync(), &watch.slice_sync()}) {
    WatchSync::State later = sync->At(WatchSync::Clock::now() + std::chrono::hours(1));
    CHECK(later.ever_synced);
    CHECK(later.unsynced == 0s);
    CHECK(later.last_error.empty());
  }
  watch.Stop();
  CHECK(sink.count() == 1);
}

TEST_CASE("a DRA watch that cannot list tells the sink the objects are unknown, in time",
          "[webhook][dra-watch]") {
  FakeDraApi fake(true);
  fake.api().server().set_pre_routing_handler(
      [](const httplib::Request& req, httplib::Response& res) {
        if (req.path.find("/resourceslices") == std::string::npos)
          return httplib::Server::HandlerResponse::Unhandled;
        res.status = 403;
        res.set_content(R"({"kind":"Status","reason":"Forbidden","message":"forbidden"})",
                        "application/json");
        return httplib::Server::HandlerResponse::Handled;
      });
  fake.Listen();
  Recorder sink;
  LogCapture log;
  DraWatcher watch(fake.api().Endpoint(), &sink, log.Sink(), Fast());
  watch.Start();
  Recorder::Told told = sink.Nth(1);
  CHECK(told.dra == nullptr);
  CHECK(told.all);
  CHECK(log.Messages("resource slice list failed").size() >= 1);
  CHECK(log.Messages("DRA objects not read in time: extended resources no node lists are only "
                     "warnings until they are")
            .size() == 1);
  // The slices' watch ages from its start, and says why; the classes' does not.
  WatchSync::State slices = watch.slice_sync().At(WatchSync::Clock::now() + std::chrono::hours(1));
  CHECK_FALSE(slices.ever_synced);
  CHECK(slices.unsynced >= std::chrono::hours(1));
  CHECK(slices.last_error.rfind("resource slice list failed: HTTP 403", 0) == 0);
  CHECK(Watching(watch.class_sync()));
  watch.Stop();
}

}  // namespace
}  // namespace gpulint::webhook_test
