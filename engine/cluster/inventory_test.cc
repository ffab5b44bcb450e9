#include "engine/cluster/inventory.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "engine/policy/policy_test_support.h"
#include "engine/yaml/loader.h"

namespace gpulint {
namespace {

using policy_testing::Q;

const std::string kAdmission = testing::SourceDir() + "/testdata/admission/";

// Every document of `text`, which must all load.
std::vector<Document> Documents(std::string_view text, const std::string& name) {
  std::vector<Document> docs;
  Error error;
  REQUIRE(LoadYamlString(
      text, name, LoadLimits{},
      [&](Document&& d) {
        docs.push_back(std::move(d));
        return true;
      },
      &error));
  for (const Document& d : docs) {
    INFO(d.error.ToString());
    REQUIRE(d.ok);
  }
  return docs;
}

Value Yaml(std::string_view text) {
  std::vector<Document> docs = Documents(text, "test.yaml");
  REQUIRE(docs.size() == 1);
  return std::move(docs[0].root);
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  INFO(path);
  REQUIRE(in.good());
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The nodes of a NodeList / List document, read with NodeClassFromNode.
std::vector<NodeClass> NodesOf(const Value& list, const std::string& file) {
  std::vector<NodeClass> nodes;
  const Value* items = list.Find("items");
  REQUIRE(items);
  for (const Value& item : items->items()) {
    NodeClass c;
    Error error;
    bool ok = NodeClassFromNode(item, file, &c, &error);
    INFO(error.ToString());
    REQUIRE(ok);
    nodes.push_back(std::move(c));
  }
  return nodes;
}

const NodeClass& Named(const std::vector<NodeClass>& nodes, std::string_view name) {
  for (const NodeClass& n : nodes)
    if (n.name == name) return n;
  FAIL("no node " << name);
  return nodes.front();
}

Placement PlacementOfYaml(std::string_view pod_spec, Value* storage) {
  *storage = Yaml(pod_spec);
  return PlacementOf(*storage);
}

TEST_CASE("nodes from kubectl get nodes -o yaml", "[inventory]") {
  std::string file = "nodes.yaml";
  Value list = Yaml(ReadFile(kAdmission + "nodes-kubectl-get-o-yaml.yaml"));
  std::vector<NodeClass> nodes = NodesOf(list, file);
  REQUIRE(nodes.size() == 2);

  const NodeClass& a100 = nodes[0];
  CHECK(a100.name == "a100-80g-0");
  CHECK(a100.source == "nodes.yaml:3:3");
  CHECK(a100.labels.at("nvidia.com/gpu.product") == "NVIDIA-A100-SXM4-80GB");
  CHECK(a100.labels.size() == 8);
  REQUIRE(a100.taints.size() == 2);
  CHECK(a100.taints[0].key == "nvidia.com/gpu");
  CHECK(a100.taints[0].value == "present");
  CHECK(a100.taints[0].effect == "NoSchedule");
  CHECK(a100.taints[1].key == "node.kubernetes.io/not-ready");
  CHECK(a100.taints[1].value.empty());
  CHECK(a100.allocatable.at("memory") == Q("1157221112Ki"));
  CHECK(a100.allocatable.at("cpu") == Q("95690m"));
  CHECK(a100.allocatable.at("nvidia.com/gpu") == Q("8"));
  CHECK(a100.allocatable.size() == 5);
  CHECK(a100.gpu.model == "NVIDIA-A100-SXM4-80GB");
  CHECK(a100.gpu.count == 8);
  CHECK(a100.gpu.vram_per_gpu == Q("80Gi"));
  CHECK(a100.gpu.sharing == GpuSharing::kNone);
  CHECK(a100.gpu.replicas == 1);

  // Time-sliced: 3 of 4 replicas allocatable, one physical L4.
  const NodeClass& l4 = nodes[1];
  CHECK(l4.name == "l4-ts-0");
  CHECK(l4.allocatable.at("nvidia.com/gpu") == Q("3"));
  CHECK(l4.gpu.model == "NVIDIA-L4-SHARED");
  CHECK(l4.gpu.count == 1);
  CHECK(l4.gpu.replicas == 4);
  CHECK(l4.gpu.sharing == GpuSharing::kTimeSlicing);
  CHECK(l4.gpu.vram_per_gpu == Q("23034Mi"));
  REQUIRE(l4.taints.size() == 1);
}

TEST_CASE("nodes from GET /api/v1/nodes (items carry no kind)", "[inventory]") {
  Value list = Yaml(ReadFile(kAdmission + "nodes-list.json"));
  std::vector<NodeClass> nodes = NodesOf(list, "nodes-list.json");
  REQUIRE(nodes.size() == 3);
  const NodeClass& cpu = Named(nodes, "cpu-0");
  CHECK_FALSE(cpu.has_gpu());
  CHECK(cpu.gpu.count == 0);
  CHECK_FALSE(cpu.gpu.vram_per_gpu);
  CHECK(cpu.allocatable.at("memory") == Q("61867912Ki"));
  CHECK(Named(nodes, "l4-ts-0").allocatable.at("nvidia.com/gpu") == Q("4"));
  CHECK(Named(nodes, "a100-80g-0").has_gpu());
}

TEST_CASE("nodes from a watch stream's events", "[inventory]") {
  std::istringstream lines(ReadFile(kAdmission + "nodes-watch.jsonl"));
  std::string line;
  std::vector<std::pair<std::string, NodeClass>> events;
  while (std::getline(lines, line)) {
    Value event = Yaml(line);
    NodeClass c;
    Error error;
    REQUIRE(event.Find("object"));
    bool ok = NodeClassFromNode(*event.Find("object"), "watch", &c, &error);
    INFO(error.ToString());
    REQUIRE(ok);
    events.emplace_back(std::string(event.StringAt("type")), std::move(c));
  }
  REQUIRE(events.size() == 3);
  CHECK(events[0].first == "MODIFIED");
  CHECK(events[0].second.labels.at("gpulint.io/example") == "relabelled");
  CHECK(events[1].second.name == "l4-ts-0");
  CHECK(events[1].second.allocatable.at("nvidia.com/gpu") == Q("3"));
  CHECK(events[1].second.gpu.count == 1);
  CHECK(events[2].first == "DELETED");
  CHECK(events[2].second.name == "cpu-0");
}

TEST_CASE("GPU count, sharing and VRAM from labels and resources", "[inventory]") {
  struct Case {
    const char* what;
    const char* node;
    int64_t count;
    GpuSharing sharing;
    int64_t replicas;
  };
  for (const Case& c : std::vector<Case>{
           {"count label wins", R"(metadata: {name: node-a, labels: {nvidia.com/gpu.count: "2"}}
status: {allocatable: {nvidia.com/gpu: "8"}})",
            2, GpuSharing::kNone, 1},
           {"no label: capacity / replicas",
            R"(metadata: {name: node-a, labels: {nvidia.com/gpu.replicas: "4"}}
status: {capacity: {nvidia.com/gpu: "8"}, allocatable: {nvidia.com/gpu: "3"}})",
            2, GpuSharing::kTimeSlicing, 4},
           {"no capacity: allocatable / replicas, rounded up",
            R"(metadata: {name: node-a, labels: {nvidia.com/gpu.replicas: "4"}}
status: {allocatable: {nvidia.com/gpu: "3"}})",
            1, GpuSharing::kTimeSlicing, 4},
           {"MPS by label", R"(metadata: {name: node-a, labels: {nvidia.com/gpu.replicas: "10",
  nvidia.com/gpu.sharing-strategy: mps, nvidia.com/gpu.count: "1"}})",
            1, GpuSharing::kMps, 10},
           {"MPS from mps.capable without a strategy label",
            R"(metadata: {name: node-a, labels: {nvidia.com/gpu.replicas: "10",
  nvidia.com/mps.capable: "true"}}
