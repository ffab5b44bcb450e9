// Helpers shared by the mutation tests.
#ifndef GPULINT_ENGINE_ENGINE_TEST_SUPPORT_H_
#define GPULINT_ENGINE_ENGINE_TEST_SUPPORT_H_

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "engine/mutate/mutate.h"
#include "engine/yaml/loader.h"
#include "tests/golden.h"

namespace gpulint::mutate_testing {

namespace fs = std::filesystem;

// The env entry the hide-GPUs mutation adds, as JSON.
inline constexpr const char* kVoid = R"({"name":"NVIDIA_VISIBLE_DEVICES","value":"void"})";
inline Value Yaml(std::string_view text) {
  std::vector<Document> docs;
  Error error;
  REQUIRE(LoadYamlString(
      text, "<test>", LoadLimits{},
      [&](Document&& d) {
        docs.push_back(std::move(d));
        return true;
      },
      &error));
  REQUIRE(docs.size() == 1);
  INFO(docs[0].error.ToString());
  REQUIRE(docs[0].ok);
  return std::move(docs[0].root);
}

inline const Inventory& NoNodes() {
  static const Inventory inventory;
  return inventory;
}

// testdata/nodes/incidents.yaml: v100-node (4 × 32 GiB, tainted), rtx8000-node
// (1 × 48 GiB), t4-node (1 × 15 GiB, tainted), t4-mps-node (1 T4 as 10 MPS
// replicas), cpu-node.
inline const Inventory& IncidentNodes() {
  static const Inventory inventory = BuildInventory(
      DefaultPolicy(), testing::LoadNodes(testing::SourceDir() + "/testdata/nodes/incidents.yaml"));
  return inventory;
}

inline Policy PolicyWith(std::string_view spec_yaml) {
  Policy p;
  Error error;
  std::string text =
      "apiVersion: gpulint.io/v1alpha1\nkind: Policy\nspec:\n" + std::string(spec_yaml);
  INFO(error.ToString());
  REQUIRE(LoadPolicyText(text, "<test policy>", &p, &error));
  return p;
}

// The patch for `object` as JSON. Every patch checked here must also apply,
// leave GPU limits alone and leave nothing for a second pass to do.
inline std::string PatchFor(const Value& object, const Policy& policy, const Inventory& inventory) {
  std::vector<PatchOp> ops = Mutate(object, policy, inventory);
  std::string json = PatchToJson(ops);
  INFO(json);
  for (const PatchOp& op : ops)
    for (const std::string& gpu : policy.gpu_resources)
      CHECK(op.path.find(EscapePointerSegment(gpu)) == std::string::npos);
  Value mutated = object;
  Error error;
  INFO(error.ToString());
  REQUIRE(ApplyPatch(ops, &mutated, &error));
  CHECK(PatchToJson(Mutate(mutated, policy, inventory)) == "[]");
  return json;
}

inline std::string PatchFor(std::string_view yaml, const Inventory& inventory = NoNodes()) {
  return PatchFor(Yaml(yaml), DefaultPolicy(), inventory);
}

// A Pod with one container `cuda` whose resources (and pod spec extras) are given.
inline std::string GpuPod(std::string_view resources, std::string_view spec_extra = "",
                          std::string_view annotations = "") {
  std::string text = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n";
  if (!annotations.empty()) text += "  annotations: " + std::string(annotations) + "\n";
  text += "spec:\n";
  if (!spec_extra.empty()) text += std::string(spec_extra);
  text += "  containers:\n  - name: cuda\n    image: example/trainer:1\n    resources: " +
          std::string(resources) + "\n";
  return text;
}

inline std::string VramPatch(std::string_view value,
                             std::string_view container = "/spec/containers/0") {
  std::string c(container), v(value);
  return R"([{"op":"add","path":")" + c + R"(/resources/requests","value":{"gpulint.io/vram":")" +
         v + R"("}},{"op":"add","path":")" + c +
         R"(/resources/limits/gpulint.io~1vram","value":")" + v + R"("}])";
}

}  // namespace gpulint::mutate_testing

#endif  // GPULINT_ENGINE_ENGINE_TEST_SUPPORT_H_
