#include "engine/cluster/nodes_file.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "engine/base/objects.h"
#include "engine/yaml/loader.h"
#include "tests/golden.h"
#include "tests/temp_dir.h"

namespace gpulint {
namespace {

constexpr char kNode[] = "kind: Node\nmetadata: {name: node-a}\n";
constexpr char kHint[] =
    "; --nodes reads the output of 'kubectl get nodes,deviceclasses,resourceslices -o yaml'";

// "" when the file loads, else its error; the names of the nodes read go to `names`.
std::string Load(const TempDir& dir, const std::string& text, std::vector<std::string>* names) {
  std::string path = dir.Write("nodes.yaml", text);
  std::vector<NodeClass> nodes;
  Error error;
  if (!LoadNodesFile(path, STDIN_FILENO, &nodes, &error)) return error.ToString();
  for (const NodeClass& n : nodes) names->push_back(n.name);
  return "";
}

TEST_CASE("LoadNodesFile reads the shapes kubectl and the API give", "[nodes-file]") {
  TempDir dir;
  std::vector<std::string> names;
  SECTION("Node documents, an empty one among them") {
    CHECK(Load(dir, std::string(kNode) + "---\n---\nkind: Node\nmetadata: {name: node-b}\n",
               &names) == "");
    CHECK(names == std::vector<std::string>{"node-a", "node-b"});
  }
  SECTION("kubectl's List, whose items say their kind") {
    CHECK(Load(dir, "kind: List\nitems:\n- kind: Node\n  metadata: {name: node-a}\n", &names) ==
          "");
    CHECK(names == std::vector<std::string>{"node-a"});
  }
  SECTION("the API's NodeList, whose items carry no kind") {
    CHECK(Load(dir, R"({"kind":"NodeList","items":[{"metadata":{"name":"node-a"}}]})", &names) ==
          "");
    CHECK(names == std::vector<std::string>{"node-a"});
  }
}

TEST_CASE("LoadNodesFile refuses the whole file, with the position, for anything else",
          "[nodes-file]") {
  TempDir dir;
  const std::string file = dir.Path("nodes.yaml");
  struct Case {
    std::string text;
    std::string error;  // after "<file>:"
  };
  for (const Case& c : std::vector<Case>{
           {"kind: Pod\nmetadata: {name: p}\n",
            std::string("1:1: not a Node (kind: Pod)") + kHint},
           {std::string(kNode) + "---\nmetadata: {name: node-b}\n",
            std::string("4:1: not a Node (no kind)") + kHint},
           {"kind: List\nitems:\n- kind: Node\n  metadata: {name: a}\n- kind: Pod\n",
            std::string("5:3: not a Node (kind: Pod)") + kHint},
           {"kind: NodeList\nitems:\n- metadata: {uid: x}\n",
            "3:13: metadata.name: a Node needs a name"},
           {std::string(kNode) + "---\nkind: [\n", "5:1: did not find expected node content before the end of the document"},
       }) {
    INFO(c.text);
    std::vector<std::string> names;
    CHECK(Load(dir, c.text, &names) == file + ":" + c.error);
  }
}

TEST_CASE("LoadNodesFile adds to what it is given only when the whole file reads",
          "[nodes-file]") {
  TempDir dir;
  std::vector<NodeClass> nodes(1);
  nodes[0].name = "kept";
  Error error;
  std::string bad = dir.Write("bad.yaml", std::string(kNode) + "---\nkind: Pod\n");
  CHECK_FALSE(LoadNodesFile(bad, STDIN_FILENO, &nodes, &error));
  REQUIRE(nodes.size() == 1);
  std::string good = dir.Write("good.yaml", kNode);
  CHECK(LoadNodesFile(good, STDIN_FILENO, &nodes, &error));
  REQUIRE(nodes.size() == 2);
  CHECK(nodes[1].name == "node-a");

  CHECK_FALSE(LoadNodesFile(dir.Path("none.yaml"), STDIN_FILENO, &nodes, &error));
  CHECK(error.ToString() == dir.Path("none.yaml") + ": no such file or directory");
}

TEST_CASE("LoadNodesFile reads \"-\" from the descriptor it is given", "[nodes-file]") {
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  std::string text = "kind: Pod\n";
  REQUIRE(write(fds[1], text.data(), text.size()) == static_cast<ssize_t>(text.size()));
  close(fds[1]);
  std::vector<NodeClass> nodes;
  Error error;
  CHECK_FALSE(LoadNodesFile("-", fds[0], &nodes, &error));
  close(fds[0]);
  CHECK(error.ToString() ==
        std::string("<stdin>:1:1: not a Node (kind: Pod)") + kHint);
}

TEST_CASE("LoadNodesFile reads a List item by item, whatever the order of its keys",
          "[nodes-file]") {
  TempDir dir;
  std::vector<std::string> names;
  const std::string items = "items:\n- kind: Node\n  metadata: {name: a}\n- metadata: {name: b}\n";
  SECTION("items first, as kubectl writes them") {
    CHECK(Load(dir, "apiVersion: v1\n" + items + "kind: List\nmetadata: {resourceVersion: ''}\n",
               &names) == "");
    CHECK(names == std::vector<std::string>{"a", "b"});
  }
  SECTION("items last") {
    CHECK(Load(dir, "kind: NodeList\napiVersion: v1\nmetadata: {}\n" + items, &names) == "");
    CHECK(names == std::vector<std::string>{"a", "b"});
  }
  SECTION("JSON, items before kind") {
    CHECK(Load(dir,
               R"({"apiVersion":"v1","items":[{"metadata":{"name":"a"}},)"
               R"({"kind":"Node","metadata":{"name":"b"}}],"kind":"NodeList"})",
               &names) == "");
    CHECK(names == std::vector<std::string>{"a", "b"});
  }
  SECTION("no items") {
    CHECK(Load(dir, "items: []\nkind: List\n", &names) == "");
    CHECK(names.empty());
  }
  SECTION("a List after Node documents, and Node documents after it") {
    CHECK(Load(dir, std::string(kNode) + "---\n" + items + "kind: List\n---\n" + kNode, &names) ==
          "");
    CHECK(names == std::vector<std::string>{"node-a", "a", "b", "node-a"});
  }
  SECTION("an anchored items sequence, kept whole for its alias") {
    CHECK(Load(dir, "items: &all\n- metadata: {name: a}\nkind: List\ncopy: *all\n", &names) == "");
    CHECK(names == std::vector<std::string>{"a"});
  }
  SECTION("items given by a merge key") {
    CHECK(Load(dir, "<<: {items: [{metadata: {name: a}}]}\nkind: List\n", &names) == "");
    CHECK(names == std::vector<std::string>{"a"});
  }
}

TEST_CASE("LoadNodesFile refuses a List's first bad item, known only at the end to be a List",
          "[nodes-file]") {
  TempDir dir;
  const std::string file = dir.Path("nodes.yaml");
  struct Case {
    std::string text;
    std::string error;  // after "<file>:"
  };
  for (const Case& c : std::vector<Case>{
           // The third item, read before `kind` says that this is a List.
           {"apiVersion: v1\nitems:\n- metadata: {name: a}\n- metadata: {name: b}\n"
            "- kind: Pod\n  metadata: {name: c}\n- kind: Secret\nkind: List\n",
            std::string("5:3: not a Node (kind: Pod)") + kHint},
           {"items:\n- metadata: {name: a}\n- metadata: {name: b}\n- metadata: {uid: c}\n"
            "kind: NodeList\n",
            "4:13: metadata.name: a Node needs a name"},
           // Not a List: its items are no Nodes of the file, the document is no Node.
           {"items:\n- kind: Secret\nkind: Pod\n", std::string("1:1: not a Node (kind: Pod)") + kHint},
           {"items:\n- kind: Secret\n", std::string("1:1: not a Node (no kind)") + kHint},
           {"kind: List\nitems: null\n", std::string("1:1: not a Node (kind: List)") + kHint},
           {"kind: List\nitems: {}\n", std::string("1:1: not a Node (kind: List)") + kHint},
           // The document's own error wins over its items', as when it was one tree.
           {"items:\n- kind: Pod\nkind: List\nkind: List\n",
            "4:1: duplicate key \"kind\" (first at line 3)"},
           {"items:\n- metadata: {name: a}\nitems: []\nkind: List\n",
            "3:1: duplicate key \"items\" (first at line 1)"},
       }) {
    INFO(c.text);
    std::vector<std::string> names;
    CHECK(Load(dir, c.text, &names) == file + ":" + c.error);
  }
}

// Every field of a NodeClass, as text, so that two lists compare in one CHECK.
std::string Describe(const NodeClass& n) {
  std::string out = n.name + " @" + n.source + " gpu=" + n.gpu.model + " x" +
                    std::to_string(n.gpu.count) + " vram=" +
                    (n.gpu.vram_per_gpu ? n.gpu.vram_per_gpu->Canonical() : "-") + " " +
                    GpuSharingName(n.gpu.sharing) + " r" + std::to_string(n.gpu.replicas);
  for (const auto& [k, v] : n.labels) out += " " + k + "=" + v;
  for (const Taint& t : n.taints) out += " taint " + t.key + "=" + t.value + ":" + t.effect;
  for (const auto& [k, q] : n.allocatable) out += " " + k + ":" + q.Canonical();
  return out;
}

TEST_CASE("LoadNodesFile item by item gives the NodeClasses of the whole tree", "[nodes-file]") {
  // bench-50.yaml: `bench/gen_nodes.py --count 50`, the 50 nodes of bench/nodes.sh.
  for (const char* name : {"bench-50.yaml", "cloud-shapes.yaml", "incidents.yaml"}) {
    const std::string path = testing::SourceDir() + "/testdata/nodes/" + name;
    INFO(path);
    std::vector<std::string> tree;
    Error error;
    REQUIRE(LoadYamlFile(
        path, LoadLimits{},
        [&](Document&& doc) {
          REQUIRE(doc.ok);
          ForEachObject(doc.root, [&](const Value& object) {
            NodeClass node;
            REQUIRE(NodeClassFromNode(object, doc.file, &node, &error));
            tree.push_back(Describe(node));
          });
          return true;
        },
        &error));
    std::vector<NodeClass> nodes;
    REQUIRE(LoadNodesFile(path, STDIN_FILENO, &nodes, &error));
    std::vector<std::string> streamed;
    for (const NodeClass& n : nodes) streamed.push_back(Describe(n));
    CHECK(tree.size() >= 4);
    CHECK(streamed == tree);
  }
}

}  // namespace
}  // namespace gpulint