status: {allocatable: {nvidia.com/gpu: "10"}})",
            1, GpuSharing::kMps, 10},
           {"no GPU at all", "metadata: {name: node-a}", 0, GpuSharing::kNone, 1},
       }) {
    INFO(c.what);
    NodeClass n;
    Error error;
    REQUIRE(NodeClassFromNode(Yaml(c.node), "n.yaml", &n, &error));
    CHECK(n.gpu.count == c.count);
    CHECK(n.gpu.sharing == c.sharing);
    CHECK(n.gpu.replicas == c.replicas);
  }
}

TEST_CASE("NodeClassFromNode refuses what is not a usable Node", "[inventory]") {
  struct Case {
    const char* node;
    std::string error;
  };
  for (const Case& c : std::vector<Case>{
           {"[a]", "n.yaml:1:1: expected a Node object, got sequence"},
           {"kind: Pod\nmetadata: {name: p}", "n.yaml:1:7: kind: expected a Node, got \"Pod\""},
           {"kind: Node\nmetadata: {uid: x}", "n.yaml:2:11: metadata.name: a Node needs a name"},
           {"kind: Node\nmetadata: {name: \"\"}", "n.yaml:2:18: metadata.name: must not be empty"},
           {"kind: Node\nmetadata: {name: node-a, labels: {nvidia.com/gpu.count: eight}}",
            "n.yaml:2:57: metadata.labels[\"nvidia.com/gpu.count\"]: expected a whole number of at "
            "least 0, got \"eight\""},
           {"kind: Node\nmetadata: {name: node-a, labels: {nvidia.com/gpu.replicas: \"0\"}}",
            "n.yaml:2:60: metadata.labels[\"nvidia.com/gpu.replicas\"]: expected a whole number of "
            "at least 1, got \"0\""},
           // Bytes of 2^63 MiB would overflow; no card is near 2^42 MiB (4 EiB).
           {"kind: Node\nmetadata: {name: node-a, labels: {nvidia.com/gpu.memory: "
            "\"9223372036854775807\"}}",
            "n.yaml:2:58: metadata.labels[\"nvidia.com/gpu.memory\"]: expected at most "
            "4398046511104 MiB, got \"9223372036854775807\""},
           {"kind: Node\nmetadata: {name: node-a}\nspec: {taints: [{key: [k]}]}",
            "n.yaml:3:23: spec.taints[0].key: expected a string, got a sequence"},
       }) {
    INFO(c.node);
    NodeClass n;
    n.name = "untouched";
    Error error;
    CHECK_FALSE(NodeClassFromNode(Yaml(c.node), "n.yaml", &n, &error));
    CHECK(error.ToString() == c.error);
    CHECK(n.name == "untouched");
  }
  Quantity q;
  QuantityError qe;
  REQUIRE_FALSE(Quantity::Parse("1.5.0", &q, &qe));
  NodeClass n;
  Error error;
  CHECK_FALSE(NodeClassFromNode(
      Yaml("metadata: {name: node-a}\nstatus: {allocatable: {cpu: 1.5.0}}"), "n.yaml", &n, &error));
  CHECK(error.ToString() ==
        "n.yaml:2:29: status.allocatable.cpu: invalid quantity \"1.5.0\": " + qe.message +
            (qe.suggestion.empty() ? "" : " (" + qe.suggestion + ")"));
}

