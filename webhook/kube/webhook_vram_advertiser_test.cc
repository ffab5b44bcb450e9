// The VRAM advertiser: the patch it computes for a Node (a pure function), and
// the advertiser itself fed by a real NodeWatcher, against a stand-in for the
// API server that keeps Nodes, streams their changes and applies JSON patches.
#include <catch2/catch.hpp>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "engine/json/json_parser.h"
#include "engine/policy/policy_test_support.h"
#include "engine/yaml/loader.h"
#include "tests/webhook_fake_node_api.h"
#include "tests/webhook_test_support.h"
#include "webhook/kube/node_watch.h"
#include "webhook/kube/vram_advertiser.h"

namespace gpulint::webhook_test {
namespace {

using Clock = std::chrono::steady_clock;
using policy_testing::Q;

Json GpuNode(const std::string& name, const std::string& count, const std::string& mib) {
  Json resources = {{"cpu", "96"}, {"memory", "1056Gi"}, {"nvidia.com/gpu", count}};
  return Json{{"metadata",
               {{"name", name},
                {"resourceVersion", "41"},
                {"labels",
                 {{"nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB"},
                  {"nvidia.com/gpu.count", count},
                  {"nvidia.com/gpu.memory", mib}}}}},
              {"status", {{"capacity", resources}, {"allocatable", resources}}}};
}

Json CpuNode(const std::string& name) {
  Json resources = {{"cpu", "16"}, {"memory", "64Gi"}};
  return Json{{"metadata", {{"name", name}}},
              {"status", {{"capacity", resources}, {"allocatable", resources}}}};
}

// `node` with `resource` already in its capacity and allocatable.
Json With(Json node, const std::string& capacity, const std::string& allocatable,
          const std::string& resource = "gpulint.io/vram") {
  if (!capacity.empty()) node["status"]["capacity"][resource] = capacity;
  if (!allocatable.empty()) node["status"]["allocatable"][resource] = allocatable;
  return node;
}

// What the advertiser makes of `node` as the watch would hand it over.
NodeVramFacts FactsOf(const Json& node) {
  Value object;
  Error error;
  REQUIRE(ParseJson(node.dump(), 64, &object, &error));
  NodeClass parsed;
  bool ok = NodeClassFromNode(object, "api-server", &parsed, &error);
  return ReadNodeVramFacts(object, ok ? &parsed : nullptr, error);
}

std::string Add(const std::string& map, const std::string& value,
                const std::string& resource = "gpulint.io~1vram") {
  return R"({"op":"add","path":"/status/)" + map + "/" + resource + R"(","value":")" + value +
         R"("})";
}

