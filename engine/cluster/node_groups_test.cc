// Groups of alike nodes: a pod gets what it got node by node, and a node
// watch's changes move nodes between groups.
#include <algorithm>
#include <map>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "engine/cluster/inventory.h"
#include "engine/engine.h"
#include "engine/yaml/loader.h"
#include "tests/golden.h"

namespace gpulint {
namespace {

Value Yaml(std::string_view text) {
  Value v;
  Error error;
  REQUIRE(LoadYamlString(text, "test.yaml", LoadLimits{}, [&](Document&& d) {
    v = std::move(d.root);
    return true;
  }, &error));
  return v;
}

NodeClass Node(const std::string& name, const std::string& zone, bool gpu,
               const std::string& extra_label = "") {
  NodeClass n;
  n.name = name;
  n.source = "nodes.yaml";
  n.labels = {{"kubernetes.io/hostname", name}, {"topology.kubernetes.io/zone", zone}};
  if (!extra_label.empty()) n.labels[extra_label] = "yes";
  Quantity q;
  QuantityError e;
  REQUIRE(Quantity::Parse(gpu ? "1000Gi" : "64Gi", &q, &e));
  n.allocatable["memory"] = q;
  if (gpu) {
    n.labels["nvidia.com/gfd.timestamp"] = std::to_string(1700000000 + name.size() * 7 + zone.size());
    n.taints.push_back({"nvidia.com/gpu", "present", "NoSchedule"});
    n.gpu.count = 8;
    n.allocatable["nvidia.com/gpu"] = Quantity::FromInt(8);
  }
  return n;
}

// gpu-0..5 over two zones, one of them labelled apart; cpu-0..2.
std::vector<NodeClass> Cluster() {
  std::vector<NodeClass> nodes;
  nodes.push_back(Node("cpu-1", "a", false));
  for (int i = 0; i < 6; ++i)
    nodes.push_back(Node("gpu-" + std::to_string(i), i % 2 ? "b" : "a", true, i == 4 ? "canary" : ""));
  nodes.push_back(Node("cpu-0", "a", false));
  nodes.push_back(Node("cpu-2", "b", false));
  return nodes;
}

// The scheduler's count of exclusions, node by node, as the engine did before
// nodes were grouped: the oracle the grouped answers are held to.
std::string SummaryNodeByNode(const Placement& p, const std::vector<NodeClass>& nodes) {
  std::vector<std::pair<std::string, int>> counts;
  for (const NodeClass& n : nodes) {
    std::string reason = ExclusionReason(p, n);
    if (reason.empty()) continue;
    auto it = std::find_if(counts.begin(), counts.end(), [&](const auto& c) { return c.first == reason; });
    if (it == counts.end()) counts.push_back({reason, 1});
    else ++it->second;
  }
  std::stable_sort(counts.begin(), counts.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string out;
  for (const auto& [reason, n] : counts) out += (out.empty() ? "" : ", ") + std::to_string(n) + " " + reason;
  return out;
}

TEST_CASE("alike nodes are one group, hostnames and GFD timestamps do not part them", "[inventory]") {
  Inventory inv = BuildInventory(Policy(), Cluster());
  CHECK(inv.size() == 9);
  // cpu in a, cpu in b, gpu in a, gpu in b, and the canary gpu-4.
  CHECK(inv.groups.size() == 5);
  std::vector<std::string> names;
  for (const NodeClass& n : inv.Nodes()) names.push_back(n.name);
  CHECK(names == std::vector<std::string>{"cpu-1", "gpu-0", "gpu-1", "gpu-2", "gpu-3", "gpu-4",
                                          "gpu-5", "cpu-0", "cpu-2"});
  CHECK(inv.Nodes()[2].labels.at("kubernetes.io/hostname") == "gpu-1");
}

TEST_CASE("grouped candidates and exclusions are those of node by node", "[inventory][placement]") {
  std::vector<NodeClass> nodes = Cluster();
  Inventory inv = BuildInventory(Policy(), nodes);
  const char* gpu = "tolerations: [{key: nvidia.com/gpu, operator: Exists}]\n";
  auto affinity = [](const std::string& term) {
    return "affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
           "{nodeSelectorTerms: [" + term + "]}}}\n";
  };
  std::vector<std::string> specs = {
      "containers: []\n",
      gpu,
      std::string(gpu) + "nodeSelector: {topology.kubernetes.io/zone: b}\n",
      "nodeName: gpu-3\n",
      "nodeName: cpu-2\n",
      "nodeName: nowhere\n",
      std::string(gpu) + "nodeSelector: {kubernetes.io/hostname: gpu-5}\n",
      "nodeSelector: {kubernetes.io/hostname: gpu-5}\n",
      std::string(gpu) + affinity("{matchFields: [{key: metadata.name, operator: In, values: [gpu-2]}]}"),
      std::string(gpu) + affinity("{matchExpressions: [{key: kubernetes.io/hostname, operator: NotIn, "
                                  "values: [gpu-0, cpu-1]}]}"),
      std::string(gpu) + affinity("{matchExpressions: [{key: nvidia.com/gfd.timestamp, operator: Gt, "
                                  "values: [\"1700000040\"]}]}"),
      std::string(gpu) + affinity("{matchExpressions: [{key: canary, operator: DoesNotExist}]}"),
  };
  for (const std::string& spec : specs) {
    INFO(spec);
    Value storage = Yaml(spec);
    Placement p = PlacementOf(storage);
    CHECK(ExclusionSummary(p, inv) == SummaryNodeByNode(p, nodes));
    // Each candidate group stands for its nodes: counted, and named by the
    // first of them, in the order node by node would meet them.
    std::vector<std::string> one_by_one;
    for (const NodeClass& n : nodes)
      if (CanLandOn(p, n)) one_by_one.push_back(n.name);
    size_t count = 0;
    size_t last = 0;
    for (const Candidate& c : Candidates(p, inv)) {
      auto at = std::find(one_by_one.begin(), one_by_one.end(), c.name);
      REQUIRE(at != one_by_one.end());
      CHECK(static_cast<size_t>(at - one_by_one.begin()) >= last);
      last = static_cast<size_t>(at - one_by_one.begin());
      if (count == 0) CHECK(c.name == one_by_one.front());
      count += c.count;
    }
    CHECK(count == one_by_one.size());
  }
}

TEST_CASE("a denial over alike nodes names the first and counts the others", "[inventory]") {
  Inventory inv = BuildInventory(DefaultPolicy(), Cluster());
  Value pod = Yaml(R"(apiVersion: v1
kind: Pod
metadata: {name: big}
spec:
  tolerations: [{key: nvidia.com/gpu, operator: Exists}]
  nodeSelector: {topology.kubernetes.io/zone: b}
  containers:
  - name: c
    image: busybox
    resources: {limits: {memory: 2000Gi, nvidia.com/gpu: 8}}
)");
  std::vector<Finding> findings = Evaluate(pod, "", DefaultPolicy(), inv);
  auto it = std::find_if(findings.begin(), findings.end(),
                         [](const Finding& f) { return f.rule == "exceeds-allocatable"; });
  REQUIRE(it != findings.end());
  // gpu-1, gpu-3 and gpu-5 are one group, cpu-2 another: four candidates,
  // the first of them named, as node by node. cpu-2 lacks both memory and
  // GPUs, and is counted under both, as the scheduler counts it.
  CHECK(it->message ==
        "the pod fits on none of its 4 candidate nodes: 4 insufficient memory: node \"gpu-1\": "
        "memory request 2000Gi (2147483648000 B = 2.1 TB = 2 TiB) > allocatable 1000Gi "
        "(1073741824000 B = 1.1 TB = 1000 GiB) - reserved 62277025792 B = 62.3 GB = 58 GiB "
        "[5% of allocatable + 8 GPUs × 1Gi] = 1011464798208 B = 1 TB = 942 GiB (and 3 more); "
        "1 insufficient nvidia.com/gpu: node \"cpu-2\": nvidia.com/gpu request 8 > allocatable "
        "0; 5 node(s) didn't match Pod's node affinity/selector");
}

// Each group's count of its members' per-node label keys, counted again from
// the members themselves.
void CheckOwnLabelKeys(const Inventory& inv) {
  for (const auto& group : inv.groups) {
    std::map<std::string, size_t> counted;
    for (const auto& m : group->members)
      for (const auto& [key, value] : m->own_labels) ++counted[key];
    CHECK(group->own_label_keys == counted);
  }
}

TEST_CASE("a group counts its members' per-node label keys through a node watch", "[inventory]") {
  NodeGroups groups;
  for (NodeClass& n : Cluster()) groups.Put(std::move(n), kWatchedNodeOrder);
  CheckOwnLabelKeys(groups.inventory());
  Inventory before = groups.inventory();
  // gpu-3 loses its GFD timestamp (a per-node label) and stays in its group,
  // with gpu-1 and gpu-5, which keep theirs.
  NodeClass changed = Node("gpu-3", "b", true);
  changed.labels.erase("nvidia.com/gfd.timestamp");
  CHECK(groups.Put(changed, kWatchedNodeOrder));
  CheckOwnLabelKeys(groups.inventory());
  auto zone_b_gpus = [&]() -> const NodeGroup& {
    for (const auto& g : groups.inventory().groups)
      if (g->shape.has_gpu() && g->shape.labels.at("topology.kubernetes.io/zone") == "b") return *g;
    FAIL("no group of zone b's GPU nodes");
    throw;
  };
  CHECK(zone_b_gpus().own_label_keys ==
        std::map<std::string, size_t>{{"kubernetes.io/hostname", 3}, {"nvidia.com/gfd.timestamp", 2}});
  CHECK(groups.Remove("gpu-1"));
  CHECK(groups.Remove("gpu-5"));
  CheckOwnLabelKeys(groups.inventory());
  // Only gpu-3 is left of the group, without the timestamp.
  CHECK(zone_b_gpus().own_label_keys == std::map<std::string, size_t>{{"kubernetes.io/hostname", 1}});
  // The inventory published before keeps its own counts.
  CheckOwnLabelKeys(before);
}

TEST_CASE("NodeGroups follows a node watch: add, modify, delete", "[inventory]") {
  NodeGroups groups;
  for (NodeClass& n : Cluster()) CHECK(groups.Put(std::move(n), kWatchedNodeOrder));
  REQUIRE(groups.inventory().groups.size() == 5);
  Inventory before = groups.inventory();

  // A heartbeat: nothing a rule sees changed.
  CHECK_FALSE(groups.Put(Node("gpu-2", "a", true), kWatchedNodeOrder));
  // A new hostname label only: same group, the node's own label follows.
  NodeClass renamed = Node("gpu-2", "a", true);
  renamed.labels["kubernetes.io/hostname"] = "gpu-2.internal";
  CHECK(groups.Put(renamed, kWatchedNodeOrder));
  CHECK(groups.inventory().groups.size() == 5);
  CHECK(groups.inventory().Nodes()[5].labels.at("kubernetes.io/hostname") == "gpu-2.internal");

  // Cordoned with a taint: gpu-2 moves to a group of its own.
  NodeClass tainted = Node("gpu-2", "a", true);
  tainted.taints.push_back({"maintenance", "", "NoSchedule"});
  CHECK(groups.Put(tainted, kWatchedNodeOrder));
  CHECK(groups.inventory().groups.size() == 6);
  CHECK(groups.inventory().size() == 9);
  Value storage = Yaml("tolerations: [{key: nvidia.com/gpu, operator: Exists}]\n");
  Placement p = PlacementOf(storage);
  CHECK(ExclusionSummary(p, groups.inventory()) ==
        "1 node(s) had untolerated taint {maintenance: }");
  // The inventory published before the change does not see it.
  CHECK(ExclusionSummary(p, before) == "");
  CHECK(before.size() == 9);
  // ...and holds gpu-2 as it was: the groups it shares were copied, not changed.
  std::vector<NodeClass> then = before.Nodes();
  REQUIRE(then.size() == 9);
  CHECK(then[5].name == "gpu-2");
  CHECK(then[5].labels.at("kubernetes.io/hostname") == "gpu-2");
  CHECK(then[5].taints.size() == Node("gpu-2", "a", true).taints.size());

  // Deleted: its group goes with it; the others stay.
  CHECK(groups.Remove("gpu-2"));
  CHECK_FALSE(groups.Remove("gpu-2"));
  CHECK(groups.inventory().groups.size() == 5);
  CHECK(groups.inventory().size() == 8);
  CHECK(ExclusionSummary(p, groups.inventory()) == "");
  CHECK(groups.Remove("gpu-4"));  // the canary, alone in its group
  CHECK(groups.inventory().groups.size() == 4);
  std::vector<std::string> names;
  for (const NodeClass& n : groups.inventory().Nodes()) names.push_back(n.name);
  CHECK(names == std::vector<std::string>{"cpu-0", "cpu-1", "cpu-2", "gpu-0", "gpu-1", "gpu-3",
                                          "gpu-5"});
  groups.Clear();
  CHECK(groups.inventory().empty());
}

}  // namespace
}  // namespace gpulint
