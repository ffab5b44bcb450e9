// The Node list+watch against a local HTTPS stand-in for the API server that
// serves the recorded testdata/admission/nodes-list.json and nodes-watch.jsonl.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <map>

#include "engine/json/json_parser.h"
#include "engine/yaml/loader.h"
#include "common/base64.h"
#include "kube/kubeconfig.h"
#include "tests/webhook_test_support.h"
#include "webhook/kube/node_watch.h"

namespace gpulint::webhook_test {
namespace {

// GET /api/v1/nodes answers the recorded list; the first watch streams the
// recorded events, the second says 410 Gone, later ones end empty.
class FakeApiServer {
 public:
  explicit FakeApiServer(const std::string& sans = "DNS:localhost,IP:127.0.0.1") : api_(sans) {
    api_.server().Get("/api/v1/nodes", [this](const httplib::Request& req, httplib::Response& res) {
      Serve(req, res);
    });
    api_.Listen();
  }
  ~FakeApiServer() { api_.Stop(); }  // before the members its handlers use go

  int port() const { return api_.port(); }
  std::string ca_pem() const { return api_.ca_pem(); }
  KubeEndpoint Endpoint() const { return api_.Endpoint(); }
  int lists() const { return lists_; }
  std::vector<std::string> watch_versions() {
    std::lock_guard<std::mutex> lock(mu_);
    return watch_versions_;
  }
  std::vector<std::string> authorizations() {
    std::lock_guard<std::mutex> lock(mu_);
    return authorizations_;
  }

 private:
  void Serve(const httplib::Request& req, httplib::Response& res) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      authorizations_.push_back(req.get_header_value("Authorization"));
      if (req.has_param("watch")) watch_versions_.push_back(req.get_param_value("resourceVersion"));
    }
    if (!req.has_param("watch")) {
      ++lists_;
      res.set_content(ReadFile(AdmissionDir() + "/nodes-list.json"), "application/json");
      return;
    }
    int n = ++watches_;
    if (n == 1) {
      std::string events = ReadFile(AdmissionDir() + "/nodes-watch.jsonl");
      res.set_chunked_content_provider("application/json", [events](size_t, httplib::DataSink& sink) {
        // One event per chunk, as the API server flushes them.
        std::istringstream in(events);
        for (std::string line; std::getline(in, line);) {
          line += "\n";
          sink.write(line.data(), line.size());
        }
        sink.done();
        return true;
      });
    } else if (n == 2) {
      res.set_content(
          R"json({"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},)json"
          R"json("status":"Failure","message":"too old resource version: 202 (205)",)json"
          R"json("reason":"Expired","code":410}})json"
          "\n",
          "application/json");
    } else {
      res.set_content("", "application/json");
    }
  }

  FakeKubeApi api_;
  std::atomic<int> lists_{0}, watches_{0};
  std::mutex mu_;
  std::vector<std::string> watch_versions_, authorizations_;
};

// What the watcher delivered: each call ("replace 3", "put cpu-0",
// "remove cpu-0"), and the nodes held after each, by name.
class Published : public NodeSink {
 public:
  void ReplaceNodes(std::vector<NodeClass> nodes) override {
    std::lock_guard<std::mutex> lock(mu_);
    nodes_.clear();
    for (NodeClass& n : nodes) nodes_[n.name] = std::move(n);
    Took("replace " + std::to_string(nodes_.size()));
  }
  void PutNode(NodeClass node) override {
    std::lock_guard<std::mutex> lock(mu_);
    std::string name = node.name;
    nodes_[name] = std::move(node);
    Took("put " + name);
  }
  void RemoveNode(const std::string& name) override {
    std::lock_guard<std::mutex> lock(mu_);
    nodes_.erase(name);
    Took("remove " + name);
  }
  std::vector<std::vector<NodeClass>> snapshots() {
    std::lock_guard<std::mutex> lock(mu_);
    return snapshots_;
  }
  std::vector<std::string> calls() {
    std::lock_guard<std::mutex> lock(mu_);
    return calls_;
  }

 private:
  void Took(std::string call) {
    calls_.push_back(std::move(call));
    std::vector<NodeClass> all;
    for (const auto& [name, node] : nodes_) all.push_back(node);
    snapshots_.push_back(std::move(all));
  }

