// Policies the loader refuses, with the position and words of each error.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "engine/policies.h"
#include "engine/policy/policy_test_support.h"

namespace gpulint {
namespace {

using namespace policy_testing;  // NOLINT: test helpers

TEST_CASE("LoadPolicyText refuses what Kubernetes' strict decoder would", "[policy][errors]") {
  struct Case {
    std::string text;
    std::string error;
  };
  for (const Case& c : std::vector<Case>{
           {"apiVersion: v1\nkind: Policy\n",
            "policy.yaml:1:13: apiVersion: expected \"gpulint.io/v1alpha1\", got \"v1\""},
           {"apiVersion: gpulint.io/v1alpha1\nkind: ConfigMap\n",
            "policy.yaml:2:7: kind: expected \"Policy\", got \"ConfigMap\""},
           {"kind: Policy\n",
            "policy.yaml:1:1: missing required field \"apiVersion\" (apiVersion: "
            "gpulint.io/v1alpha1)"},
           {kHeader + "spce: {}\n",
            "policy.yaml:3:7: unknown field \"spce\" (did you mean \"spec\"?)"},
           {kHeader + "metadata: {name: 7}\n",
            "policy.yaml:3:18: metadata.name: expected a string, got int 7 (quote it: \"7\")"},
           {kHeader + "spec:\n  nodeClasses:\n  - {name: off}\n",
            "policy.yaml:5:12: spec.nodeClasses[0].name: expected a string, got bool false (YAML "
            "reads y, n, yes, no, on and off as booleans: quote the value)"},
           {kHeader + "spec:\n  reserved:\n    memory: {fixed: 1Gi, perGPU: 8Gi}\n",
            "policy.yaml:5:34: spec.reserved.memory: unknown field \"perGPU\" (did you mean "
            "\"perGpu\"?)"},
           {kHeader + "spec:\n  reserved:\n    memory: {percent: 101}\n",
            "policy.yaml:5:23: spec.reserved.memory.percent: expected a number from 0 to 100 (at "
            "most 3 decimals, e.g. 2.5), got 101"},
           {kHeader + "spec:\n  reserved:\n    memory: {percent: -1}\n",
            "policy.yaml:5:23: spec.reserved.memory.percent: expected a number from 0 to 100 (at "
            "most 3 decimals, e.g. 2.5), got -1"},
           {kHeader + "spec:\n  reserved:\n    memory: {percent: 2.5001}\n",
            "policy.yaml:5:23: spec.reserved.memory.percent: expected a number from 0 to 100 (at "
            "most 3 decimals, e.g. 2.5), got 2.5001"},
           {kHeader + "spec:\n  reserved:\n    memory: {percent: \"5\"}\n",
            "policy.yaml:5:23: spec.reserved.memory.percent: expected a number from 0 to 100 (at "
            "most 3 decimals, e.g. 2.5), got string \"5\""},
           {kHeader + "spec:\n  reserved:\n    memory: {fixed: -1Gi}\n",
            "policy.yaml:5:21: spec.reserved.memory.fixed: must not be negative"},
           {kHeader + "spec:\n  reserved: [memory]\n",
            "policy.yaml:4:13: spec.reserved: expected a mapping, got a sequence"},
           {kHeader + "spec:\n  mutations: {vram: \"yes\"}\n",
            "policy.yaml:4:21: spec.mutations.vram: expected true or false, got string \"yes\""},
           {kHeader + "spec:\n  gpuNodes:\n    cudaImages: ['ok', '(']\n",
            "policy.yaml:5:24: spec.gpuNodes.cudaImages[1]: invalid pattern \"(\": missing ): ("},
           {kHeader + "spec:\n  gpuNodes: {labelKeys: [gpu, \"\"]}\n",
            "policy.yaml:4:31: spec.gpuNodes.labelKeys[1]: must not be empty"},
           {kHeader + "spec:\n  exemptions: {waiveErrors: {namespaces: [\"\"]}}\n",
            "policy.yaml:4:43: spec.exemptions.waiveErrors.namespaces[0]: must not be empty"},
           {kHeader + "spec:\n  exemptions: {waiveErrors: [ml]}\n",
            "policy.yaml:4:29: spec.exemptions.waiveErrors: expected a mapping, got a sequence"},
           {kHeader + "spec:\n  gpuResources: []\n",
            "policy.yaml:4:17: spec.gpuResources: must name at least one resource, e.g. "
            "nvidia.com/gpu"},
           {kHeader + "spec:\n  vram: {resource: vram}\n",
            "policy.yaml:4:20: spec.vram.resource: \"vram\" is not an extended resource name: use "
            "a domain prefix, e.g. gpulint.io/vram"},
           {kHeader + "spec:\n  rules:\n    gpu-fractional: {severity: fatal}\n",
            "policy.yaml:5:32: spec.rules.gpu-fractional.severity: unknown severity \"fatal\" "
            "(expected info, warning or error)"},
           {kHeader + "spec:\n  rules:\n    gpu-fractional: {enable: false}\n",
            "policy.yaml:5:30: spec.rules.gpu-fractional: unknown field \"enable\" (did you mean "
            "\"enabled\"?)"},
           {kHeader + "spec:\n  exemptions: {namespace: [a]}\n",
            "policy.yaml:4:27: spec.exemptions: unknown field \"namespace\" (did you mean "
            "\"namespaces\"?)"},
           {kHeader + "spec:\n  nodeClasses:\n  - labels: {a: b}\n",
            "policy.yaml:5:5: spec.nodeClasses[0]: missing required field \"name\""},
           {kHeader + "spec:\n  nodeClasses:\n  - {name: a}\n  - {name: a}\n",
            "policy.yaml:6:12: spec.nodeClasses[1].name: duplicate node class name \"a\""},
           {kHeader + "spec:\n  nodeClasses:\n  - {name: a, labels: {nvidia.com/gpu.count: 4}}\n",
            "policy.yaml:5:46: spec.nodeClasses[0].labels[\"nvidia.com/gpu.count\"]: expected a "
            "string, got int 4 (quote it: \"4\")"},
           {kHeader + "spec:\n  nodeClasses:\n  - {name: a, allocatable: {memory: 500GB}}\n",
            ""},  // filled in below from Quantity's own message
           {kHeader +
                "spec:\n  nodeClasses:\n  - {name: a, taints: [{key: k, effect: NoScheduled}]}\n",
            "policy.yaml:5:41: spec.nodeClasses[0].taints[0].effect: unknown effect "
            "\"NoScheduled\" "
            "(expected NoSchedule, PreferNoSchedule or NoExecute)"},
           {kHeader + "spec:\n  nodeClasses:\n  - {name: a, taints: [{effect: NoSchedule}]}\n",
            "policy.yaml:5:24: spec.nodeClasses[0].taints[0]: missing required field \"key\""},
           {kHeader + "spec:\n  nodeClasses:\n  - {name: a, gpu: {sharing: mig}}\n",
            "policy.yaml:5:30: spec.nodeClasses[0].gpu.sharing: unknown sharing \"mig\" (expected "
            "none, time-slicing or mps)"},
           {kHeader + "spec:\n  nodeClasses:\n  - {name: a, gpu: {count: 4, replicas: 4}}\n",
            "policy.yaml:5:41: spec.nodeClasses[0].gpu.replicas: more than 1 replica per GPU needs "
            "sharing: time-slicing or mps"},
           {kHeader + "spec:\n  nodeClasses:\n  - {name: a, gpu: {count: -1}}\n",
            "policy.yaml:5:28: spec.nodeClasses[0].gpu.count: must be from 0 to 1024, got -1"},
           {kHeader + "spec:\n  nodeClasses:\n  - {name: a, gpu: {count: 99999999999999999999}}\n",
            // past uint64 go-yaml reads a float64, 1e20
            "policy.yaml:5:28: spec.nodeClasses[0].gpu.count: must be from 0 to 1024, got "
            "100000000000000000000"},
           {kHeader + "spec:\n  nodeClasses:\n  - {name: a, gpu: {count: 2.5}}\n",
            "policy.yaml:5:28: spec.nodeClasses[0].gpu.count: expected a whole number, got float "
            "2.5"},
           {kHeader + "spec:\n  nodeClasses:\n  - {name: a, gpu: {memoryPerGpu: 0}}\n",
            "policy.yaml:5:35: spec.nodeClasses[0].gpu.memoryPerGpu: must be more than 0"},
           {kHeader + "spec:\n  nodeClasses:\n  - {name: a, gpu: {memoryPerGPU: 16Gi}}\n",
            "policy.yaml:5:35: spec.nodeClasses[0].gpu: unknown field \"memoryPerGPU\" (did you "
            "mean \"memoryPerGpu\"?)"},
           {kHeader + "spec:\n  workloads:\n  - {group: apps, templates: [spec.template]}\n",
            "policy.yaml:5:5: spec.workloads[0]: missing required field \"kind\""},
           {kHeader + "spec:\n  workloads:\n  - {kind: A, templates: [spec..template]}\n",
            "policy.yaml:5:27: spec.workloads[0].templates[0]: invalid path \"spec..template\": "
            "expected dotted field names such as spec.template (\"*\" for every key or item, \"\" "
            "for the object itself)"},
           {kHeader + "spec:\n  workloads:\n  - {kind: A, containers: spec.model}\n",
            "policy.yaml:5:27: spec.workloads[0].containers: expected a sequence, got string "
            "\"spec.model\""},
           {kHeader + "spec:\n  workloads:\n  - {kind: A, containerLists: [spec.set.]}\n",
            "policy.yaml:5:32: spec.workloads[0].containerLists[0]: invalid path \"spec.set.\": "
            "expected dotted field names such as spec.template (\"*\" for every key or item, \"\" "
            "for the object itself)"},
           {kHeader + "spec:\n  workloads:\n  - {kind: A, containerList: [spec.c]}\n",
            "policy.yaml:5:30: spec.workloads[0]: unknown field \"containerList\" (did you mean "
            "\"containerLists\"?)"},
           {kHeader + "spec:\n  workloads:\n  - {kind: A}\n  - {kind: A}\n",
            "policy.yaml:6:5: spec.workloads[1]: duplicate entry for kind A in group \"\""},
           {"",
            "policy.yaml: the policy is empty: expected one document with apiVersion: "
            "gpulint.io/v1alpha1 and kind: Policy"},
           {"[1, 2]\n",
            "policy.yaml:1:1: a policy must be a mapping with apiVersion, kind and spec"},
       }) {
    INFO(c.text);
    std::string want = c.error;
    if (want.empty()) {
      Quantity q;
      QuantityError qe;
      REQUIRE_FALSE(Quantity::Parse("500GB", &q, &qe));
      want =
          "policy.yaml:5:37: spec.nodeClasses[0].allocatable.memory: invalid quantity "
          "\"500GB\": " +
          qe.message + (qe.suggestion.empty() ? "" : " (" + qe.suggestion + ")");
    }
    CHECK(LoadError(c.text) == want);
  }
}

TEST_CASE("LoadPolicyText leaves *out alone when the policy does not load", "[policy][errors]") {
  Policy p = MustLoad(kHeader + "metadata: {name: before}\n");
  Error error;
  CHECK_FALSE(LoadPolicyText(kHeader + "metadata: {name: after}\nspec: {bogus: 1}\n", "policy.yaml",
                             &p, &error));
  CHECK(p.name == "before");
}

TEST_CASE("LoadPolicyFile positions errors in the file", "[policy][errors]") {
  Policy p;
  Error error;
  REQUIRE_FALSE(LoadPolicyFile(kPolicies + "typo.yaml", &p, &error));
  CHECK(error.ToString() == kPolicies +
                                "typo.yaml:9:15: spec.reserved.memory: unknown field \"perGPU\" "
                                "(did you mean \"perGpu\"?)");

  REQUIRE_FALSE(LoadPolicyFile(kPolicies + "two-documents.yaml", &p, &error));
  CHECK(error.ToString() ==
        kPolicies +
            "two-documents.yaml:4:1: a policy is one YAML document; found a second one here");

  REQUIRE_FALSE(LoadPolicyFile(kPolicies + "no-such-file.yaml", &p, &error));
  CHECK(error.file == kPolicies + "no-such-file.yaml");
  CHECK_FALSE(error.message.empty());
}

TEST_CASE("a YAML syntax error is reported with its position", "[policy][errors]") {
  Policy p;
  Error error;
  REQUIRE_FALSE(LoadPolicyText(kHeader + "spec: {reserved: [}\n", "policy.yaml", &p, &error));
  CHECK(error.file == "policy.yaml");
  CHECK(error.mark.line == 3);
}

// Every error of `text`, one "L:C: message" each, in the order given.
std::vector<std::string> AllErrors(const std::string& text) {
  Policy p;
  std::vector<Error> errors;
  std::vector<std::string> out;
  if (LoadPolicyText(text, "policy.yaml", &p, &errors)) return out;
  for (const Error& e : errors) {
    CHECK(e.file == "policy.yaml");
    out.push_back(std::to_string(e.mark.line) + ":" + std::to_string(e.mark.column) + ": " +
                  e.message);
  }
  return out;
}

TEST_CASE("exemptions.waiveErrors.rules names rules gpulint has, or every rule", "[policy][errors]") {
  std::vector<std::string> errors = AllErrors(
      kHeader + "spec:\n  exemptions:\n    waiveErrors: {rules: [gpu-fractional, gpu-fractionl, '*']}\n");
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].rfind("5:43: spec.exemptions.waiveErrors.rules[1]: unknown rule "
                        "\"gpu-fractionl\" (rules: ",
                        0) == 0);
}