TEST_CASE("the VRAM patch: GPU count × VRAM per GPU, only where the status differs",
          "[webhook][vram]") {
  Json a100 = GpuNode("a100-0", "8", "81920");
  Json hollow = a100;
  hollow.erase("status");
  Json no_maps = a100;
  no_maps["status"] = Json{{"nodeInfo", {{"kubeletVersion", "v1.31.0"}}}};
  Json l4 = GpuNode("l4-0", "1", "23034");
  l4["metadata"]["labels"]["nvidia.com/gpu.replicas"] = "4";
  l4["metadata"]["labels"]["nvidia.com/gpu.sharing-strategy"] = "time-slicing";
  Json no_memory = a100;
  no_memory["metadata"]["labels"].erase("nvidia.com/gpu.memory");
  struct Case {
    const char* what;
    Json node;
    std::string resource;
    std::string patch;
    GpuMemoryModel model = {};
  };
  const std::vector<Case> cases = {
      {"8 × A100 80 GB, nothing advertised yet", a100, "gpulint.io/vram",
       "[" + Add("capacity", "640Gi") + "," + Add("allocatable", "640Gi") + "]"},
      {"already advertised, in another spelling", With(a100, "640Gi", "687194767360"),
       "gpulint.io/vram", ""},
      {"capacity set by hand, allocatable never copied (no kubelet)", With(a100, "640Gi", ""),
       "gpulint.io/vram", "[" + Add("allocatable", "640Gi") + "]"},
      {"a stale value, from before the node was relabelled", With(a100, "320Gi", "320Gi"),
       "gpulint.io/vram", "[" + Add("capacity", "640Gi") + "," + Add("allocatable", "640Gi") + "]"},
      {"kubelet re-registered and zeroed it", With(a100, "0", "0"), "gpulint.io/vram",
       "[" + Add("capacity", "640Gi") + "," + Add("allocatable", "640Gi") + "]"},
      {"one byte short", With(a100, "687194767359", "640Gi"), "gpulint.io/vram",
       "[" + Add("capacity", "640Gi") + "]"},
      {"time-sliced: one card's memory, not replicas × memory", l4, "gpulint.io/vram",
       "[" + Add("capacity", "23034Mi") + "," + Add("allocatable", "23034Mi") + "]"},
      {"the policy names another resource", With(a100, "640Gi", "640Gi"), "example.com/vram",
       "[" + Add("capacity", "640Gi", "example.com~1vram") + "," +
           Add("allocatable", "640Gi", "example.com~1vram") + "]"},
      {"no status at all: added whole, guarded by the resourceVersion", hollow, "gpulint.io/vram",
       R"([{"op":"test","path":"/metadata/resourceVersion","value":"41"},)"
       R"({"op":"add","path":"/status","value":{"capacity":{"gpulint.io/vram":"640Gi"},)"
       R"("allocatable":{"gpulint.io/vram":"640Gi"}}}])"},
      {"a status without its maps", no_maps, "gpulint.io/vram",
       R"([{"op":"test","path":"/metadata/resourceVersion","value":"41"},)"
       R"({"op":"add","path":"/status/capacity","value":{"gpulint.io/vram":"640Gi"}},)"
       R"({"op":"add","path":"/status/allocatable","value":{"gpulint.io/vram":"640Gi"}}])"},
      {"a CPU node", CpuNode("cpu-0"), "gpulint.io/vram", ""},
      {"GPUs without a memory label", no_memory, "gpulint.io/vram", ""},
      {"no policy loaded yet", a100, "", ""},
      // The default policy's model: memory.total less the driver's 616Mi,
      // an H200's measured reserve (testdata/gpu/h200).
      {"the driver's reserve left out", a100, "gpulint.io/vram",
       "[" + Add("capacity", "650432Mi") + "," + Add("allocatable", "650432Mi") + "]",
       GpuMemoryModel{Q("616Mi"), Q("621Mi")}},
      {"advertised before the reserve was known", With(a100, "640Gi", "640Gi"), "gpulint.io/vram",
       "[" + Add("capacity", "650432Mi") + "," + Add("allocatable", "650432Mi") + "]",
       GpuMemoryModel{Q("616Mi"), Q("621Mi")}},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    CHECK(VramPatch(FactsOf(c.node), VramTarget{c.resource, c.model}) == c.patch);
  }
}

TEST_CASE("a node whose labels do not read gets no patch, and says why", "[webhook][vram]") {
  NodeVramFacts facts = FactsOf(GpuNode("bad-0", "1", "abc"));
  CHECK(facts.name == "bad-0");
  CHECK_FALSE(facts.gpu);
  CHECK(facts.problem ==
        "api-server: metadata.labels[\"nvidia.com/gpu.memory\"]: expected a whole number of at "
        "least 1, got \"abc\"");
  CHECK(VramPatch(facts, VramTarget{"gpulint.io/vram", {}}).empty());
}

class PolicyResource {
 public:
  VramAdvertiser::TargetSource Source() {
    return [this] {
      std::lock_guard<std::mutex> lock(mu_);
      return target_;
    };
  }
  void Set(const std::string& resource) {
    std::lock_guard<std::mutex> lock(mu_);
    target_.resource = resource;
  }
  void SetReserve(const Quantity& reserved) {
    std::lock_guard<std::mutex> lock(mu_);
    target_.model.driver_reserved = reserved;
  }

 private:
  std::mutex mu_;
  VramTarget target_{"gpulint.io/vram", {}};
};

// The names of the nodes a watch holds usable, in order.
class NodeNames : public NodeSink {
 public:
  void ReplaceNodes(std::vector<NodeClass> nodes) override {
    std::lock_guard<std::mutex> lock(mu_);
    names_.clear();
    for (const NodeClass& n : nodes) names_.insert(n.name);
  }
  void PutNode(NodeClass node) override {
    std::lock_guard<std::mutex> lock(mu_);
    names_.insert(node.name);
  }
  void RemoveNode(const std::string& name) override {
    std::lock_guard<std::mutex> lock(mu_);
    names_.erase(name);
  }
  std::vector<std::string> names() {
    std::lock_guard<std::mutex> lock(mu_);
    return {names_.begin(), names_.end()};
  }

 private:
  std::mutex mu_;
  std::set<std::string> names_;
};

