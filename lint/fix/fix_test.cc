// `gpulint fix` on text: the golden mutation cases, the rule corpus, and the
// byte-for-byte promise.
#include "lint/fix/fix.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "engine/engine_test_support.h"
#include "engine/yaml/loader.h"
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

FixOptions WithMutations() {
  FixOptions options;
  options.mutations = true;
  return options;
}

// Fixing `text` again changes nothing.
void CheckSecondRunChangesNothing(const FixedFile& first, const std::string& file,
                                  const Inventory& inventory, const FixOptions& options = {}) {
  FixedFile second = FixText(first.text, file, DefaultPolicy(), inventory, options);
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
    // The webhook's patch is what --mutations adds.
    FixedFile fixed = FixText(text, name, DefaultPolicy(), inventory, WithMutations());
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
    CheckSecondRunChangesNothing(fixed, name, inventory, WithMutations());
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
    for (const FixOptions& options : {FixOptions(), WithMutations()}) {
      FixedFile fixed = FixText(text, path, DefaultPolicy(), inventory, options);
      // Only the parse-error cases that fail have documents the fixer must
      // leave alone.
      bool broken = path.find("/parse-error/") != std::string::npos &&
                    fs::path(path).filename().string().find("fail") != std::string::npos;
      CHECK(fixed.problems.empty() == !broken);
      CheckSecondRunChangesNothing(fixed, path, inventory, options);
    }
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

TEST_CASE("fix --mutations: Lists, JSON, a broken document and unit fixes in one stream",
          "[fix]") {
  FixedFile fixed = FixText(kStream, "s.yaml", DefaultPolicy(), Inventory(), WithMutations());
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
    gpulint.io/headroom-added: '{"train":{"added":"1Gi","limits":"8Gi"}}'
spec:
  containers:
  - name: train
    image: nvcr.io/nvidia/pytorch:24.05-py3
    resources:
      limits:
        nvidia.com/gpu: 1
        memory: "9Gi"   # quoted, and it stays quoted
        ephemeral-storage: 500GB
)");
  CHECK(fixed.changes ==
        std::vector<std::string>{
            "s.yaml:11:7: add items[0].spec.containers[0].env: "
            "[{\"name\":\"NVIDIA_VISIBLE_DEVICES\",\"value\":\"void\"}]",
            "s.yaml:21:26: add spec.containers[0].env: "
            "[{\"name\":\"NVIDIA_VISIBLE_DEVICES\",\"value\":\"void\"}]",
            "s.yaml:34:17: memory: 8GiB -> 8Gi (the \"i\" makes GiB the binary unit Gi, which "
            "Kubernetes writes Gi) [quantity-invalid]",
            "s.yaml:34:17: spec.containers[0].resources.limits.memory: 8Gi -> 9Gi",
            "s.yaml:26:3: add metadata.annotations: {\"gpulint.io/headroom-added\":"
            "\"{\\\"train\\\":{\\\"added\\\":\\\"1Gi\\\",\\\"limits\\\":\\\"8Gi\\\"}}\"}",
        });
  REQUIRE(fixed.problems.size() == 1);
  CHECK(fixed.problems[0].ToString().rfind("s.yaml:18:", 0) == 0);
  CHECK(fixed.problems[0].message.rfind("not fixed, left as it was: ", 0) == 0);
  CHECK(fixed.documents_changed == 3);
  // 500GB could be decimal or binary: left, and said so.
  CHECK(fixed.unfixed ==
        std::vector<std::string>{
            "s.yaml:35:28: not fixed: spec.containers[0].resources.limits.ephemeral-storage: it "
            "can be read more than one way, or not at all; 'gpulint quantity VALUE' shows the "
            "candidates [quantity-invalid]"});
  CheckSecondRunChangesNothing(fixed, "s.yaml", Inventory(), WithMutations());
}

// Issue 13: a typo in a 4-GPU worker. fix repairs the typo and nothing else:
// no headroom (32Gi stays 32Gi), no VRAM.
constexpr char kRayWorker[] = R"(apiVersion: ray.io/v1
kind: RayCluster
metadata: {name: ray}
spec:
  headGroupSpec:
    template:
      spec:
        containers:
        - name: head
          image: rayproject/ray:2.9.0
  workerGroupSpecs:
  - groupName: gpu
    template:
      spec:
        containers:
        - name: worker
          image: rayproject/ray:2.9.0-gpu
          resources:
            limits: {nvidia.com/gpu: 4, memory: 32Gi, ephemeral-storage: 100GiB}
)";

TEST_CASE("fix: repairs the typo, and adds no capacity nobody asked for", "[fix]") {
  FixedFile fixed = FixText(kRayWorker, "ray.yaml", DefaultPolicy(), IncidentNodes());
  std::string expected = kRayWorker;
  expected.replace(expected.find("100GiB"), 6, "100Gi");
  CHECK(fixed.text == expected);
  CHECK(fixed.changes.size() == 1);
  CHECK(fixed.unfixed.empty());
  // The webhook's patch is there for the asking.
  FixedFile mutated = FixText(kRayWorker, "ray.yaml", DefaultPolicy(), IncidentNodes(),
                              WithMutations());
  CHECK(mutated.text.find("memory: 32Gi") == std::string::npos);
  CHECK(mutated.text.find("gpulint.io/headroom-added") != std::string::npos);
}

