// `gpulint fix` on text: the golden mutation cases, the rule corpus, and the
// byte-for-byte promise.
#include "lint/fix.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "engine/loader.h"
#include "tests/golden.h"

namespace gpulint {
namespace {

namespace fs = std::filesystem;

// Every document of `text` as JSON (mappings compare as sets of members).
nlohmann::json Documents(std::string_view text) {
  nlohmann::json out = nlohmann::json::array();
  Error error;
  LoadYamlString(
      text, "<test>", LoadLimits{},
      [&](Document&& d) {
        INFO(d.error.ToString());
        REQUIRE(d.ok);
        out.push_back(nlohmann::json::parse(ToJson(d.root)));
        return true;
      },
      &error);
  return out;
}

std::vector<std::string> Lines(std::string_view text) {
  std::vector<std::string> out;
  std::istringstream in{std::string(text)};
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// The lines of `before` that are not, in order, lines of `after`: the lines
// an edit changed rather than only inserted lines around.
std::vector<size_t> ChangedLines(std::string_view before, std::string_view after) {
  std::vector<std::string> a = Lines(before), b = Lines(after);
  std::vector<size_t> changed;
  size_t j = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    size_t k = j;
    while (k < b.size() && b[k] != a[i]) ++k;
    if (k == b.size()) {
      changed.push_back(i + 1);
    } else {
      j = k + 1;
    }
  }
  return changed;
}

const Inventory& IncidentNodes() {
  static const Inventory inventory = BuildInventory(
      DefaultPolicy(), testing::LoadNodes(testing::SourceDir() + "/testdata/nodes/incidents.yaml"));
  return inventory;
}

// Fixing `text` again changes nothing.
void CheckSecondRunChangesNothing(const FixedFile& first, const std::string& file,
                                  const Inventory& inventory) {
  FixedFile second = FixText(first.text, file, DefaultPolicy(), inventory);
  INFO("second run");
  CHECK(second.changes.empty());
  CHECK(second.text == first.text);
}

TEST_CASE("fix: every mutation case gives its .mutated.yaml, touching only what changes", "[fix]") {
  size_t cases = 0;
  for (const auto& entry : fs::directory_iterator(testing::SourceDir() + "/testdata/mutations")) {
    std::string path = entry.path().string();
    if (entry.path().extension() != ".yaml" || path.ends_with(".mutated.yaml")) continue;
    ++cases;
    INFO(path);
    std::string name = entry.path().filename().string();
    const Inventory& inventory = name.rfind("nodes-", 0) == 0 ? IncidentNodes() : Inventory();
    std::string text = testing::ReadFile(path);
    FixedFile fixed = FixText(text, name, DefaultPolicy(), inventory);
    CHECK(fixed.problems.empty());
    std::string expected_path = path.substr(0, path.size() - 5) + ".mutated.yaml";
    CHECK(Documents(fixed.text) == Documents(testing::ReadFile(expected_path)));
    // A line that is not kept as it was must be one a change is reported on.
    for (size_t line : ChangedLines(text, fixed.text)) {
      INFO("line " << line << " changed");
      std::string prefix = name + ":" + std::to_string(line) + ":";
      CHECK(std::any_of(fixed.changes.begin(), fixed.changes.end(),
                        [&](const std::string& c) { return c.rfind(prefix, 0) == 0; }));
    }
    CHECK(fixed.changes.empty() == (fixed.text == text));
    CheckSecondRunChangesNothing(fixed, name, inventory);
  }
  CHECK(cases >= 12);
}

TEST_CASE("fix: a second run over the rule corpus changes nothing", "[fix]") {
  size_t files = 0;
  for (const auto& entry :
       fs::recursive_directory_iterator(testing::SourceDir() + "/testdata/rules")) {
    std::string ext = entry.path().extension().string();
    if (ext != ".yaml" && ext != ".json") continue;
    ++files;
    std::string path = entry.path().string();
    INFO(path);
    const Inventory& inventory = IncidentNodes();
    std::string text = testing::ReadFile(path);
    FixedFile fixed = FixText(text, path, DefaultPolicy(), inventory);
    // Only the parse-error cases have documents the fixer must leave alone.
    CHECK(fixed.problems.empty() == (path.find("/parse-error/fail-") == std::string::npos));
    CheckSecondRunChangesNothing(fixed, path, inventory);
  }
  CHECK(files >= 30);
}

constexpr char kStream[] = R"(# A stream: a List, a broken document, JSON, a Pod with units to fix.
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Pod
  metadata: {name: a}
  spec:
    tolerations: [{key: nvidia.com/gpu, operator: Exists}]
    containers:
    - name: tools   # no GPU limit
      image: busybox
---
apiVersion: v1
kind: Pod
metadata:
  name: [broken
---
{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "j"},
 "spec": {"tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists"}],
          "containers": [{"name": "c", "image": "busybox"}]}}
