#include "engine/nodes_file.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "tests/temp_dir.h"

namespace gpulint {
namespace {

constexpr char kNode[] = "kind: Node\nmetadata: {name: node-a}\n";

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
            "1:1: not a Node (kind: Pod); --nodes reads the output of 'kubectl get nodes -o yaml'"},
           {std::string(kNode) + "---\nmetadata: {name: node-b}\n",
            "4:1: not a Node (no kind); --nodes reads the output of 'kubectl get nodes -o yaml'"},
           {"kind: List\nitems:\n- kind: Node\n  metadata: {name: a}\n- kind: Pod\n",
            "5:3: not a Node (kind: Pod); --nodes reads the output of 'kubectl get nodes -o yaml'"},
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
        "<stdin>:1:1: not a Node (kind: Pod); --nodes reads the output of 'kubectl get nodes -o "
        "yaml'");
}

}  // namespace
}  // namespace gpulint
