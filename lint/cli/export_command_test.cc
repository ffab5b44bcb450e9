// `gpulint export vap`, in-process: the policy it reads, its options and
// its usage errors.
#include <catch2/catch.hpp>
#include <string>

#include "engine/policies.h"
#include "engine/vap/vap.h"
#include "lint/cli/cli_test_util.h"
#include "lint/input/policy_discovery.h"
#include "tests/golden.h"

namespace gpulint {
namespace {

using testing::EnvVar;
using testing::Result;
using testing::Run;
using testing::TempDir;

std::string Exported(const Policy& policy, Enforcement mode, const std::string& source) {
  VapOptions options;
  options.mode = mode;
  options.source = source;
  std::string out, error;
  REQUIRE(ExportVap(policy, options, &out, &error));
  return out;
}

TEST_CASE("export vap: the built-in policy, audit mode by default", "[cli][export]") {
  Result r = Run({"export", "vap"});
  CHECK(r.rc == 0);
  CHECK(r.err.empty());
  CHECK(r.out == Exported(DefaultPolicy(), Enforcement::kAudit, "built-in"));
  r = Run({"export", "vap", "--mode=deny", "--name", "gpu-rules"});
  CHECK(r.rc == 0);
  CHECK(r.out.find("  name: gpu-rules-errors\n") != std::string::npos);
  CHECK(r.out.find("  policyName: gpu-rules-warnings\n") != std::string::npos);
  CHECK(r.out.find("validationActions: [Deny]") != std::string::npos);
}

TEST_CASE("export vap: --policy, else $GPULINT_POLICY, as check reads them", "[cli][export]") {
  TempDir dir;
  std::string policy =
      dir.Write("p.yaml",
                "apiVersion: gpulint.io/v1alpha1\nkind: Policy\n"
                "metadata: {name: team}\nspec: {gpuResources: [example.com/gpu]}\n");
  Result r = Run({"export", "vap", "--policy", policy});
  CHECK(r.rc == 0);
  CHECK(r.out.find("from the policy " + policy + " (\"team\")") != std::string::npos);
  CHECK(r.out.find("['example.com/gpu']") != std::string::npos);
  {
    EnvVar env(kPolicyEnvVar, policy);
    CHECK(Run({"export", "vap"}).out == r.out);
  }
  std::string typo = dir.Write("typo.yaml",
                               "apiVersion: gpulint.io/v1alpha1\nkind: Policy\n"
                               "spec: {gpuResource: [example.com/gpu]}\n");
  r = Run({"export", "vap", "--policy", typo});
  CHECK(r.rc == 2);
  CHECK(r.out.empty());
  CHECK(r.err ==
        "gpulint: error: " + typo +
            ":3:21: spec: unknown field \"gpuResource\" (did you mean \"gpuResources\"?)\n");
}

TEST_CASE("export vap --list: every rule, exported or why not", "[cli][export]") {
  Result r = Run({"export", "vap", "--list"});
  CHECK(r.rc == 0);
  CHECK(r.out.find("gpu-limit-missing: exported\n") != std::string::npos);
  CHECK(r.out.find("limits-missing-on-gpu-node: not exported: disabled by the policy\n") !=
        std::string::npos);
  CHECK(r.out.find("exceeds-allocatable: not exported: it judges a pod against the nodes") !=
        std::string::npos);
}

TEST_CASE("export: usage errors", "[cli][export]") {
  Result r = Run({"export"});
  CHECK(r.rc == 2);
  CHECK(r.err == "gpulint: error: export needs a format: vap (see 'gpulint export --help')\n");
  r = Run({"export", "kyverno"});
  CHECK(r.rc == 2);
  CHECK(r.err == "gpulint: error: unknown export format 'kyverno' (choose vap)\n");
  r = Run({"export", "vap", "--mode", "enforce"});
  CHECK(r.rc == 2);
  CHECK(r.err == "gpulint: error: --mode: unknown mode 'enforce' (choose audit, warn or deny)\n");
  r = Run({"export", "vap", "extra"});
  CHECK(r.rc == 2);
  CHECK(r.err == "gpulint: error: export vap takes no arguments, only options\n");
  r = Run({"export", "vap", "--name="});
  CHECK(r.rc == 2);
  CHECK(r.err == "gpulint: error: --name: the name prefix cannot be empty\n");
  r = Run({"export", "--help"});
  CHECK(r.rc == 0);
  CHECK(r.out.rfind("Usage: gpulint export vap", 0) == 0);
}

}  // namespace
}  // namespace gpulint