// A node watch feeding an advertiser, as gpulint-webhook --advertise-vram runs them.
class Advertising {
 public:
  explicit Advertising(FakeNodeApi& fake, VramAdvertiser::TargetSource target = {})
      : watcher_(fake.api().Endpoint(), &inventory_, log_.Sink(), &metrics_, WatchOptions()),
        advertiser_(
            fake.api().Endpoint(),
            target ? target : [] { return VramTarget{"gpulint.io/vram", {}}; }, log_.Sink(),
            &metrics_, AdvertiserOptions()) {
    watcher_.SetObserver(&advertiser_);
    advertiser_.Start();
    watcher_.Start();
  }
  ~Advertising() {
    watcher_.Stop();
    advertiser_.Stop();
  }

  LogCapture& log() { return log_; }
  std::string Metric(const std::string& series) { return webhook_test::Metric(metrics_, series); }
  std::string Nodes(const std::string& state) {
    return Metric("gpulint_webhook_vram_nodes{state=\"" + state + "\"}");
  }
  std::string Patches(const std::string& result) {
    return Metric("gpulint_webhook_vram_patches_total{result=\"" + result + "\"}");
  }
  uint64_t events() const { return watcher_.events(); }
  std::vector<std::string> inventory() { return inventory_.names(); }

 private:
  static NodeWatcher::Options WatchOptions() {
    NodeWatcher::Options o;
    o.min_backoff = std::chrono::milliseconds(10);
    o.max_backoff = std::chrono::milliseconds(50);
    o.watch_timeout_seconds = 2;
    return o;
  }
  static VramAdvertiser::Options AdvertiserOptions() {
    VramAdvertiser::Options o;
    o.min_backoff = std::chrono::milliseconds(10);
    o.max_backoff = std::chrono::milliseconds(100);
    o.policy_poll = std::chrono::milliseconds(20);
    return o;
  }
  LogCapture log_;
  Metrics metrics_;
  NodeNames inventory_;
  NodeWatcher watcher_;
  VramAdvertiser advertiser_;
};

const std::string kA100Patch =
    "[" + Add("capacity", "640Gi") + "," + Add("allocatable", "640Gi") + "]";

// Lets the watch bring back what the last patch wrote, so that a patch owed
// after it would have been sent.
void Settle() { std::this_thread::sleep_for(std::chrono::milliseconds(300)); }

TEST_CASE("each GPU node is patched once with its VRAM, right nodes and CPU nodes are left alone",
          "[webhook][vram]") {
  FakeNodeApi fake;
  fake.Put(GpuNode("a100-0", "8", "81920"));
  fake.Put(With(GpuNode("a100-1", "8", "81920"), "640Gi", "640Gi"));
  fake.Put(CpuNode("cpu-0"));
  fake.Put(GpuNode("bad-0", "1", "abc"));
  Advertising run(fake);
  REQUIRE(Eventually([&] { return run.Nodes("advertised") == "2" && run.events() >= 1; }));
  Settle();

  std::vector<FakeNodeApi::Patched> patches = fake.patches();
  REQUIRE(patches.size() == 1);
  CHECK(patches[0].node == "a100-0");
  CHECK(patches[0].content_type == "application/json-patch+json");
  CHECK(patches[0].body == kA100Patch);
  Json status = fake.Node("a100-0")["status"];
  CHECK(status["capacity"]["gpulint.io/vram"] == "640Gi");
  CHECK(status["allocatable"]["gpulint.io/vram"] == "640Gi");
  CHECK(status["capacity"]["nvidia.com/gpu"] == "8");  // nothing else touched
  CHECK(fake.Node("a100-0")["metadata"]["labels"] ==
        GpuNode("a100-0", "8", "81920")["metadata"]["labels"]);

  // The node whose labels do not read is skipped, said once, and counted; the
  // watch goes on with the others.
  CHECK(run.Nodes("skipped") == "1");
  CHECK(run.Nodes("pending") == "0");
  CHECK(run.Patches("ok") == "1");
  CHECK(run.Patches("failed") == "0");
  std::vector<Json> skipped =
      run.log().Messages("node VRAM not advertised: the node does not read");
  REQUIRE(skipped.size() == 1);
  CHECK(skipped[0]["node"] == "bad-0");
  CHECK(run.inventory() == std::vector<std::string>{"a100-0", "a100-1", "cpu-0"});
  std::vector<Json> advertised = run.log().Messages("node VRAM advertised");
  REQUIRE(advertised.size() == 1);
  CHECK(advertised[0]["value"] == "640Gi");
  CHECK(advertised[0]["resource"] == "gpulint.io/vram");
}