  std::mutex mu_;
  std::map<std::string, NodeClass> nodes_;
  std::vector<std::vector<NodeClass>> snapshots_;
  std::vector<std::string> calls_;
};

std::vector<std::string> Names(const std::vector<NodeClass>& nodes) {
  std::vector<std::string> names;
  for (const NodeClass& n : nodes) names.push_back(n.name);
  return names;
}

KubeEndpoint EndpointFor(const FakeApiServer& api) { return api.Endpoint(); }

NodeWatcher::Options FastRetries() {
  NodeWatcher::Options o;
  o.min_backoff = std::chrono::milliseconds(10);
  o.max_backoff = std::chrono::milliseconds(50);
  return o;
}

TEST_CASE("list then watch from its resourceVersion and list again on 410 Gone",
          "[webhook][node-watch]") {
  FakeApiServer api;
  Published published;
  LogCapture log;
  Metrics metrics;
  NodeWatcher watcher(EndpointFor(api), &published, log.Sink(), &metrics, FastRetries());
  watcher.Start();
  // list, 3 events, list again
  REQUIRE(Eventually([&] { return published.snapshots().size() >= 5; }));
  watcher.Stop();
  CHECK(api.lists() >= 2);

  // The list whole, then each event alone: the sink keeps its own groups.
  std::vector<std::string> calls = published.calls();
  REQUIRE(calls.size() >= 5);
  CHECK(std::vector<std::string>(calls.begin(), calls.begin() + 5) ==
        std::vector<std::string>{"replace 3", "put cpu-0", "put l4-ts-0", "remove cpu-0",
                                 "replace 3"});
  std::vector<std::vector<NodeClass>> snaps = published.snapshots();
  CHECK(Names(snaps[0]) == std::vector<std::string>{"a100-80g-0", "cpu-0", "l4-ts-0"});
  CHECK(snaps[1][1].labels.at("gpulint.io/example") == "relabelled");       // MODIFIED cpu-0
  CHECK(snaps[2][2].allocatable.at("nvidia.com/gpu").Value() == 3);         // MODIFIED l4-ts-0
  CHECK(Names(snaps[3]) == std::vector<std::string>{"a100-80g-0", "l4-ts-0"});  // DELETED cpu-0
  CHECK(snaps[3][1].allocatable.at("nvidia.com/gpu").Value() == 3);
  CHECK(Names(snaps[4]) == std::vector<std::string>{"a100-80g-0", "cpu-0", "l4-ts-0"});

  std::vector<std::string> versions = api.watch_versions();
  REQUIRE(versions.size() >= 2);
  CHECK(versions[0] == "202");  // the list's resourceVersion
  CHECK(versions[1] == "205");  // the last event's
  for (const std::string& auth : api.authorizations()) CHECK(auth == "Bearer test-token");
  std::string text = metrics.Render();
  CHECK_THAT(text, Catch::Contains("gpulint_webhook_node_watch_events_total{type=\"MODIFIED\"} 2\n"));
  CHECK_THAT(text, Catch::Contains("gpulint_webhook_node_watch_events_total{type=\"DELETED\"} 1\n"));
  CHECK_THAT(text, Catch::Contains("gpulint_webhook_node_watch_events_total{type=\"ERROR\"} 1\n"));
  CHECK(log.Messages("node watch expired (410 Gone), listing again").size() >= 1);
}

TEST_CASE("watched nodes reach the webhook's inventory", "[webhook][node-watch]") {
  FakeApiServer api;
  TestServer s;
  NodeWatcher watcher(EndpointFor(api), &s.server(), s.log().Sink(), &s.server().metrics(),
                      FastRetries());
  watcher.Start();
  REQUIRE(Eventually([&] { return Metric(s.server(), "gpulint_webhook_inventory_nodes") == "3"; }));
  CHECK_THAT(s.Review("validate", ReadFile(CapturedReviews()[1])).dump(),
             Catch::Contains("no-matching-node"));
  watcher.Stop();
}