---
apiVersion: v1
kind: Pod
metadata:
  name: units
spec:
  containers:
  - name: train
    image: nvcr.io/nvidia/pytorch:24.05-py3
    resources:
      limits:
        nvidia.com/gpu: 1
        memory: "8GiB"   # quoted, and it stays quoted
        ephemeral-storage: 500GB
)";

TEST_CASE("fix: Lists, JSON, a broken document and unit fixes in one stream", "[fix]") {
  FixedFile fixed = FixText(kStream, "s.yaml", DefaultPolicy(), Inventory());
  CHECK(fixed.text ==
        R"(# A stream: a List, a broken document, JSON, a Pod with units to fix.
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Pod
  metadata: {name: a}
  spec:
    tolerations: [{key: nvidia.com/gpu, operator: Exists}]
    containers:
    - name: tools   # no GPU limit
      image: busybox
      env:
      - name: NVIDIA_VISIBLE_DEVICES
        value: void
---
apiVersion: v1
kind: Pod
metadata:
  name: [broken
---
{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "j"},
 "spec": {"tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists"}],
          "containers": [{"name": "c", "image": "busybox", "env": [{"name": "NVIDIA_VISIBLE_DEVICES", "value": "void"}]}]}}
---
apiVersion: v1
kind: Pod
metadata:
  name: units
  annotations:
    gpulint.io/headroom-added: '{"train":{"added":"8Gi","limits":"8Gi"}}'
spec:
  containers:
  - name: train
    image: nvcr.io/nvidia/pytorch:24.05-py3
    resources:
      limits:
        nvidia.com/gpu: 1
        memory: "16Gi"   # quoted, and it stays quoted
        ephemeral-storage: 500GB
)");
  CHECK(fixed.changes ==
        std::vector<std::string>{
            "s.yaml:11:7: add items[0].spec.containers[0].env: "
            "[{\"name\":\"NVIDIA_VISIBLE_DEVICES\",\"value\":\"void\"}]",
            "s.yaml:21:26: add spec.containers[0].env: "
            "[{\"name\":\"NVIDIA_VISIBLE_DEVICES\",\"value\":\"void\"}]",
            "s.yaml:34:17: memory: 8GiB -> 8Gi (the \"i\" makes GiB the binary unit Gi, which "
            "Kubernetes writes Gi)",
            "s.yaml:34:17: spec.containers[0].resources.limits.memory: 8Gi -> 16Gi",
            "s.yaml:26:3: add metadata.annotations: {\"gpulint.io/headroom-added\":"
            "\"{\\\"train\\\":{\\\"added\\\":\\\"8Gi\\\",\\\"limits\\\":\\\"8Gi\\\"}}\"}",
        });
  REQUIRE(fixed.problems.size() == 1);
  CHECK(fixed.problems[0].ToString().rfind("s.yaml:18:", 0) == 0);
  CHECK(fixed.problems[0].message.rfind("not fixed, left as it was: ", 0) == 0);
  CHECK(fixed.documents_changed == 3);
  CheckSecondRunChangesNothing(fixed, "s.yaml", Inventory());
}

TEST_CASE("fix: a change through an alias is refused; the document is left as it was", "[fix]") {
  const std::string text = R"(apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  tolerations: [{key: nvidia.com/gpu, operator: Exists}]
  containers:
  - &c {name: a, image: busybox}
  - *c
)";
  FixedFile fixed = FixText(text, "p.yaml", DefaultPolicy(), Inventory());
  CHECK(fixed.text == text);
  CHECK(fixed.changes.empty());
  REQUIRE(fixed.problems.size() == 1);
  CHECK(fixed.problems[0].ToString() ==
        "p.yaml:7:5: not fixed, left as it was: cannot edit /spec/containers/0/env in place: it "
        "is inside the anchor &c, which the alias *c shares; the edit would change both");
}

TEST_CASE("fix: nothing to do, the text comes back byte for byte", "[fix]") {
  const std::string text =
      "# only a comment\n---\napiVersion: v1\nkind: ConfigMap\n"
      "metadata: {name: x}   # trailing\n...\n";
  FixedFile fixed = FixText(text, "c.yaml", DefaultPolicy(), Inventory());
  CHECK(fixed.text == text);
  CHECK(fixed.changes.empty());
  CHECK(fixed.problems.empty());
  CHECK(fixed.documents_changed == 0);
}

}  // namespace
}  // namespace gpulint