TEST_CASE("a node re-registered or relabelled is patched again, garbage labels leave the value",
          "[webhook][vram]") {
  FakeNodeApi fake;
  fake.Put(GpuNode("a100-0", "8", "81920"));
  Advertising run(fake);
  REQUIRE(Eventually([&] { return fake.patches().size() == 1 && run.Nodes("advertised") == "1"; }));

  // Deleted and made again by the kubelet: a new object, without the resource.
  fake.Delete("a100-0");
  fake.Put(GpuNode("a100-0", "8", "81920"));
  REQUIRE(Eventually([&] { return fake.patches().size() == 2; }));
  CHECK(fake.patches()[1].body == kA100Patch);
  REQUIRE(Eventually(
      [&] { return fake.Node("a100-0")["status"]["allocatable"].contains("gpulint.io/vram"); }));

  // GPU Feature Discovery relabels it: half the memory per card.
  Json relabelled = fake.Node("a100-0");
  relabelled["metadata"]["labels"]["nvidia.com/gpu.memory"] = "40960";
  fake.Put(relabelled);
  REQUIRE(Eventually([&] { return fake.patches().size() == 3; }));
  CHECK(fake.patches()[2].body ==
        "[" + Add("capacity", "320Gi") + "," + Add("allocatable", "320Gi") + "]");

  // Labels that stop reading: skipped and counted, and the last value stays.
  REQUIRE(Eventually([&] { return run.Nodes("advertised") == "1"; }));
  Json broken = fake.Node("a100-0");
  broken["metadata"]["labels"]["nvidia.com/gpu.count"] = "eight";
  fake.Put(broken);
  REQUIRE(Eventually([&] { return run.Nodes("skipped") == "1"; }));
  Settle();
  CHECK(fake.patches().size() == 3);
  CHECK(fake.Node("a100-0")["status"]["capacity"]["gpulint.io/vram"] == "320Gi");
  // The watch says so once, not on each of the node's status updates (a
  // kubelet's heartbeats); a different problem is said again.
  CHECK(run.log().Messages("node skipped").size() == 1);
  uint64_t seen = run.events();
  broken = fake.Node("a100-0");
  broken["status"]["conditions"] = Json::array({{{"type", "Ready"}, {"status", "True"}}});
  fake.Put(broken);
  REQUIRE(Eventually([&] { return run.events() > seen; }));
  CHECK(run.log().Messages("node skipped").size() == 1);
  seen = run.events();
  broken["metadata"]["labels"]["nvidia.com/gpu.count"] = "nine";
  fake.Put(broken);
  REQUIRE(Eventually([&] { return run.events() > seen; }));
  REQUIRE(Eventually([&] { return run.log().Messages("node skipped").size() == 2; }));
  CHECK(run.log().Messages("node skipped")[1]["error"].get<std::string>().find("\"nine\"") !=
        std::string::npos);

  // Deleted for good: forgotten.
  fake.Delete("a100-0");
  REQUIRE(Eventually([&] { return run.Nodes("skipped") == "0"; }));
  CHECK(run.Nodes("advertised") == "0");
}

TEST_CASE("failed patches are retried with backoff, also across an API server restart",
          "[webhook][vram]") {
  FakeNodeApi fake;
  fake.FailPatches(1000000, 503);
  fake.Put(GpuNode("a100-0", "8", "81920"));
  Advertising run(fake);
  REQUIRE(Eventually([&] { return fake.patches().size() >= 3; }));
  CHECK(run.Nodes("pending") == "1");
  std::vector<Json> failed = run.log().Messages("node VRAM advertisement failed");
  REQUIRE(!failed.empty());
  CHECK(failed[0]["node"] == "a100-0");
  CHECK(failed[0]["error"] == R"(HTTP 503: {"kind":"Status","message":"injected failure"})");
  CHECK(failed[0].contains("retry_ms"));

  // The API server goes away: the retries meet a closed port.
  std::string before = run.Patches("failed");
  fake.api().Stop();
  REQUIRE(Eventually([&] { return std::stoi(run.Patches("failed")) >= std::stoi(before) + 2; }));
  // It comes back, and works.
  fake.FailPatches(0, 0);
  fake.api().Listen();
  // (The watch may bring the write back before the PATCH's answer is read.)
  REQUIRE(Eventually([&] { return run.Nodes("advertised") == "1" && run.Patches("ok") == "1"; }));
  CHECK(fake.Node("a100-0")["status"]["capacity"]["gpulint.io/vram"] == "640Gi");
  CHECK(fake.patches().back().body == kA100Patch);
}