// A GPU node as the watch reads it, with its kubelet heartbeat and taints.
NodeClass WatchedNode(const std::string& heartbeat, const std::string& taints = "[]") {
  std::string json = R"({"kind":"Node","metadata":{"name":"gpu-1","labels":{
      "kubernetes.io/hostname":"gpu-1","nvidia.com/gpu.product":"NVIDIA-A100-SXM4-80GB"}},
    "spec":{"taints":)" + taints + R"(},
    "status":{"allocatable":{"cpu":"96","memory":"1000Gi","nvidia.com/gpu":"8","pods":"110"},
      "conditions":[{"type":"Ready","status":"True","lastHeartbeatTime":")" + heartbeat + R"("}]}})";
  Value value;
  Error error;
  REQUIRE(ParseJson(json, 64, &value, &error));
  NodeClass node;
  REQUIRE(NodeClassFromNode(value, "api-server", &node, &error));
  return node;
}

const NodeClass* Named(const std::vector<NodeClass>& nodes, const std::string& name) {
  for (const NodeClass& n : nodes)
    if (n.name == name) return &n;
  return nullptr;
}

std::string GpuPodReview() {
  return R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{
    "uid":"7f0c","kind":{"group":"","version":"v1","kind":"Pod"},
    "resource":{"group":"","version":"v1","resource":"pods"},"namespace":"ml","operation":"CREATE",
    "object":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"train","namespace":"ml"},
      "spec":{"nodeSelector":{"kubernetes.io/hostname":"gpu-1"},"containers":[{"name":"t",
        "image":"nvcr.io/nvidia/pytorch:24.05-py3","resources":{
          "requests":{"cpu":"4","memory":"64Gi","nvidia.com/gpu":"1"},
          "limits":{"memory":"64Gi","nvidia.com/gpu":"1"}}}]}}}})";
}

TEST_CASE("a kubelet heartbeat publishes nothing, a taint publishes, and pods see it",
          "[webhook][node-watch]") {
  TestServer s;
  WebhookServer& server = s.server();
  const std::string kPublishes = "gpulint_webhook_inventory_publishes_total";
  server.ReplaceNodes({WatchedNode("2026-11-24T10:00:00Z")});
  Snapshot before = server.CurrentSnapshot();
  REQUIRE(before.inventory);
  std::string publishes = Metric(server, kPublishes);
  size_t nodes = before.inventory->size();
  CHECK(Named(before.inventory->Nodes(), "gpu-1") != nullptr);
  Json fits = s.Review("validate", GpuPodReview());
  CHECK(fits.at("response").at("allowed") == true);
  CHECK_THAT(fits.dump(), !Catch::Contains("no-matching-node"));

  server.PutNode(WatchedNode("2026-11-24T10:00:10Z"));  // the kubelet's status update
  CHECK(server.CurrentSnapshot().inventory == before.inventory);
  CHECK(Metric(server, kPublishes) == publishes);

  server.PutNode(WatchedNode("2026-11-24T10:00:20Z",
                             R"([{"key":"maintenance","value":"true","effect":"NoSchedule"}])"));
  Snapshot tainted = server.CurrentSnapshot();
  CHECK(tainted.inventory != before.inventory);
  CHECK(Metric(server, kPublishes) == std::to_string(std::stoi(publishes) + 1));
  std::vector<NodeClass> now = tainted.inventory->Nodes();
  const NodeClass* node = Named(now, "gpu-1");
  REQUIRE(node != nullptr);
  REQUIRE(node->taints.size() == 1);
  CHECK(node->taints[0].key == "maintenance");
  // The snapshot a review may still hold is not changed under it.
  std::vector<NodeClass> then = before.inventory->Nodes();
  REQUIRE(Named(then, "gpu-1") != nullptr);
  CHECK(Named(then, "gpu-1")->taints.empty());
  Json warned = s.Review("validate", GpuPodReview());
  // The taint's value is in the warning: it is cut at 256 bytes, not 120.
  CHECK(warned.at("response").at("warnings") ==
        Json::array({"no-matching-node (spec): 0/1 node in the inventory can run the pod: 1 "
                     "node(s) had untolerated taint {maintenance: true}; it would stay Pending"}));

  server.RemoveNode("gpu-1");
  CHECK(server.CurrentSnapshot().inventory->size() == nodes - 1);
  std::string after_remove = Metric(server, kPublishes);
  server.RemoveNode("gpu-1");  // already gone
  CHECK(Metric(server, kPublishes) == after_remove);
}

