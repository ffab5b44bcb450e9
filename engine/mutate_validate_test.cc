// validate(mutate(x)) == validate(x): the API server calls the mutating
// webhook before the validating one, so a pod must get the same verdict, in
// the user's own numbers, whether or not gpulint mutated it first.
#include <algorithm>
#include <catch2/catch.hpp>
#include <iterator>
#include <string>
#include <vector>

#include "engine/engine_test_support.h"
#include "engine/json/json_parser.h"
#include "engine/policies.h"
#include "engine/yaml/loader.h"

namespace gpulint {
namespace {

using namespace mutate_testing;  // NOLINT: test helpers

// What a finding decides, without its position: the mutated object is longer.
std::vector<std::string> Verdict(const Value& object, const Inventory& inventory) {
  std::vector<std::string> out;
  for (const Finding& f : Evaluate(object, "", DefaultPolicy(), inventory))
    out.push_back(f.rule + " " + SeverityName(f.severity) + ": " + f.message);
  std::sort(out.begin(), out.end());
  return out;
}

// The verdicts agree, but for what the mutation repairs: a container hidden
// from GPUs (NVIDIA_VISIBLE_DEVICES=void) no longer sees every GPU, so its
// gpu-limit-missing finding goes, and nothing else may come or go. Returns
// whether the mutation changed anything, so a caller can tell that the
// invariant was exercised and not merely held by an empty patch.
bool CheckAgrees(const Value& object, const Inventory& inventory) {
  std::vector<PatchOp> ops = Mutate(object, DefaultPolicy(), inventory);
  Value mutated = object;
  Error error;
  INFO(error.ToString());
  REQUIRE(ApplyPatch(ops, &mutated, &error));
  std::string patch = PatchToJson(ops);
  INFO("patch: " << patch);
  std::vector<std::string> before = Verdict(object, inventory);
  std::vector<std::string> after = Verdict(mutated, inventory);
  std::vector<std::string> gone, came;
  std::set_difference(before.begin(), before.end(), after.begin(), after.end(),
                      std::back_inserter(gone));
  std::set_difference(after.begin(), after.end(), before.begin(), before.end(),
                      std::back_inserter(came));
  CHECK(came == std::vector<std::string>{});
  for (const std::string& finding : gone) {
    INFO(finding);
    CHECK(finding.rfind("gpu-limit-missing ", 0) == 0);
    CHECK(patch.find(R"({"name":"NVIDIA_VISIBLE_DEVICES","value":"void"})") != std::string::npos);
  }
  return !ops.empty();
}

std::vector<Value> Objects(const std::string& path) {
  std::vector<Value> out;
  Error error;
  LoadYamlString(testing::ReadFile(path), path, LoadLimits{},
                 [&](Document&& d) {
                   if (d.ok && d.root.is_mapping()) out.push_back(std::move(d.root));
                   return true;
                 },
                 &error);
  return out;
}

TEST_CASE("every manifest in testdata/ gets the same verdict mutated as written",
          "[mutate][validate]") {
  int objects = 0, mutated = 0;
  for (const auto& entry : fs::recursive_directory_iterator(testing::SourceDir() + "/testdata")) {
    std::string path = entry.path().string();
    // The corpus and the captured reviews have tests of their own.
    if (entry.path().extension() != ".yaml" || path.find("/nodes") != std::string::npos ||
        path.find("/policies/") != std::string::npos || path.find("/corpus/") != std::string::npos ||
        path.find("/admission/") != std::string::npos)
      continue;
    for (const Value& object : Objects(path)) {
      INFO(path);
      ++objects;
      for (const Inventory* nodes : {&NoNodes(), &IncidentNodes()})
        mutated += CheckAgrees(object, *nodes);
    }
  }
  CHECK(objects > 50);
  CHECK(mutated > 20);
}

TEST_CASE("every captured admission body gets the same verdict mutated as written",
          "[mutate][validate][admission]") {
  int bodies = 0, mutated = 0;
  // Both sets: kube-apiserver 1.26's and, in v1.36/, 1.36's.
  for (const auto& entry :
       fs::recursive_directory_iterator(testing::SourceDir() + "/testdata/admission")) {
    std::string name = entry.path().filename().string();
    if (entry.path().extension() != ".json" || name.find("nodes") != std::string::npos) continue;
    INFO(name);
    Value review;
    Error error;
    REQUIRE(ParseJson(testing::ReadFile(entry.path().string()), 256, &review, &error));
    const Value* request = review.Find("request");
    const Value* object = request ? request->Find("object") : nullptr;
    REQUIRE(object);
    ++bodies;
    for (const Inventory* nodes : {&NoNodes(), &IncidentNodes()})
      mutated += CheckAgrees(*object, *nodes);
  }
  CHECK(bodies == 20 + 25);
  CHECK(mutated > 10);
}

TEST_CASE("a denial quotes the memory the user wrote, not the mutated one", "[mutate][validate]") {
  // Incident 1: 500Gi and 4 GPUs on the V100 node; the mutation makes it 504Gi.
  Value pod = Yaml(GpuPod("{limits: {memory: 500Gi, nvidia.com/gpu: 4}}",
                          "  tolerations: [{key: nvidia.com/gpu, operator: Exists}]\n"));
  std::vector<PatchOp> ops = Mutate(pod, DefaultPolicy(), IncidentNodes());
  REQUIRE(PatchToJson(ops).find("504Gi") != std::string::npos);
  Value mutated = pod;
  Error error;
  REQUIRE(ApplyPatch(ops, &mutated, &error));
  std::vector<Finding> findings = Evaluate(mutated, "", DefaultPolicy(), IncidentNodes());
  auto denial = std::find_if(findings.begin(), findings.end(),
                             [](const Finding& f) { return f.rule == "exceeds-allocatable"; });
  REQUIRE(denial != findings.end());
  CHECK(denial->message.find("memory request 500Gi (") != std::string::npos);
  CHECK(denial->message.find("504Gi") == std::string::npos);
}

TEST_CASE("a clean GPU pod that fits is not refused once mutated", "[mutate][validate]") {
  // The field report: 16Gi on a one-GPU node with 32G allocatable was admitted
  // as a Deployment and then refused as each pod, with 24Gi (then 8Gi per GPU
  // was added; now 1Gi is).
  Value nodes = Yaml(R"(
apiVersion: v1
kind: Node
metadata:
  name: gpu-1
  labels: {nvidia.com/gpu.count: "1", nvidia.com/gpu.memory: "24576"}
status:
  allocatable: {cpu: "8", memory: 32G, nvidia.com/gpu: "1"}
)");
  NodeClass node;
  Error error;
  REQUIRE(NodeClassFromNode(nodes, "<test>", &node, &error));
  Inventory inventory = BuildInventory(DefaultPolicy(), {node});
  Value pod = Yaml(GpuPod("{requests: {memory: 16Gi}, limits: {memory: 16Gi, nvidia.com/gpu: 1}}"));
  CHECK(Verdict(pod, inventory).empty());
  std::vector<PatchOp> ops = Mutate(pod, DefaultPolicy(), inventory);
  REQUIRE(PatchToJson(ops).find("17Gi") != std::string::npos);
  Value mutated = pod;
  REQUIRE(ApplyPatch(ops, &mutated, &error));
  CHECK(Verdict(mutated, inventory).empty());
}

TEST_CASE("a forged headroom record takes out no more than the mutation would add",
          "[mutate][validate]") {
  // 4 GPUs bring at most 4 × 1Gi: a record of 400Gi counts as 4Gi, so 500Gi
  // is judged as 496Gi, still over the V100 node's 474.2 GiB.
  Value pod = Yaml(GpuPod("{limits: {memory: 500Gi, nvidia.com/gpu: 4}}",
                          "  tolerations: [{key: nvidia.com/gpu, operator: Exists}]\n",
                          R"({gpulint.io/headroom-added: '{"cuda":"400Gi"}'})"));
  std::vector<Finding> findings = Evaluate(pod, "", DefaultPolicy(), IncidentNodes());
  auto denial = std::find_if(findings.begin(), findings.end(),
                             [](const Finding& f) { return f.rule == "exceeds-allocatable"; });
  REQUIRE(denial != findings.end());
  CHECK(denial->message.find("memory request 496Gi (") != std::string::npos);
}

TEST_CASE("memory resized in place since the mutation is judged as it now is",
          "[mutate][validate]") {
  // The V100 node holds 474.2 GiB after the reserve. The mutation made 470Gi
  // into 474Gi and recorded it; an in-place resize then set 476Gi, leaving
  // the annotation as it was: the pod asks 476Gi, which does not fit.
  const char* record =
      R"({gpulint.io/headroom-added: '{"cuda":{"added":"4Gi","requests":"470Gi","limits":"470Gi"}}'})";
  const char* tolerations = "  tolerations: [{key: nvidia.com/gpu, operator: Exists}]\n";
  auto denial_of = [&](const char* resources) {
    std::vector<Finding> findings = Evaluate(Yaml(GpuPod(resources, tolerations, record)), "",
                                             DefaultPolicy(), IncidentNodes());
    for (const Finding& f : findings)
      if (f.rule == "exceeds-allocatable") return f.message;
    return std::string("(admitted)");
  };
  CHECK_THAT(denial_of("{limits: {memory: 476Gi, nvidia.com/gpu: 4}}"),
             Catch::Contains("memory request 476Gi ("));
  // Still what the mutation left: read as the user wrote it, 470Gi, which fits.
  CHECK(denial_of("{limits: {memory: 474Gi, nvidia.com/gpu: 4}}") == "(admitted)");
}

}  // namespace
}  // namespace gpulint
