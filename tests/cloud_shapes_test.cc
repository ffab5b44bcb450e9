// The default reserve against the clouds' common one-GPU and eight-GPU shapes
// (policies/README.md, "reserved"): on each, the pod the shape is meant to run
// (75% of the advertised RAM, all its GPUs) is admitted, and the V100 node of
// docs/incidents.md still denies the 500Gi job that hung it.
#include <catch2/catch.hpp>

#include "engine/policies.h"
#include "engine/yaml/loader.h"
#include "tests/golden.h"

namespace gpulint::testing {
namespace {

Policy PolicyFrom(std::string_view text) {
  Policy policy;
  Error error;
  INFO(error.ToString());
  REQUIRE(LoadPolicyText(text, "policy.yaml", &policy, &error));
  return policy;
}

// The findings of exceeds-allocatable for a pod asking `memory` and `gpus`
// on the nodes labelled with `instance_type`.
std::vector<std::string> Verdict(const std::string& instance_type, const std::string& memory,
                                 int gpus, const Policy& policy, const Inventory& nodes) {
  std::string yaml =
      "apiVersion: v1\nkind: Pod\nmetadata: {name: train}\nspec:\n"
      "  nodeSelector: {node.kubernetes.io/instance-type: " + instance_type + "}\n"
      "  tolerations: [{key: nvidia.com/gpu, operator: Exists}]\n"
      "  containers:\n  - name: train\n    image: nvcr.io/nvidia/pytorch:24.05-py3\n"
      "    resources: {limits: {memory: " + memory + ", nvidia.com/gpu: " +
      std::to_string(gpus) + "}}\n";
  std::vector<std::string> out;
  Error error;
  REQUIRE(LoadYamlString(yaml, "pod.yaml", LoadLimits(),
                         [&](Document&& doc) {
                           REQUIRE(doc.ok);
                           for (const Finding& f : Evaluate(doc.root, "pod.yaml", policy, nodes))
                             if (f.rule == "exceeds-allocatable" || f.rule == "no-matching-node")
                               out.push_back(f.rule + ": " + f.message);
                           return true;
                         },
                         &error));
  return out;
}

struct Shape {
  const char* instance_type;
  const char* pod_memory;  // 75% of the advertised RAM
  int gpus;
  const char* full;  // the node's whole allocatable memory
};

constexpr Shape kShapes[] = {
    {"g2-standard-8", "24Gi", 1, "28712468Ki"},
    {"g6.xlarge", "12Gi", 1, "15257067Ki"},
    {"g4dn.xlarge", "12Gi", 1, "15583723Ki"},
    {"g4dn.2xlarge", "24Gi", 1, "31857623Ki"},
    {"Standard_NC4as_T4_v3", "21Gi", 1, "26179658Ki"},
    {"p4d.24xlarge", "864Gi", 8, "1163055677Ki"},
    {"a2-highgpu-8g", "510Gi", 8, "670189321Ki"},
    {"p5.48xlarge", "1536Gi", 8, "2081569218Ki"},
    {"a3-highgpu-8g", "1404Gi", 8, "1857596783Ki"},
    {"Standard_ND96asr_v4", "675Gi", 8, "913107182Ki"},
};

}  // namespace

TEST_CASE("the default reserve admits each cloud shape's largest pod", "[cloud-shapes]") {
  Policy policy = PolicyFrom(DefaultPolicyText());
  Inventory nodes =
      BuildInventory(policy, LoadNodes(SourceDir() + "/testdata/nodes/cloud-shapes.yaml"));
  for (const Shape& s : kShapes) {
    INFO(s.instance_type << ": " << s.pod_memory << " with " << s.gpus << " GPUs");
    CHECK(Verdict(s.instance_type, s.pod_memory, s.gpus, policy, nodes).empty());
    // The reserve is not zero: the whole allocatable is still refused.
    CHECK(Verdict(s.instance_type, s.full, s.gpus, policy, nodes).size() == 1);
  }
}

TEST_CASE("the former default (1Gi + 5% + 8Gi per GPU) denied the one-GPU shapes",
          "[cloud-shapes]") {
  Policy policy = PolicyFrom(
      "apiVersion: gpulint.io/v1alpha1\nkind: Policy\nmetadata: {name: old}\n"
      "spec:\n  reserved:\n    memory: {fixed: 1Gi, percent: 5, perGpu: 8Gi}\n");
  Inventory nodes =
      BuildInventory(policy, LoadNodes(SourceDir() + "/testdata/nodes/cloud-shapes.yaml"));
  for (const Shape& s : kShapes) {
    INFO(s.instance_type);
    CHECK(Verdict(s.instance_type, s.pod_memory, s.gpus, policy, nodes).empty() == (s.gpus == 8));
  }
}

TEST_CASE("the default reserve still denies 500Gi on the 527787256Ki V100 node", "[cloud-shapes]") {
  Policy policy = PolicyFrom(DefaultPolicyText());
  std::vector<NodeClass> v100;
  for (NodeClass& n : LoadNodes(SourceDir() + "/testdata/nodes/incidents.yaml"))
    if (n.name == "v100-node") v100.push_back(std::move(n));
  REQUIRE(v100.size() == 1);
  v100[0].labels["node.kubernetes.io/instance-type"] = "v100-4x";
  Inventory nodes = BuildInventory(policy, std::move(v100));
  std::vector<std::string> denied = Verdict("v100-4x", "500Gi", 4, policy, nodes);
  REQUIRE(denied.size() == 1);
  CHECK_THAT(denied[0], Catch::Contains("reserved 31317674804 B = 31.3 GB = 29.2 GiB "
                                        "[5% of allocatable + 4 GPUs × 1Gi] = "
                                        "509136475340 B = 509.1 GB = 474.2 GiB"));
  CHECK(Verdict("v100-4x", "440G", 4, policy, nodes).empty());
  CHECK(Verdict("v100-4x", "474Gi", 4, policy, nodes).empty());
  CHECK(Verdict("v100-4x", "475Gi", 4, policy, nodes).size() == 1);
}

}  // namespace gpulint::testing
