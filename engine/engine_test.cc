// Evaluate's own decisions, apart from any rule: the ignore annotations, and
// which of them the policy honours (exemptions.waiveErrors).
#include "engine/engine.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "engine/engine_test_support.h"
#include "engine/policy/policy.h"

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

// Two CUDA containers without a GPU limit, each a gpu-limit-missing finding,
// with `annotations` on the Pod.
std::vector<Finding> TwoProbes(const std::string& annotations) {
  const Policy& policy = DefaultPolicy();
  Value object = mutate_testing::Yaml(
      "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  annotations: " + annotations +
      "\nspec:\n  containers:\n"
      "  - {name: probe, image: 'nvidia/cuda:12.4.1-base-ubuntu22.04'}\n"
      "  - {name: debug, image: 'nvidia/cuda:12.4.1-base-ubuntu22.04'}\n");
  std::vector<Finding> out;
  for (Finding& f : Evaluate(object, "m.yaml", policy, BuildInventory(policy, {})))
    if (f.rule == "gpu-limit-missing") out.push_back(std::move(f));
  return out;
}

TEST_CASE("a per-container ignore annotation silences one container's findings", "[engine]") {
  std::vector<Finding> both = TwoProbes("{}");
  REQUIRE(both.size() == 2);
  CHECK(both[0].container == "probe");
  CHECK(both[1].container == "debug");
  std::vector<Finding> one = TwoProbes("{ignore.gpulint.io/gpu-limit-missing.probe: \"on purpose\"}");
  REQUIRE(one.size() == 1);
  CHECK(one[0].container == "debug");
  CHECK(TwoProbes("{ignore.gpulint.io/gpu-limit-missing.probe: on purpose, "
                  "ignore.gpulint.io/gpu-limit-missing.debug: also}")
            .empty());
  // No reason, another rule, a container the pod does not have, nothing
  // after the dot: nothing silenced.
  for (const char* annotations :
       {"{ignore.gpulint.io/gpu-limit-missing.probe: \"\"}",
        "{ignore.gpulint.io/gpu-limit-missing.probe: \"  \"}",
        "{ignore.gpulint.io/gpu-fractional.probe: why}",
        "{ignore.gpulint.io/gpu-limit-missing.prob: why}",
        "{ignore.gpulint.io/gpu-limit-missing.: why}"}) {
    INFO(annotations);
    CHECK(TwoProbes(annotations).size() == 2);
  }
}

TEST_CASE("a finding knows its container by its path", "[engine]") {
  const Policy& policy = DefaultPolicy();
  // Eleven containers, so that containers[1] is not taken for containers[10].
  std::string yaml = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n";
  for (int i = 0; i <= 10; ++i)
    yaml += "  - {name: c" + std::to_string(i) + ", image: busybox" +
            (i == 10 ? ", resources: {limits: {nvidia.com/gpu: 0.5}}" : "") + "}\n";
  Value object = mutate_testing::Yaml(yaml);
  bool seen = false;
  for (const Finding& f : Evaluate(object, "m.yaml", policy, BuildInventory(policy, {}))) {
    INFO(f.rule << " at " << f.path);
    if (f.path.rfind("spec.containers[10].", 0) == 0) {
      CHECK(f.container == "c10");
      seen = true;
    }
  }
  CHECK(seen);
}

// A Pod in `ns` ("" for none) with `annotations`: a 0.5 GPU limit
// (gpu-fractional, an error) and a 500m memory request beside it
// (quantity-milli-memory is an error too; memory-limit-missing a warning).
struct Judged {
  std::vector<Finding> findings;
  std::vector<Waiver> waivers;
  size_t Count(const std::string& rule) const {
    return std::count_if(findings.begin(), findings.end(),
                         [&](const Finding& f) { return f.rule == rule; });
  }
};
Judged Judge(const Policy& policy, const std::string& ns, const std::string& annotations) {
  Value object = mutate_testing::Yaml(
      "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n" +
      (ns.empty() ? std::string() : "  namespace: " + ns + "\n") + "  annotations: " + annotations +
      "\nspec:\n  containers:\n  - name: c\n    image: busybox\n"
      "    resources: {limits: {nvidia.com/gpu: 0.5}}\n");
  Judged out;
  EvaluateOptions options;
  options.waivers = &out.waivers;
  out.findings = Evaluate(object, "m.yaml", policy, BuildInventory(policy, {}), options);
  return out;
}