TEST_CASE("PlacementOf reads nodeName, nodeSelector, affinity and tolerations", "[inventory]") {
  Value spec;
  Placement p = PlacementOfYaml(R"(
nodeName: n1
nodeSelector: {gpus: "true", zone: a}
affinity:
  nodeAffinity:
    requiredDuringSchedulingIgnoredDuringExecution:
      nodeSelectorTerms: [{matchExpressions: [{key: a, operator: Exists}]}]
    preferredDuringSchedulingIgnoredDuringExecution: []
tolerations:
- {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule, tolerationSeconds: 30}
- {operator: Exists}
)",
                                &spec);
  CHECK(p.node_name == "n1");
  CHECK(p.node_selector == std::map<std::string, std::string>{{"gpus", "true"}, {"zone", "a"}});
  REQUIRE(p.required_affinity);
  CHECK(p.required_affinity->Find("nodeSelectorTerms"));
  REQUIRE(p.tolerations.size() == 2);
  CHECK(p.tolerations[0].key == "nvidia.com/gpu");
  CHECK(p.tolerations[0].op == "Exists");
  CHECK(p.tolerations[0].effect == "NoSchedule");
  CHECK(p.tolerations[1].key.empty());

  Placement empty = PlacementOfYaml("containers: []", &spec);
  CHECK(empty.node_name.empty());
  CHECK(empty.node_selector.empty());
  CHECK(empty.required_affinity == nullptr);
  CHECK(empty.tolerations.empty());
}