TEST_CASE("the node watch reads through a kubeconfig's current context and its tokenFile",
          "[webhook][node-watch]") {
  FakeApiServer api;
  TempDir dir;
  WriteFileAtomic(dir / "token", "file-token\n");
  std::string kubeconfig =
      "apiVersion: v1\nkind: Config\ncurrent-context: test\n"
      "contexts:\n- name: other\n  context: {cluster: nowhere, user: nobody}\n"
      "- name: test\n  context: {cluster: fake, user: watcher}\n"
      "clusters:\n- name: fake\n  cluster:\n    server: https://127.0.0.1:" + std::to_string(api.port()) +
      "\n    certificate-authority-data: " + Base64Encode(api.ca_pem()) + "\n"
      "users:\n- name: watcher\n  user:\n    tokenFile: token\n";
  WriteFileAtomic(dir / "config", kubeconfig);
  KubeEndpoint ep;
  std::string error;
  REQUIRE(KubeconfigEndpoint(dir / "config", &ep, &error));
  CHECK(ep.host == "127.0.0.1");
  CHECK(ep.port == api.port());
  CHECK(ep.ca_pem == api.ca_pem());
  CHECK(ep.token_file == dir / "token");

  Published published;
  LogCapture log;
  NodeWatcher watcher(ep, &published, log.Sink(), nullptr, FastRetries());
  watcher.Start();
  REQUIRE(Eventually([&] { return !published.snapshots().empty(); }));
  watcher.Stop();
  CHECK(api.authorizations().front() == "Bearer file-token");

}

// The review found a broken node watch leaving the inventory stale without a
// sign. Now it ages from its last sync: stale past --watch-stale-after, a
// metric and a /readyz note, and ready all the same.
TEST_CASE("a node watch that cannot sync turns stale, seen in /metrics and /readyz",
          "[webhook][node-watch]") {
  FakeKubeApi api;
  std::atomic<bool> refuse{true};
  api.server().Get("/api/v1/nodes", [&](const httplib::Request& req, httplib::Response& res) {
    if (refuse) {
      res.status = 403;
      res.set_content(R"({"kind":"Status","reason":"Forbidden","message":"nodes is forbidden: )"
                      R"(User \"system:serviceaccount:gpulint:gpulint\" cannot list nodes"})",
                      "application/json");
    } else if (!req.has_param("watch")) {
      res.set_content(R"({"kind":"NodeList","metadata":{"resourceVersion":"7"},"items":[]})",
                      "application/json");
    } else {  // a watch held open, with nothing to say
      res.set_chunked_content_provider("application/json", [&](size_t, httplib::DataSink&) {
        while (!api.stopping()) std::this_thread::sleep_for(std::chrono::milliseconds(20));
        return false;
      });
    }
  });
  api.Listen();
  TestServer s([](ServerOptions& o, const TempDir&) {
    o.watch_stale_after = std::chrono::seconds(1);
  });
  Published sink;
  NodeWatcher watcher(api.Endpoint(), &sink, s.log().Sink(), &s.server().metrics(), FastRetries());
  s.server().AddWatch(&watcher.sync());
  watcher.Start();
  auto readyz = [&] {
    auto res = s.Client()->Get("/readyz");
    REQUIRE(res);
    CHECK(res->status == 200);  // stale or not, the webhook stays ready
    return res->body;
  };
  auto metrics = [&] {
    s.Client()->Get("/metrics");  // refreshes the gauges
    return Metric(s.server(), "gpulint_webhook_watch_stale{resource=\"nodes\"}");
  };
  CHECK(Eventually([&] { return readyz().find("nodes watch stale") != std::string::npos; }));
  std::string body = readyz();
  CHECK(body.rfind("ok (nodes watch stale: not synced for ", 0) == 0);
  CHECK(body.find("(node list failed: HTTP 403: nodes is forbidden: User "
                  "\"system:serviceaccount:gpulint:gpulint\" cannot list nodes); judged against "
                  "what it last read)\n") != std::string::npos);
  CHECK(metrics() == "1");

  refuse = false;  // RBAC repaired: it lists, then watches, and is current
  CHECK(Eventually([&] { return readyz() == "ok\n"; }));
  CHECK(metrics() == "0");
  CHECK(Metric(s.server(), "gpulint_webhook_watch_unsynced_seconds{resource=\"nodes\"}") == "0");
  watcher.Stop();
}

}  // namespace
}  // namespace gpulint::webhook_test