TEST_CASE("ignore annotations waive errors only where the policy lets them", "[engine][waiver]") {
  const std::string waive =
      "{ignore.gpulint.io/gpu-fractional: \"time-sliced node\", "
      "ignore.gpulint.io/memory-limit-missing.c: \"a probe\"}";
  // The default waives no error on an object in a namespace: the finding
  // stays, says why, and the waiver is reported as refused. A warning is
  // waived everywhere.
  Judged tenant = Judge(DefaultPolicy(), "team-a", waive);
  REQUIRE(tenant.Count("gpu-fractional") == 1);
  CHECK(tenant.Count("memory-limit-missing") == 0);
  const Finding& kept = *std::find_if(tenant.findings.begin(), tenant.findings.end(),
                                      [](const Finding& f) { return f.rule == "gpu-fractional"; });
  CHECK(kept.message.find(" (ignore.gpulint.io/gpu-fractional waives no error in namespace "
                          "\"team-a\": the policy's exemptions.waiveErrors does not list it)") !=
        std::string::npos);
  REQUIRE(tenant.waivers.size() == 2);
  const Waiver* refused = nullptr;
  const Waiver* honoured = nullptr;
  for (const Waiver& w : tenant.waivers) (w.honoured ? honoured : refused) = &w;
  REQUIRE(refused);
  REQUIRE(honoured);
  CHECK(refused->rule == "gpu-fractional");
  CHECK(refused->annotation == "ignore.gpulint.io/gpu-fractional");
  CHECK(refused->reason == "time-sliced node");
  CHECK(refused->container.empty());
  CHECK(refused->severity == Severity::kError);
  CHECK(refused->findings == 1);
  CHECK(honoured->rule == "memory-limit-missing");
  CHECK(honoured->container == "c");
  CHECK(honoured->severity == Severity::kWarning);

  // A manifest that names no namespace: the error is waived (it lands
  // nowhere yet), and reported as waived.
  Judged manifest = Judge(DefaultPolicy(), "", waive);
  CHECK(manifest.Count("gpu-fractional") == 0);
  CHECK(std::all_of(manifest.waivers.begin(), manifest.waivers.end(),
                    [](const Waiver& w) { return w.honoured; }));

  // Granted by namespace, by rule, or for all.
  for (const char* spec : {"  exemptions: {waiveErrors: {namespaces: [team-b, team-a]}}\n",
                           "  exemptions: {waiveErrors: {rules: [gpu-fractional]}}\n",
                           "  exemptions: {waiveErrors: {namespaces: ['*']}}\n",
                           "  exemptions: {waiveErrors: {rules: ['*']}}\n"}) {
    INFO(spec);
    Judged granted = Judge(mutate_testing::PolicyWith(spec), "team-a", waive);
    CHECK(granted.Count("gpu-fractional") == 0);
    CHECK(granted.waivers.size() == 2);
    CHECK(std::all_of(granted.waivers.begin(), granted.waivers.end(),
                      [](const Waiver& w) { return w.honoured; }));
  }
  // Granted elsewhere only.
  for (const char* spec : {"  exemptions: {waiveErrors: {namespaces: [team-b]}}\n",
                           "  exemptions: {waiveErrors: {rules: [quantity-milli-memory]}}\n"}) {
    INFO(spec);
    CHECK(Judge(mutate_testing::PolicyWith(spec), "team-a", waive).Count("gpu-fractional") == 1);
  }
  // No annotation: nothing to report.
  CHECK(Judge(DefaultPolicy(), "team-a", "{}").waivers.empty());
}

}  // namespace
}  // namespace gpulint
