// `gpulint policy check` and `gpulint policy schema`, in-process.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/policies.h"
#include "engine/policy/policy_schema.h"
#include "lint/cli/cli_test_util.h"
#include "tests/golden.h"

namespace gpulint {
namespace {

using testing::Result;
using testing::Run;
using testing::TempDir;

const std::string kPolicies = testing::SourceDir() + "/testdata/policies/";

TEST_CASE("policy check: one line per file, exit 1 when one is invalid", "[cli][policy]") {
  TempDir dir;
  std::string bad_rule = dir.Write("rules.yaml",
                                   "apiVersion: gpulint.io/v1alpha1\nkind: Policy\n"
                                   "spec:\n  rules:\n    foo: {severity: info}\n");
  Result r = Run({"policy", "check", kPolicies + "v100.yaml", kPolicies + "typo.yaml", bad_rule});
  CHECK(r.rc == 1);
  CHECK(r.err.empty());
  for (const char* name : {"parse-error", "gpu-limit-missing", "workload-not-checked"})
    CHECK(r.out.find(name) != std::string::npos);
  CHECK(r.out.rfind(kPolicies + "v100.yaml: ok\n" + kPolicies +
                        "typo.yaml:9:15: error: spec.reserved.memory: unknown field \"perGPU\" "
                        "(did you mean \"perGpu\"?)\n" +
                        bad_rule + ":5:10: error: spec.rules.foo: unknown rule \"foo\" (rules: ",
                    0) == 0);

  r = Run({"policy", "check", kPolicies + "v100.yaml"});
  CHECK(r.rc == 0);
  CHECK(r.out == kPolicies + "v100.yaml: ok\n");
}

// Two typos: one run says both, wherever the policy comes from.
constexpr char kTwoTypos[] =
    "apiVersion: gpulint.io/v1alpha1\nkind: Policy\nspec:\n"
    "  reserved:\n    memory: {perGPU: 8Gi}\n  rules:\n    gpu-fractional: {enable: false}\n";

TEST_CASE("a policy's every error in one run: policy check, --policy, .gpulint.yaml",
          "[cli][policy]") {
  TempDir dir;
  std::string policy = dir.Write("policy.yaml", kTwoTypos);
  const std::string kFirst =
      ":5:22: spec.reserved.memory: unknown field \"perGPU\" (did you mean \"perGpu\"?)";
  const std::string kSecond =
      ":7:30: spec.rules.gpu-fractional: unknown field \"enable\" (did you mean \"enabled\"?)";
  Result checked = Run({"policy", "check", policy});
  CHECK(checked.rc == 1);
  CHECK(checked.out == policy +
                           ":5:22: error: spec.reserved.memory: unknown field \"perGPU\" (did you "
                           "mean \"perGpu\"?)\n" +
                           policy +
                           ":7:30: error: spec.rules.gpu-fractional: unknown field \"enable\" (did "
                           "you mean \"enabled\"?)\n");

  std::string pod = dir.Write("k8s/pod.yaml", "apiVersion: v1\nkind: ConfigMap\n");
  Result forced = Run({"check", "--policy", policy, pod});
  CHECK(forced.rc == 2);
  CHECK(forced.err ==
        "gpulint: error: " + policy + kFirst + "\ngpulint: error: " + policy + kSecond + "\n");
  Result json = Run({"check", "--format", "json", "--policy", policy, pod});
  CHECK(json.rc == 2);
  CHECK(nlohmann::json::parse(json.out).at("errors").size() == 2);

  dir.Write("k8s/.gpulint.yaml", kTwoTypos);
  Result found = Run({"check", "-q", pod});
  CHECK(found.rc == 2);
  const std::string discovered = dir.path() + "/k8s/.gpulint.yaml";
  CHECK(found.err == "gpulint: error: " + discovered + kFirst + "\ngpulint: error: " + discovered +
                         kSecond + "\n");
}

TEST_CASE("policy check: the webhook's layering, stdin, unreadable files", "[cli][policy]") {
  TempDir dir;
  // Only what differs from the built-in policy: valid.
  std::string small = dir.Write("small.yaml",
                                "apiVersion: gpulint.io/v1alpha1\nkind: Policy\n"
                                "spec: {mutations: {hideGpus: false}}\n");
  Result r = Run({"policy", "check", "-"}, small);
  CHECK(r.rc == 0);
  CHECK(r.out == "<stdin>: ok\n");

  std::string empty = dir.Write("empty.yaml", "");
  r = Run({"policy", "check", empty, dir.path() + "/missing.yaml"});
  CHECK(r.rc == 2);  // a file that cannot be read outweighs an invalid one
  CHECK(r.out.rfind(empty + ": error: the policy is empty", 0) == 0);
  CHECK(r.out.find(dir.path() + "/missing.yaml: error: ") != std::string::npos);
}

TEST_CASE("policy schema: the JSON Schema, the chart's value shape, the reference",
          "[cli][policy]") {
  Result r = Run({"policy", "schema"});
  CHECK(r.rc == 0);
  CHECK(r.out == PolicyJsonSchema(PolicySchemaShape::kDocument));
  nlohmann::json schema = nlohmann::json::parse(r.out);
  CHECK(schema["$schema"] == "http://json-schema.org/draft-07/schema#");
  CHECK(schema["required"] == nlohmann::json({"apiVersion", "kind"}));

  r = Run({"policy", "schema", "--values"});
  CHECK(r.rc == 0);
  nlohmann::json values = nlohmann::json::parse(r.out);
  CHECK(values["properties"]["spec"] == schema["properties"]["spec"]);
  CHECK(values["properties"].size() == 2);

  r = Run({"policy", "schema", "--format", "markdown"});
  CHECK(r.rc == 0);
  CHECK(r.out == PolicyFieldReference());
  CHECK(r.out.find("| `spec.nodeClasses[].gpu.memoryPerGpu` | quantity > 0 | ") !=
        std::string::npos);
}

TEST_CASE("policy: usage errors exit 2", "[cli][policy]") {
  struct Case {
    std::vector<std::string> args;
    std::string err;
  };
  const Case cases[] = {
      {{"policy"},
       "gpulint: error: policy needs a subcommand: check or schema (see 'gpulint policy "
       "--help')\n"},
      {{"policy", "lint", "x.yaml"},
       "gpulint: error: unknown policy subcommand 'lint' (choose check or schema)\n"},
      {{"policy", "check"},
       "gpulint: error: policy check needs a FILE, e.g. 'gpulint policy check "
       "gpulint-policy.yaml'\n"},
      {{"policy", "check", "--values", "x.yaml"},
       "gpulint: error: policy check takes no options, only FILEs\n"},
      {{"policy", "schema", "x.yaml"}, "gpulint: error: policy schema takes no arguments\n"},
      {{"policy", "schema", "--format", "yaml"},
       "gpulint: error: --format: unknown format 'yaml' (choose json or markdown)\n"},
      {{"policy", "schema", "--format=markdown", "--values"},
       "gpulint: error: --values is a JSON Schema; the markdown reference is of the whole "
       "policy\n"},
  };
  for (const Case& c : cases) {
    INFO((c.args.size() > 1 ? c.args[1] : c.args[0]));
    Result r = Run(c.args);
    CHECK(r.rc == 2);
    CHECK(r.err == c.err);
    CHECK(r.out.empty());
  }
}

}  // namespace
}  // namespace gpulint