constexpr char kMistakes[] = R"(apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
  - name: train
    image: nvcr.io/nvidia/pytorch:24.05-py3
    resources:
      requests: {nvidia.com/gpu: 1, memory: 500m}
      limits: {nvidia.com/gpu: 2, memory: 500Mi}
  - name: metrics   # CUDA image, no GPU limit
    image: nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04
  - name: exporter
    image: nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04
    env: [{name: NVIDIA_VISIBLE_DEVICES, value: all}]
    resources:
      requests: {memory: 0m, example.com/fpga: 2}
      limits: {memory: 64m}
)";

constexpr char kMistakesFixed[] = R"(apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
  - name: train
    image: nvcr.io/nvidia/pytorch:24.05-py3
    resources:
      requests: {nvidia.com/gpu: 2, memory: 500Mi}
      limits: {nvidia.com/gpu: 2, memory: 500Mi}
  - name: metrics   # CUDA image, no GPU limit
    image: nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04
    env:
    - name: NVIDIA_VISIBLE_DEVICES
      value: void
  - name: exporter
    image: nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04
    env: [{name: NVIDIA_VISIBLE_DEVICES, value: all}]
    resources:
      requests: {memory: 0, example.com/fpga: 2}
      limits: {memory: 64m, example.com/fpga: 2}
)";

TEST_CASE("fix: repairs what check reports, and says why it leaves the rest", "[fix]") {
  FixedFile fixed = FixText(kMistakes, "m.yaml", DefaultPolicy(), Inventory());
  CHECK(fixed.text == kMistakesFixed);
  CHECK(fixed.changes ==
        std::vector<std::string>{
            "m.yaml:9:34: spec.containers[0].resources.requests[\"nvidia.com/gpu\"]: 1 -> 2 "
            "(the limit: what the device plugin allocates; extended resources need requests "
            "equal to limits) [gpu-request-limit-mismatch]",
            "m.yaml:9:45: spec.containers[0].resources.requests.memory: 500m -> 500Mi (the "
            "limit is 500Mi) [quantity-milli-memory]",
            "m.yaml:11:5: spec.containers[1]: add env NVIDIA_VISIBLE_DEVICES=void (no GPU "
            "limit: it must see no GPU) [gpu-limit-missing]",
            "m.yaml:17:26: spec.containers[2].resources.requests.memory: 0m -> 0 (zero in any "
            "unit) [quantity-milli-memory]",
            "m.yaml:17:48: spec.containers[2].resources.requests[\"example.com/fpga\"]: add "
            "limit 2 (equal to the request: extended resources need limits equal to requests) "
            "[gpu-request-limit-mismatch]",
        });
  CHECK(fixed.unfixed ==
        std::vector<std::string>{
            "m.yaml:18:24: not fixed: spec.containers[2].resources.limits.memory: 64m could be "
            "64Mi or 64M, and only the author knows which [quantity-milli-memory]",
        });
  // What is left for check is exactly what fix said it left.
  std::vector<std::string> left;
  for (const Finding& f : Evaluate(mutate_testing::Yaml(fixed.text), "", DefaultPolicy(), Inventory()))
    if (f.rule != "gpu-visibility-bypass") left.push_back(f.rule + " " + f.path);
  CHECK(left == std::vector<std::string>{
                    "quantity-milli-memory spec.containers[2].resources.limits.memory"});
  CheckSecondRunChangesNothing(fixed, "m.yaml", Inventory());
}

TEST_CASE("fix --only: the repairs of those rules and no other", "[fix]") {
  FixOptions options;
  options.only = {"gpu-limit-missing"};
  FixedFile fixed = FixText(kMistakes, "m.yaml", DefaultPolicy(), Inventory(), options);
  CHECK(fixed.changes.size() == 1);
  CHECK(fixed.changes[0].find("[gpu-limit-missing]") != std::string::npos);
  // Only the chosen rule's leftovers are reported, and it has none: the other
  // rules' findings (500m, 64m) are not said.
  CHECK(fixed.unfixed.empty());
  CHECK(fixed.text.find("nvidia.com/gpu: 1, memory: 500m") != std::string::npos);
}

TEST_CASE("fix: hiding GPUs turned off in the policy is left, and said so", "[fix]") {
  Policy policy;
  Error error;
  REQUIRE(LoadPolicyText("apiVersion: gpulint.io/v1alpha1\nkind: Policy\nspec:\n"
                         "  mutations: {hideGpus: false}\n",
                         "p.yaml", &policy, &error));
  FixedFile fixed = FixText(kMistakes, "m.yaml", policy, Inventory());
  CHECK(fixed.text.find("value: void") == std::string::npos);
  CHECK(std::count_if(fixed.unfixed.begin(), fixed.unfixed.end(), [](const std::string& u) {
          return u.find("spec.mutations.hideGpus: false") != std::string::npos;
        }) == 1);
}

TEST_CASE("fix: a change through an alias is refused, the document is left as it was", "[fix]") {
  const std::string text = R"(apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  tolerations: [{key: nvidia.com/gpu, operator: Exists}]
  containers:
  - &c {name: a, image: busybox}
  - *c
)";
  FixedFile fixed = FixText(text, "p.yaml", DefaultPolicy(), Inventory(), WithMutations());
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