TEST_CASE("required node affinity: operators, ANDed requirements, ORed terms",
          "[inventory][affinity]") {
  NodeClass node;
  node.name = "node-1";
  node.source = "nodes.yaml:3:3";
  node.labels = {{"zone", "a"}, {"gpu-count", "8"}, {"tier", "gpu"}, {"bad-number", "8x"}};
  struct Case {
    const char* terms;
    bool match;
  };
  for (const Case& c : std::vector<Case>{
           {"[{matchExpressions: [{key: zone, operator: In, values: [a, b]}]}]", true},
           {"[{matchExpressions: [{key: zone, operator: In, values: [b]}]}]", false},
           {"[{matchExpressions: [{key: zone, operator: In, values: []}]}]", false},
           {"[{matchExpressions: [{key: absent, operator: In, values: [a]}]}]", false},
           {"[{matchExpressions: [{key: zone, operator: NotIn, values: [b]}]}]", true},
           {"[{matchExpressions: [{key: zone, operator: NotIn, values: [a]}]}]", false},
           {"[{matchExpressions: [{key: absent, operator: NotIn, values: [a]}]}]", true},
           {"[{matchExpressions: [{key: zone, operator: Exists}]}]", true},
           {"[{matchExpressions: [{key: absent, operator: Exists}]}]", false},
           {"[{matchExpressions: [{key: zone, operator: Exists, values: [a]}]}]", false},
           {"[{matchExpressions: [{key: absent, operator: DoesNotExist}]}]", true},
           {"[{matchExpressions: [{key: zone, operator: DoesNotExist}]}]", false},
           {"[{matchExpressions: [{key: gpu-count, operator: Gt, values: [\"7\"]}]}]", true},
           {"[{matchExpressions: [{key: gpu-count, operator: Gt, values: [\"8\"]}]}]", false},
           {"[{matchExpressions: [{key: gpu-count, operator: Gt, values: [\"-1\"]}]}]", true},
           {"[{matchExpressions: [{key: gpu-count, operator: Lt, values: [\"9\"]}]}]", true},
           {"[{matchExpressions: [{key: gpu-count, operator: Lt, values: [\"8\"]}]}]", false},
           {"[{matchExpressions: [{key: gpu-count, operator: Gt, values: [\"1\", \"2\"]}]}]",
            false},
           {"[{matchExpressions: [{key: gpu-count, operator: Gt, values: [seven]}]}]", false},
           {"[{matchExpressions: [{key: bad-number, operator: Gt, values: [\"1\"]}]}]", false},
           {"[{matchExpressions: [{key: absent, operator: Lt, values: [\"100\"]}]}]", false},
           {"[{matchExpressions: [{key: zone, operator: in, values: [a]}]}]", false},
           // ANDed within a term
           {"[{matchExpressions: [{key: zone, operator: In, values: [a]}, "
            "{key: tier, operator: In, values: [gpu]}]}]",
            true},
           {"[{matchExpressions: [{key: zone, operator: In, values: [a]}, "
            "{key: tier, operator: In, values: [cpu]}]}]",
            false},
           // ORed between terms
           {"[{matchExpressions: [{key: zone, operator: In, values: [b]}]}, "
            "{matchExpressions: [{key: tier, operator: In, values: [gpu]}]}]",
            true},
           {"[{matchExpressions: [{key: zone, operator: In, values: [b]}]}, "
            "{matchExpressions: [{key: tier, operator: In, values: [cpu]}]}]",
            false},
           // an empty term matches nothing, and so does no term
           {"[{}]", false},
           {"[{matchExpressions: []}]", false},
           {"[{}, {matchExpressions: [{key: zone, operator: Exists}]}]", true},
           {"[]", false},
           // matchFields: metadata.name, In/NotIn, exactly one value
           {"[{matchFields: [{key: metadata.name, operator: In, values: [node-1]}]}]", true},
           {"[{matchFields: [{key: metadata.name, operator: In, values: [node-2]}]}]", false},
           {"[{matchFields: [{key: metadata.name, operator: NotIn, values: [node-2]}]}]", true},
           {"[{matchFields: [{key: metadata.name, operator: NotIn, values: [node-1]}]}]", false},
           {"[{matchFields: [{key: metadata.name, operator: In, values: [node-1, node-2]}]}]",
            false},
           {"[{matchFields: [{key: metadata.name, operator: Exists}]}]", false},
           {"[{matchFields: [{key: metadata.uid, operator: In, values: [node-1]}]}]", false},
           {"[{matchFields: [{key: metadata.name, operator: In, values: [node-1]}], "
            "matchExpressions: [{key: zone, operator: In, values: [b]}]}]",
            false},
       }) {
    INFO(c.terms);
    Value spec;
    Placement p = PlacementOfYaml(
        std::string("affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
                    "{nodeSelectorTerms: ") +
            c.terms + "}}}",
        &spec);
    CHECK(CanLandOn(p, node) == c.match);
  }
}