TEST_CASE("LoadPolicyText reports every error in one run, in file order", "[policy][errors]") {
  const std::string text = kHeader +
                           "spec:\n"
                           "  reserved:\n"
                           "    memory: {perGPU: 8Gi, fixed: -1Gi}\n"
                           "  mutations: {vram: \"yes\"}\n"
                           "  rules:\n"
                           "    gpu-fractionl: {severity: fatal}\n"
                           "  nodeClasses:\n"
                           "  - labels: {a: b}\n"
                           "  - {name: b, allocatable: {memory: 1Gi, cpu: lots}}\n"
                           "  gpuNodes: {cudaImages: ['(', ok, '[']}\n"
                           "spce: {}\n";
  std::vector<std::string> errors = AllErrors(text);
  REQUIRE(errors.size() == 10);
  CHECK(errors[0] ==
        "5:22: spec.reserved.memory: unknown field \"perGPU\" (did you mean "
        "\"perGpu\"?)");
  CHECK(errors[1] == "5:34: spec.reserved.memory.fixed: must not be negative");
  CHECK(errors[2] == "6:21: spec.mutations.vram: expected true or false, got string \"yes\"");
  CHECK(errors[3].rfind("8:20: spec.rules.gpu-fractionl: unknown rule \"gpu-fractionl\" (rules: ",
                        0) == 0);
  CHECK(errors[4] ==
        "8:31: spec.rules.gpu-fractionl.severity: unknown severity \"fatal\" "
        "(expected info, warning or error)");
  CHECK(errors[5] == "10:5: spec.nodeClasses[0]: missing required field \"name\"");
  CHECK(errors[6] ==
        "11:47: spec.nodeClasses[1].allocatable.cpu: invalid quantity \"lots\": a "
        "quantity must start with a number");
  CHECK(errors[7] == "12:27: spec.gpuNodes.cudaImages[0]: invalid pattern \"(\": missing ): (");
  CHECK(errors[8] == "12:36: spec.gpuNodes.cudaImages[2]: invalid pattern \"[\": missing ]: [");
  CHECK(errors[9] == "13:7: unknown field \"spce\" (did you mean \"spec\"?)");

  // One line for a caller with room for one: the first, and how many more.
  CHECK(LoadError(text) ==
        "policy.yaml:5:22: spec.reserved.memory: unknown field \"perGPU\" "
        "(did you mean \"perGpu\"?); and 9 more errors");
  CHECK(LoadError(kHeader + "spec: {gpuResources: [], spce: 1}\n") ==
        "policy.yaml:3:22: spec.gpuResources: must name at least one resource, e.g. "
        "nvidia.com/gpu; and 1 more error");
}

