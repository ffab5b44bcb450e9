// Fix-its: the repairs rules attach to their findings when asked
// (EvaluateOptions::fixes), and the findings that go without, and why.
#include <catch2/catch.hpp>
#include <cstdio>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "engine/engine_test_support.h"
#include "engine/policies.h"

namespace gpulint {
namespace {

using mutate_testing::Yaml;

// quantity-invalid's fixes: "op path value (field: as written)", in the
// findings' order.
std::vector<std::string> UnitFixes(const Value& object, const Policy& policy) {
  EvaluateOptions options;
  options.fixes = true;
  std::vector<std::string> got;
  for (const Finding& f : Evaluate(object, "", policy, Inventory(), options)) {
    if (f.rule != "quantity-invalid" || !f.fix) continue;
    REQUIRE(f.fix->ops.size() == 1);
    const PatchOp& op = f.fix->ops[0];
    std::string written = f.fix->what.substr(0, f.fix->what.find(" -> "));
    got.push_back(op.op + " " + op.path + " " + op.value.text() + " (" + f.fix->field + ": " +
                  written + ")");
  }
  return got;
}

TEST_CASE("quantity-invalid attaches unit fixes to byte-sized resources and VRAM annotations",
          "[fix-it]") {
  Value pod = Yaml(R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: d}
spec:
  template:
    metadata:
      annotations: {gpulint.io/vram: 12GiB, gpulint.io/vram.b: 4gi, other: 5MiB}
    spec:
      initContainers:
      - name: a
        resources: {limits: {memory: 1GiB}}
      containers:
      - name: b
        resources:
          requests: {cpu: 1MiB, ephemeral-storage: 512B, memory: 500GB, example.com/x: 2KiB}
          limits: {hugepages-2Mi: 2MiB, gpulint.io/vram: 8GIB, nvidia.com/gpu: 1}
)");
  CHECK(UnitFixes(pod, DefaultPolicy()) ==
        std::vector<std::string>{
            "replace /spec/template/metadata/annotations/gpulint.io~1vram 12Gi "
            "(gpulint.io/vram: 12GiB)",
            "replace /spec/template/metadata/annotations/gpulint.io~1vram.b 4Gi "
            "(gpulint.io/vram.b: 4gi)",
            "replace /spec/template/spec/initContainers/0/resources/limits/memory 1Gi "
            "(memory: 1GiB)",
            "replace /spec/template/spec/containers/0/resources/requests/"
            "ephemeral-storage 512 (ephemeral-storage: 512B)",
            "replace /spec/template/spec/containers/0/resources/limits/hugepages-2Mi 2Mi "
            "(hugepages-2Mi: 2MiB)",
            "replace /spec/template/spec/containers/0/resources/limits/gpulint.io~1vram "
            "8Gi (gpulint.io/vram: 8GIB)",
        });
}

TEST_CASE("an exempt namespace gets no unit fixes, as it gets no findings", "[fix-it]") {
  Policy policy;
  Error error;
  REQUIRE(
      LoadPolicyText("apiVersion: gpulint.io/v1alpha1\nkind: Policy\nspec:\n  exemptions:\n"
                     "    namespaces: [legacy]\n",
                     "<policy>", &policy, &error));
  const char* pod = R"(apiVersion: v1
kind: Pod
metadata: {name: p, namespace: %s}
spec:
  containers:
  - {name: c, resources: {limits: {memory: 1GiB}}}
)";
  char text[256];
  std::snprintf(text, sizeof text, pod, "legacy");
  CHECK(UnitFixes(Yaml(text), policy).empty());
  std::snprintf(text, sizeof text, pod, "ml");
  CHECK(UnitFixes(Yaml(text), policy).size() == 1);
}

TEST_CASE("findings carry no repairs unless asked", "[fix-it]") {
  Value pod = Yaml(R"(apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
  - {name: c, image: x, resources: {limits: {memory: 1GiB}}}
)");
  std::vector<Finding> findings = Evaluate(pod, "", DefaultPolicy(), Inventory());
  REQUIRE(findings.size() == 1);
  CHECK_FALSE(findings[0].fix);
  CHECK(findings[0].no_fix.empty());
}

TEST_CASE("a finding of a repairing rule with no repair says why", "[fix-it]") {
  Value pod = Yaml(R"(apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
  - name: c
    image: x
    resources:
      requests: {memory: 500m, nvidia.com/gpu: 1}
      limits: {memory: 40g, nvidia.com/gpu: 2}
)");
  EvaluateOptions options;
  options.fixes = true;
  std::vector<std::string> got;
  for (const Finding& f : Evaluate(pod, "", DefaultPolicy(), Inventory(), options))
    got.push_back(f.rule + ": " + (f.fix ? f.fix->what : "not fixed: " + f.no_fix));
  CHECK(got == std::vector<std::string>{
                   "quantity-milli-memory: not fixed: 500m could be 500Mi or 500M, and only "
                   "the author knows which",
                   "gpu-request-limit-mismatch: 1 -> 2 (the limit: what the device plugin "
                   "allocates; extended resources need requests equal to limits)",
                   "quantity-invalid: not fixed: it can be read more than one way, or not at "
                   "all; 'gpulint quantity VALUE' shows the candidates",
               });
}

// gpulint fix on a container whose GPU request is misspelt: hiding the
// node's GPUs would hide the one it asks for once the name is corrected.
TEST_CASE("no hide-GPUs repair where a GPU resource is misspelt", "[fix-it]") {
  Value pod = Yaml(R"(apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  tolerations: [{key: nvidia.com/gpu, operator: Exists}]
  containers:
  - name: c
    image: nvcr.io/nvidia/pytorch:24.05-py3
    resources:
      limits: {memory: 16Gi, nvidia.com/gpus: 1}
)");
  EvaluateOptions options;
  options.fixes = true;
  std::vector<std::string> got;
  for (const Finding& f : Evaluate(pod, "", DefaultPolicy(), Inventory(), options))
    if (f.rule == "gpu-limit-missing")
      got.push_back(f.fix ? f.fix->what : "not fixed: " + f.no_fix);
  CHECK(got == std::vector<std::string>{
                   "not fixed: it asks for nvidia.com/gpus, most likely a misspelt GPU resource: "
                   "hiding the node's GPUs from it would hide the GPU it meant to ask for once "
                   "the name is corrected; correct the name (unknown-resource says to what)"});
}

}  // namespace
}  // namespace gpulint
