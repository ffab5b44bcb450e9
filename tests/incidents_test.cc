// The five incidents of docs/incidents.md, with their own numbers, through
// the engine as both front ends call it.
#include <catch2/catch.hpp>

#include "engine/policies.h"
#include "engine/yaml/loader.h"
#include "tests/golden.h"

namespace gpulint::testing {
namespace {

std::vector<Finding> LintText(const std::string& yaml, const Policy& policy,
                              const Inventory& inventory) {
  std::vector<Finding> out;
  Error error;
  REQUIRE(LoadYamlString(yaml, "incident.yaml", LoadLimits(),
                         [&](Document&& doc) {
                           REQUIRE(doc.ok);
                           for (Finding& f : Evaluate(doc.root, "incident.yaml", policy, inventory))
                             out.push_back(std::move(f));
                           return true;
                         },
                         &error));
  return out;
}

bool Has(const std::vector<Finding>& findings, const std::string& rule) {
  for (const Finding& f : findings)
    if (f.rule == rule) return true;
  return false;
}

Policy PolicyFrom(const std::string& text) {
  Policy p;
  Error error;
  INFO(error.ToString());
  REQUIRE(LoadPolicyText(text, "policy.yaml", &p, &error));
  return p;
}

std::string JobWithMemory(const std::string& product, const std::string& memory, int gpus) {
  return "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  template:\n    spec:\n"
         "      restartPolicy: Never\n"
         "      nodeSelector: {nvidia.com/gpu.product: " + product + "}\n"
         "      tolerations: [{key: nvidia.com/gpu, operator: Exists}]\n"
         "      containers:\n      - name: c\n        image: nvcr.io/nvidia/pytorch:24.05-py3\n"
         "        resources:\n          limits: {memory: " + memory +
         ", nvidia.com/gpu: " + std::to_string(gpus) + "}\n";
}

Inventory IncidentNodes(const Policy& policy) {
  return BuildInventory(policy, LoadNodes(SourceDir() + "/testdata/nodes/incidents.yaml"));
}

}  // namespace

TEST_CASE("incident 1: 500Gi is denied on the 527787256Ki V100 node, 440G fits", "[incident]") {
  Policy policy = PolicyFrom(std::string(DefaultPolicyText()));
  Inventory nodes = IncidentNodes(policy);
  auto denied = LintText(JobWithMemory("Tesla-V100-SXM2-32GB", "500Gi", 4), policy, nodes);
  REQUIRE(Has(denied, "exceeds-allocatable"));
  CHECK(!Has(LintText(JobWithMemory("Tesla-V100-SXM2-32GB", "440G", 4), policy, nodes),
             "exceeds-allocatable"));
  // The message shows the arithmetic in both unit systems.
  for (const Finding& f : denied) {
    if (f.rule != "exceeds-allocatable") continue;
    CHECK_THAT(f.message, Catch::Contains("536870912000 B = 536.9 GB = 500 GiB"));
    CHECK_THAT(f.message, Catch::Contains("540454150144 B = 540.5 GB = 503.3 GiB"));
    CHECK_THAT(f.message, Catch::Contains("509136475340 B = 509.1 GB = 474.2 GiB"));
  }
}

TEST_CASE("incident 3: the memory limit counts, with per-GPU driver headroom", "[incident]") {
  // The driver took 31.4 GB outside every cgroup; a policy that reserves 32Gi
  // per GPU denies the 40G limit that hung the T4 node and keeps 20G.
  Policy policy = PolicyFrom(
      "apiVersion: gpulint.io/v1alpha1\nkind: Policy\nmetadata: {name: renderers}\n"
      "spec:\n  reserved:\n    memory: {fixed: 1Gi, percent: 5, perGpu: 32Gi}\n");
  Inventory nodes = IncidentNodes(policy);
  CHECK(Has(LintText(JobWithMemory("Tesla-T4", "40G", 1), policy, nodes), "exceeds-allocatable"));
  CHECK(!Has(LintText(JobWithMemory("Tesla-T4", "20G", 1), policy, nodes), "exceeds-allocatable"));
  // 40g is not a quantity at all.
  CHECK(Has(LintText(JobWithMemory("Tesla-T4", "40g", 1), policy, nodes), "quantity-invalid"));
}

TEST_CASE("incident 2: 60 GB of VRAM on a 48 GB card is refused, 12 GB fits", "[incident]") {
  Policy policy = PolicyFrom(std::string(DefaultPolicyText()));
  Inventory nodes = IncidentNodes(policy);
  auto pod = [](const std::string& vram) {
    return "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  annotations: {gpulint.io/vram: " +
           vram + "}\nspec:\n  nodeSelector: {nvidia.com/gpu.product: Quadro-RTX-8000}\n"
           "  containers:\n  - name: c\n    image: nvcr.io/nvidia/tritonserver:24.05-py3\n"
           "    resources: {limits: {cpu: '1', memory: 2G, nvidia.com/gpu: 1}}\n";
  };
  CHECK(Has(LintText(pod("60G"), policy, nodes), "vram-exceeds-gpu"));
  CHECK(!Has(LintText(pod("12G"), policy, nodes), "vram-exceeds-gpu"));
}

TEST_CASE("incident 4: two MPS replicas are flagged, one is not", "[incident]") {
  Policy policy = PolicyFrom(std::string(DefaultPolicyText()));
  Inventory nodes = IncidentNodes(policy);
  CHECK(Has(LintText(JobWithMemory("Tesla-T4-SHARED", "2Gi", 2), policy, nodes),
            "shared-gpu-multiple-replicas"));
  CHECK(!Has(LintText(JobWithMemory("Tesla-T4-SHARED", "2Gi", 1), policy, nodes),
             "shared-gpu-multiple-replicas"));
}

}  // namespace gpulint::testing
