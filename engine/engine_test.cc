// Evaluate's own decisions, apart from any rule: the ignore annotations.
#include "engine/engine.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "engine/mutate_test_support.h"
#include "engine/policy.h"

namespace gpulint {
namespace {

// The rules that fire on the single object of `yaml`, in order.
std::vector<std::string> RulesFired(const std::string& yaml) {
  const Policy& policy = DefaultPolicy();
  Value object = mutate_testing::Yaml(yaml);
  std::vector<std::string> rules;
  for (const Finding& f : Evaluate(object, "m.yaml", policy, BuildInventory(policy, {})))
    rules.push_back(f.rule);
  return rules;
}

// A Deployment asking for half a GPU, with `object` and `pod` spliced into
// the metadata of the object and of its pod template.
std::string HalfGpu(const std::string& object, const std::string& pod) {
  return "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n" + object +
         "spec:\n  template:\n    metadata:\n      labels: {app: d}\n" + pod +
         "    spec:\n      containers:\n      - name: c\n        image: busybox\n"
         "        resources: {limits: {nvidia.com/gpu: 0.5, memory: 1Gi}}\n";
}

TEST_CASE("an ignore annotation with a reason turns a rule off", "[engine]") {
  auto fires = [](const std::vector<std::string>& rules) {
    return std::count(rules.begin(), rules.end(), "gpu-fractional");
  };
  REQUIRE(fires(RulesFired(HalfGpu("", ""))) == 1);
  // On the object, or on its pod template.
  CHECK(fires(RulesFired(HalfGpu(
            "  annotations: {ignore.gpulint.io/gpu-fractional: \"time-sliced node\"}\n", ""))) == 0);
  CHECK(fires(RulesFired(HalfGpu(
            "", "      annotations: {ignore.gpulint.io/gpu-fractional: \"time-sliced\"}\n"))) == 0);
  // No reason, a reason that is no string, another rule's key, a key that
  // only begins or ends like it: the rule still fires.
  for (const char* annotations :
       {"{ignore.gpulint.io/gpu-fractional: \"\"}", "{ignore.gpulint.io/gpu-fractional: 1}",
        "{ignore.gpulint.io/gpu-limit-missing: why}", "{ignore.gpulint.io/gpu-fractionalx: why}",
        "{xignore.gpulint.io/gpu-fractional: why}", "{ignore.gpulint.io/: why}",
        "[ignore.gpulint.io/gpu-fractional]"}) {
    INFO(annotations);
    CHECK(fires(RulesFired(HalfGpu(std::string("  annotations: ") + annotations + "\n", ""))) ==
          1);
  }
}

}  // namespace
}  // namespace gpulint