TEST_CASE("the policy's vram resource is followed when the policy reloads", "[webhook][vram]") {
  FakeNodeApi fake;
  fake.Put(GpuNode("a100-0", "8", "81920"));
  PolicyResource policy;
  Advertising run(fake, policy.Source());
  REQUIRE(Eventually([&] { return fake.patches().size() == 1 && run.Nodes("advertised") == "1"; }));
  // The watch has brought the write back: a patch made now is the only one.
  Settle();
  policy.Set("example.com/vram");
  REQUIRE(Eventually([&] { return fake.patches().size() == 2 && run.Nodes("advertised") == "1"; }));
  CHECK(fake.patches()[1].body == "[" + Add("capacity", "640Gi", "example.com~1vram") + "," +
                                      Add("allocatable", "640Gi", "example.com~1vram") + "]");
  Json capacity = fake.Node("a100-0")["status"]["capacity"];
  CHECK(capacity["example.com/vram"] == "640Gi");
  CHECK(capacity["gpulint.io/vram"] == "640Gi");  // not ours to remove any more

  // A reload that changes what the driver reserves changes the value owed.
  Settle();
  policy.SetReserve(Q("616Mi"));
  REQUIRE(Eventually([&] { return fake.patches().size() == 3 && run.Nodes("advertised") == "1"; }));
  CHECK(fake.patches()[2].body == "[" + Add("capacity", "650432Mi", "example.com~1vram") + "," +
                                      Add("allocatable", "650432Mi", "example.com~1vram") + "]");
  CHECK(run.log().Messages("advertising node VRAM under a new driver reserve").size() == 1);
}

TEST_CASE("a relist forgets the nodes it no longer holds", "[webhook][vram]") {
  // As after a watch that expired (410 Gone): the watcher lists again and
  // tells the advertiser which nodes are left. No API server answers here, so
  // the patch owed to the GPU node stays owed.
  KubeEndpoint nowhere;
  nowhere.host = "127.0.0.1";
  nowhere.port = 1;
  LogCapture log;
  Metrics metrics;
  VramAdvertiser advertiser(
      nowhere, [] { return VramTarget{"gpulint.io/vram", {}}; }, log.Sink(), &metrics,
      VramAdvertiser::Options{});
  advertiser.Start();
  auto see = [&](const Json& node) {
    Value object;
    Error error;
    REQUIRE(ParseJson(node.dump(), 64, &object, &error));
    NodeClass parsed;
    bool ok = NodeClassFromNode(object, "api-server", &parsed, &error);
    advertiser.NodeSeen(object, ok ? &parsed : nullptr, error);
  };
  auto nodes = [&](const std::string& state) {
    return Metric(metrics, "gpulint_webhook_vram_nodes{state=\"" + state + "\"}");
  };
  see(GpuNode("a100-0", "8", "81920"));
  see(GpuNode("bad-0", "1", "abc"));
  see(With(GpuNode("a100-1", "8", "81920"), "640Gi", "640Gi"));
  CHECK(nodes("pending") == "1");
  CHECK(nodes("skipped") == "1");
  CHECK(nodes("advertised") == "1");
  advertiser.Listed({"a100-1"});
  CHECK(nodes("pending") == "0");
  CHECK(nodes("skipped") == "0");
  CHECK(nodes("advertised") == "1");
  advertiser.NodeGone("a100-1");
  CHECK(nodes("advertised") == "0");
  advertiser.Stop();
}

TEST_CASE("replicas advertising together write the same value and stop", "[webhook][vram]") {
  FakeNodeApi fake;
  fake.Put(GpuNode("a100-0", "8", "81920"));
  std::string added_version = fake.Node("a100-0")["metadata"]["resourceVersion"];
  Advertising one(fake), two(fake);
  REQUIRE(
      Eventually([&] { return one.Nodes("advertised") == "1" && two.Nodes("advertised") == "1"; }));
  Settle();
  std::vector<FakeNodeApi::Patched> patches = fake.patches();
  REQUIRE(!patches.empty());
  CHECK(patches.size() <= 2);
  for (const auto& p : patches) CHECK(p.body == kA100Patch);
  // One write; a second identical patch changes nothing.
  CHECK(std::stoll(fake.Node("a100-0")["metadata"]["resourceVersion"].get<std::string>()) ==
        std::stoll(added_version) + 1);
}

}  // namespace
}  // namespace gpulint::webhook_test