TEST_CASE("what makes the errors after it meaningless stops the reading there",
          "[policy][errors]") {
  // YAML that does not parse: nothing else is read.
  CHECK(AllErrors(kHeader + "spce: {}\nspec: {reserved: [}\n").size() == 1);
  // Not a policy: its other fields would be read against the wrong format.
  CHECK(AllErrors("apiVersion: v1\nkind: Pod\nspce: {}\nspec: {containers: []}\n") ==
        std::vector<std::string>{"1:13: apiVersion: expected \"gpulint.io/v1alpha1\", got \"v1\""});
  CHECK(AllErrors("kind: Pod\napiVersion: gpulint.io/v1alpha1\nspce: {}\n") ==
        std::vector<std::string>{"1:7: kind: expected \"Policy\", got \"Pod\""});
  // A value of the wrong type: nothing under it is read; its siblings are.
  CHECK(AllErrors(kHeader + "spec:\n  reserved: [{memory: {perGPU: 1}}]\n  mutations: 3\n") ==
        std::vector<std::string>{
            "4:13: spec.reserved: expected a mapping, got a sequence",
            "5:14: spec.mutations: expected a mapping, got int 3",
        });
  // A check across a GPU's fields waits until they all read: with the count
  // unreadable, replicas without sharing is not judged yet.
  CHECK(AllErrors(kHeader + "spec:\n  nodeClasses:\n"
                            "  - {name: a, gpu: {count: x, replicas: 4}}\n") ==
        std::vector<std::string>{
            "5:28: spec.nodeClasses[0].gpu.count: expected a whole number, got string \"x\""});
  CHECK(AllErrors(kHeader + "spec:\n  nodeClasses:\n"
                            "  - {name: a, gpu: {count: 1, replicas: 4}}\n") ==
        std::vector<std::string>{"5:41: spec.nodeClasses[0].gpu.replicas: more than 1 replica "
                                 "per GPU needs sharing: time-slicing or mps"});
}

}  // namespace
}  // namespace gpulint