TEST_CASE("CanLandOn: nodeName, nodeSelector and taints", "[inventory]") {
  NodeClass node;
  node.name = "gpu-1";
  node.source = "nodes.yaml:3:3";
  node.labels = {{"gpus", "true"}};
  node.taints = {{"nvidia.com/gpu", "present", "NoSchedule"},
                 {"node.kubernetes.io/not-ready", "", "NoSchedule"}};
  NodeClass cls = node;
  cls.name = "gpu-class";
  cls.source = "policy";
  Toleration gpu{"nvidia.com/gpu", "Exists", "", "NoSchedule"};

  Placement p;
  CHECK_FALSE(CanLandOn(p, node));  // the GPU taint
  p.tolerations = {gpu};
  CHECK(CanLandOn(p, node));  // not-ready is ignored
  p.node_selector = {{"gpus", "true"}};
  CHECK(CanLandOn(p, node));
  p.node_selector = {{"gpus", "false"}};
  CHECK_FALSE(CanLandOn(p, node));
  p.node_selector = {{"zone", "a"}};
  CHECK_FALSE(CanLandOn(p, node));

  // nodeName skips the scheduler: kubelet checks only NoExecute taints.
  Placement named;
  named.node_name = "gpu-1";
  CHECK(CanLandOn(named, node));
  named.node_name = "gpu-2";
  CHECK_FALSE(CanLandOn(named, node));
  CHECK(CanLandOn(named, cls));  // a class has no node names
  node.taints.push_back({"maintenance", "", "NoExecute"});
  named.node_name = "gpu-1";
  CHECK_FALSE(CanLandOn(named, node));
  named.tolerations = {{"maintenance", "Exists", "", ""}};
  CHECK(CanLandOn(named, node));
}

TEST_CASE("Candidates on the recorded nodes", "[inventory]") {
  Inventory inv = BuildInventory(
      Policy(), NodesOf(Yaml(ReadFile(kAdmission + "nodes-list.json")), "nodes-list.json"));
  REQUIRE(inv.size() == 3);
  auto names = [&](const std::string& pod_spec) {
    Value spec;
    std::vector<std::string> out;
    for (const Candidate& n : Candidates(PlacementOfYaml(pod_spec, &spec), inv))
      out.emplace_back(n.name);
    return out;
  };
  using Names = std::vector<std::string>;
  CHECK(names("nodeSelector: {nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB}").empty());
  CHECK(names("nodeSelector: {nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB}\n"
              "tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]") ==
        Names{"a100-80g-0"});
  // Nothing asked: every node but the tainted A100 (not-ready is transient).
  CHECK(names("containers: []") == Names{"cpu-0", "l4-ts-0"});
  CHECK(names("tolerations: [{operator: Exists}]") == Names{"a100-80g-0", "cpu-0", "l4-ts-0"});
  CHECK(names("affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
              "{nodeSelectorTerms: [{matchExpressions: [{key: nvidia.com/gpu.present, "
              "operator: Exists}]}]}}}") == Names{"l4-ts-0"});
  CHECK(names("nodeSelector: {nvidia.com/gpu.sharing-strategy: time-slicing}") == Names{"l4-ts-0"});
  CHECK(names("nodeName: cpu-0") == Names{"cpu-0"});
  CHECK(names("nodeName: a100-80g-0") == Names{"a100-80g-0"});
}

}  // namespace
}  // namespace gpulint
