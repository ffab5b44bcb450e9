// gpulint export vap's generator: the default policy's policies pinned in a
// golden file, a policy's settings carried into them, and what it refuses.
// tests/vap/run.py holds the CEL itself to gpulint check on a real API server.
#include "engine/vap/vap.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "engine/policies.h"
#include "engine/rules/rule.h"
#include "engine/vap/cel_rules.h"
#include "tests/golden.h"

namespace gpulint {
namespace {

const std::string kGolden = testing::SourceDir() + "/tests/vap/gpulint-vap-deny.yaml";

Policy Load(const std::string& spec) {
  Policy policy;
  Error error;
  INFO(spec);
  REQUIRE(
      LoadPolicyText("apiVersion: gpulint.io/v1alpha1\nkind: Policy\nmetadata: {name: t}\n"
                     "spec:\n" +
                         spec,
                     "t.yaml", &policy, &error));
  return policy;
}

std::string Export(const Policy& policy, Enforcement mode = Enforcement::kDeny) {
  VapOptions options;
  options.mode = mode;
  std::string out, error;
  REQUIRE(ExportVap(policy, options, &out, &error));
  CHECK(error.empty());
  return out;
}

// The value of a YAML line "KEY: VALUE" in the document of `yaml` that holds
// "name: NAME" (the policy or binding of that name), "" when none.
std::string ValueIn(const std::string& yaml, const std::string& name, const std::string& key) {
  size_t doc = 0;
  while (doc < yaml.size()) {
    size_t end = yaml.find("\n---\n", doc);
    if (end == std::string::npos) end = yaml.size();
    std::string text = yaml.substr(doc, end - doc);
    if (text.find("  name: " + name + "\n") != std::string::npos) {
      size_t at = text.find(key + ": ");
      if (at != std::string::npos)
        return text.substr(at + key.size() + 2, text.find('\n', at) - at - key.size() - 2);
    }
    doc = end + 5;
  }
  return "";
}

TEST_CASE("export vap: the default policy's policies are the golden file", "[vap]") {
  VapOptions options;
  options.mode = Enforcement::kDeny;
  options.source = "built-in";
  std::string out, error;
  REQUIRE(ExportVap(DefaultPolicy(), options, &out, &error));
  if (std::getenv("GPULINT_UPDATE_GOLDEN")) std::ofstream(kGolden, std::ios::binary) << out;
  INFO(
      "regenerate with GPULINT_UPDATE_GOLDEN=1 and review the diff; "
      "tests/vap/run.py proves the CEL against a real API server");
  CHECK(out == testing::ReadFile(kGolden));
}

TEST_CASE("export vap: a rule declared exported has CEL, and only such a rule", "[vap]") {
  for (const Rule* rule : AllRules()) {
    const RuleInfo& info = rule->info;
    INFO(info.name << (info.not_cel ? " declares it is not exported (RuleInfo::not_cel)"
                                    : " declares it is exported (RuleInfo::not_cel is null)"));
    CHECK(cel::HasCel(info.name) == (info.not_cel == nullptr));
    if (info.not_cel != nullptr) CHECK(std::string_view(info.not_cel).size() > 10);
    // A node's rule judges no admission request.
    if (info.scope == RuleScope::kNode) CHECK(info.not_cel != nullptr);
  }
  // And no CEL for a rule the registry does not have.
  for (std::string_view name : cel::RulesWithCel()) {
    INFO(name);
    const Rule* rule = FindRule(name);
    REQUIRE(rule != nullptr);
    CHECK(rule->info.not_cel == nullptr);
  }
  CHECK_FALSE(cel::HasCel("no-such-rule"));
}

TEST_CASE("export vap: every rule of the registry is exported or says why not", "[vap]") {
  std::vector<VapRule> rules = VapRules(DefaultPolicy());
  std::vector<const Rule*> object_rules;
  for (const Rule* rule : AllRules())
    if (rule->info.scope == RuleScope::kObject) object_rules.push_back(rule);
  REQUIRE(rules.size() == object_rules.size());
  for (size_t i = 0; i < rules.size(); ++i) {
    CHECK(rules[i].rule == object_rules[i]->info.name);
    CHECK(rules[i].cel == (object_rules[i]->info.not_cel == nullptr));
  }
  std::vector<std::string> exported;
  for (const VapRule& r : rules)
    if (r.why.empty()) exported.push_back(r.rule);
  CHECK(exported == std::vector<std::string>{"quantity-milli-memory", "quantity-cpu-units",
                                             "gpu-limit-missing", "gpu-request-limit-mismatch",
                                             "gpu-fractional", "memory-limit-missing",
                                             "gpu-visibility-bypass"});
  std::string out = Export(DefaultPolicy());
  CHECK(ValueIn(out, "gpulint-errors", "gpulint.io/rules") ==
        "'quantity-milli-memory,quantity-cpu-units,gpu-limit-missing,gpu-request-limit-mismatch,"
        "gpu-fractional,gpu-visibility-bypass'");
  // Only these report warnings.
  CHECK(ValueIn(out, "gpulint-warnings", "gpulint.io/rules") ==
        "'gpu-limit-missing,memory-limit-missing,gpu-visibility-bypass'");
}

TEST_CASE("export vap: the modes set the bindings' actions and the failure policy", "[vap]") {
  std::string audit = Export(DefaultPolicy(), Enforcement::kAudit);
  CHECK(ValueIn(audit, "gpulint-errors", "validationActions") == "[Audit]");
  CHECK(ValueIn(audit, "gpulint-warnings", "validationActions") == "[Audit]");
  CHECK(ValueIn(audit, "gpulint-errors", "failurePolicy") == "Ignore");
  std::string warn = Export(DefaultPolicy(), Enforcement::kWarn);
  CHECK(ValueIn(warn, "gpulint-errors", "validationActions") == "[Warn]");
  CHECK(ValueIn(warn, "gpulint-errors", "failurePolicy") == "Ignore");
  std::string deny = Export(DefaultPolicy(), Enforcement::kDeny);
  CHECK(ValueIn(deny, "gpulint-errors", "validationActions") == "[Deny]");
  CHECK(ValueIn(deny, "gpulint-warnings", "validationActions") == "[Warn]");
  CHECK(ValueIn(deny, "gpulint-errors", "failurePolicy") == "Fail");
  Enforcement mode;
  CHECK(ParseEnforcement("warn", &mode));
  CHECK(mode == Enforcement::kWarn);
  CHECK_FALSE(ParseEnforcement("enforce", &mode));
}

TEST_CASE("export vap: the policy's settings reach the CEL", "[vap]") {
  Policy policy = Load(
      "  gpuResources: [example.com/gpu]\n"
      "  gpuNodes: {cudaImages: ['^registry\\.example/cuda-'], taintKeys: [example.com/gpu]}\n"
      "  rules:\n"
      "    gpu-fractional: {enabled: false}\n"
      "    memory-limit-missing: {severity: error}\n"
      "    limits-missing-on-gpu-node: {enabled: true}\n"
      "  exemptions: {namespaces: [ops, kube-system], ignoreAnnotationPrefix: "
      "skip.example.com/}\n");
  std::string out = Export(policy);
  std::string defaults = Export(DefaultPolicy());
  CHECK(out != defaults);
  // Severities and disabled rules choose each policy's validations.
  CHECK(ValueIn(out, "gpulint-errors", "gpulint.io/rules") ==
        "'quantity-milli-memory,quantity-cpu-units,gpu-limit-missing,gpu-request-limit-mismatch,"
        "memory-limit-missing,gpu-visibility-bypass'");
  CHECK(ValueIn(out, "gpulint-warnings", "gpulint.io/rules") ==
        "'gpu-limit-missing,limits-missing-on-gpu-node,gpu-visibility-bypass'");
  CHECK(out.find("r_gpu_fractional") == std::string::npos);
  // GPU resources, images, taints, exemptions and the ignore prefix.
  CHECK(out.find("['example.com/gpu']") != std::string::npos);
  CHECK(defaults.find(
            "['nvidia.com/gpu', 'amd.com/gpu', 'gpu.intel.com/i915', 'gpu.intel.com/xe']") !=
        std::string::npos);
  CHECK(out.find("image.matches('^registry\\\\.example/cuda-')") != std::string::npos);
  CHECK(out.find("in ['example.com/gpu']") != std::string::npos);
  CHECK(out.find("operator: NotIn, values: ['ops', 'kube-system']") != std::string::npos);
  CHECK(defaults.find("namespaceSelector") == std::string::npos);
  CHECK(out.find("'skip.example.com/gpu-limit-missing'") != std::string::npos);
  CHECK(out.find("ignore.gpulint.io/") == std::string::npos);
}

TEST_CASE("export vap: node classes keep the rules about placement out", "[vap]") {
  Policy policy = Load(
      "  nodeClasses:\n"
      "  - name: t4\n"
      "    labels: {nvidia.com/gpu.product: Tesla-T4}\n"
      "    allocatable: {cpu: '16', memory: 64Gi, nvidia.com/gpu: '1'}\n");
  for (const VapRule& r : VapRules(policy)) {
    INFO(r.rule);
    if (r.rule == "gpu-limit-missing" || r.rule == "gpu-visibility-bypass")
      CHECK(r.why.find("node classes") != std::string::npos);
    if (r.rule == "memory-limit-missing") CHECK(r.why.empty());
  }
  std::string out = Export(policy);
  CHECK(ValueIn(out, "gpulint-errors", "gpulint.io/rules") ==
        "'quantity-milli-memory,quantity-cpu-units,gpu-request-limit-mismatch,gpu-fractional'");
  CHECK(ValueIn(out, "gpulint-warnings", "gpulint.io/rules") == "'memory-limit-missing'");
}

TEST_CASE("export vap: a workloads entry CEL cannot follow is refused, by name", "[vap]") {
  // A container outside every pod of its kind makes a pod of its own, which
  // the next container found beside it would join: order the CEL cannot see.
  Policy policy = Load(
      "  workloads:\n"
      "  - {group: example.com, kind: Fleet, containers: [spec.members.*]}\n");
  VapOptions options;
  std::string out, error;
  CHECK_FALSE(ExportVap(policy, options, &out, &error));
  CHECK(error ==
        "workloads entry {group: \"example.com\", kind: Fleet}: containers path \"spec.members.*\" "
        "lies in none of the kind's templates or podSpecs, and its pod could hold other "
        "containers of the kind; the exported policy follows such a container only when its "
        "path has no \"*\" and no other container path is beside it");
  policy = Load(
      "  workloads:\n"
      "  - {group: example.com, kind: Pipeline, containerLists: [spec.steps]}\n");
  CHECK_FALSE(ExportVap(policy, options, &out, &error));
  CHECK(error.find("Pipeline}: containerLists path \"spec.steps\" lies in none") !=
        std::string::npos);
  // A lone container with no "*" makes its pod, as NIMService's spec does.
  policy = Load(
      "  workloads:\n"
      "  - {group: example.com, kind: Server, containers: [spec.server]}\n");
  CHECK(ExportVap(policy, options, &out, &error));
}

TEST_CASE("export vap: docs/export.md says why each rule is left out", "[vap]") {
  std::string doc = testing::ReadFile(testing::SourceDir() + "/docs/export.md");
  for (const VapRule& r : VapRules(DefaultPolicy())) {
    INFO(r.rule);
    CHECK(doc.find("`" + r.rule + "`") != std::string::npos);
  }
  CHECK(doc.find("Kubernetes " + std::string(kVapMinimumKubernetes)) != std::string::npos);
}

}  // namespace
}  // namespace gpulint
