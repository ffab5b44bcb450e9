// One reading of a container's VRAM annotations, for the rules and the
// mutation alike.
#include "engine/workload/vram.h"

#include <catch2/catch.hpp>
#include <string>

#include "engine/engine_test_support.h"
#include "engine/policies.h"

namespace gpulint {
namespace {

using mutate_testing::Yaml;

// The declaration for container `name` of a Pod with `annotations` and
// `containers` (flow YAML), or "-" when none applies, "invalid" when the
// annotation that decides does not parse.
std::string Declared(const std::string& annotations, const std::string& containers,
                     const std::string& name) {
  Value object = Yaml("apiVersion: v1\nkind: Pod\nmetadata: {name: p, annotations: " + annotations +
                      "}\nspec: {containers: " + containers + "}\n");
  const Policy& policy = DefaultPolicy();
  std::vector<PodInfo> pods = ExtractPods(object, policy, Inventory());
  REQUIRE(pods.size() == 1);
  for (const ContainerInfo& c : pods[0].containers) {
    if (c.name != name) continue;
    auto declared = AnnotatedVram(pods[0], c, policy, c.GpuCount(policy).Value());
    if (!declared) return "-";
    return declared->valid ? declared->key + "=" + declared->quantity.Canonical() : "invalid";
  }
  FAIL("no container " << name);
  return "";
}

constexpr const char* kGpuAndSidecar =
    "[{name: cuda, image: x, resources: {limits: {nvidia.com/gpu: 1}}}, {name: log, image: y}]";

TEST_CASE("a container's own VRAM annotation comes before the pod's", "[workload][vram]") {
  CHECK(Declared("{gpulint.io/vram: 16Gi, gpulint.io/vram.cuda: 20Gi}", kGpuAndSidecar, "cuda") ==
        "gpulint.io/vram.cuda=20Gi");
  CHECK(Declared("{gpulint.io/vram: 16Gi}", kGpuAndSidecar, "cuda") == "gpulint.io/vram=16Gi");
}

TEST_CASE("the pod's VRAM annotation stands for GPU containers only", "[workload][vram]") {
  CHECK(Declared("{gpulint.io/vram: 16Gi}", kGpuAndSidecar, "log") == "-");
  CHECK(Declared("{gpulint.io/vram.log: 1Gi}", kGpuAndSidecar, "log") == "gpulint.io/vram.log=1Gi");
  // Incident 2: the only app container of a pod that asks for no GPU.
  CHECK(Declared("{gpulint.io/vram: 24Gi}", "[{name: app, image: x}]", "app") ==
        "gpulint.io/vram=24Gi");
  CHECK(Declared("{gpulint.io/vram: 24Gi}", "[{name: a, image: x}, {name: b, image: y}]", "a") ==
        "-");
}

TEST_CASE("an invalid VRAM annotation decides, and declares nothing", "[workload][vram]") {
  CHECK(Declared("{gpulint.io/vram: 16Gi, gpulint.io/vram.cuda: 20gb}", kGpuAndSidecar, "cuda") ==
        "invalid");
  CHECK(Declared("{gpulint.io/vram: -1Gi}", kGpuAndSidecar, "cuda") == "invalid");
  CHECK(Declared("{gpulint.io/vram: 16}", kGpuAndSidecar, "cuda") == "invalid");  // a number
}

}  // namespace
}  // namespace gpulint
