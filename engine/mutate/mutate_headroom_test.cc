// The headroom mutation: memory per GPU added to a GPU container's request and
// limit, and recorded in an annotation so validation reads the pod as written.
#include "engine/mutate/mutate.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "engine/engine_test_support.h"
#include "engine/policies.h"

namespace gpulint {
namespace {

using namespace mutate_testing;  // NOLINT: test helpers
std::string HeadroomAnnotationOp(std::string_view recorded) {
  std::string escaped;
  for (char ch : recorded) escaped += ch == '"' ? std::string("\\\"") : std::string(1, ch);
  return R"({"op":"add","path":"/metadata/annotations","value":{"gpulint.io/headroom-added":")" +
         escaped + R"("}})";
}

TEST_CASE("headroom: the request and the limit that are set grow by perGpu × GPUs",
          "[mutate][headroom]") {
  struct Case {
    const char* resources;
    std::vector<std::string> ops;  // without the annotation op
    const char* recorded;          // "" when nothing is added
  };
  const std::string req =
      R"({"op":"replace","path":"/spec/containers/0/resources/requests/memory","value":)";
  const std::string lim =
      R"({"op":"replace","path":"/spec/containers/0/resources/limits/memory","value":)";
  const std::vector<Case> cases = {
      // Binary stays binary, exactly.
      {"{requests: {memory: 500Gi}, limits: {memory: 500Gi, nvidia.com/gpu: 2}}",
       {req + "\"502Gi\"}", lim + "\"502Gi\"}"},
       R"({"cuda":{"added":"2Gi","requests":"500Gi","limits":"500Gi"}})"},
      {"{requests: {memory: 1Ti}, limits: {memory: 1Ti, nvidia.com/gpu: 8}}",
       {req + "\"1032Gi\"}", lim + "\"1032Gi\"}"},
       R"({"cuda":{"added":"8Gi","requests":"1Ti","limits":"1Ti"}})"},
      {"{requests: {memory: 1.5Gi}, limits: {nvidia.com/gpu: 1}}",
       {req + "\"2560Mi\"}"},
       R"({"cuda":{"added":"1Gi","requests":"1.5Gi"}})"},
      // Decimal stays decimal: 440G + 2Gi = 442147483648 bytes.
      {"{requests: {memory: 440G}, limits: {memory: 440G, nvidia.com/gpu: 2}}",
       {req + "\"442147483648\"}", lim + "\"442147483648\"}"},
       R"({"cuda":{"added":"2Gi","requests":"440G","limits":"440G"}})"},
      {"{requests: {memory: 64000000000}, limits: {nvidia.com/gpu: 1}}",
       {req + "\"65073741824\"}"},
       R"({"cuda":{"added":"1Gi","requests":"64000000000"}})"},
      // A limit alone: the API server will default the request to the new limit.
      {"{limits: {memory: 20Gi, nvidia.com/gpu: 1}}", {lim + "\"21Gi\"}"},
       R"({"cuda":{"added":"1Gi","limits":"20Gi"}})"},
      // Neither: memory-limit-missing reports it; nothing recorded.
      {"{limits: {nvidia.com/gpu: 1}}", {}, ""},
      {"{requests: {cpu: 1}, limits: {cpu: 2, nvidia.com/gpu: 1}}", {}, ""},
      // A value Kubernetes refuses: quantity-invalid reports it.
      {"{requests: {memory: 40g}, limits: {memory: 40Gi, nvidia.com/gpu: 1}}", {}, ""},
      {"{requests: {memory: 40Gi}, limits: {memory: 40GB, nvidia.com/gpu: 1}}", {}, ""},
      // GPUs that cannot be counted are not mutated (gpu-fractional, quantity-invalid).
      {"{requests: {memory: 1Gi}, limits: {memory: 1Gi, nvidia.com/gpu: 500m}}", {}, ""},
      {"{requests: {memory: 1Gi}, limits: {memory: 1Gi, nvidia.com/gpu: two}}", {}, ""},
      {"{requests: {memory: 1Gi, nvidia.com/gpu: x}, limits: {memory: 1Gi, nvidia.com/gpu: 1}}",
       {},
       ""},
      // No GPU limit, no GPU container.
      {"{requests: {memory: 1Gi, nvidia.com/gpu: 1}}", {}, ""},
  };
  for (const Case& c : cases) {
    INFO(c.resources);
    std::string expected = "[";
    for (const std::string& op : c.ops) expected += op + ",";
    if (*c.recorded) expected += HeadroomAnnotationOp(c.recorded) + ",";
    if (expected.size() > 1) expected.pop_back();
    expected += "]";
    CHECK(PatchFor(GpuPod(c.resources)) == expected);
  }
}

TEST_CASE("headroom: a pod that carries the annotation gets none", "[mutate][headroom]") {
  const char* resources = "{requests: {memory: 500Gi}, limits: {memory: 500Gi, nvidia.com/gpu: 2}}";
  CHECK(PatchFor(GpuPod(resources, "", "{gpulint.io/headroom-added: \"{}\"}")) == "[]");
  CHECK(PatchFor(GpuPod(resources, "", "{gpulint.io/headroom-added: \"\"}")) == "[]");
  // The policy names the annotation.
  Policy p = PolicyWith("  mutations: {headroomAnnotation: example.com/added}\n");
  CHECK(PatchFor(Yaml(GpuPod(resources, "", "{example.com/added: x}")), p, NoNodes()) == "[]");
  CHECK(
      PatchFor(Yaml(GpuPod(resources, "", "{gpulint.io/headroom-added: x}")), p, NoNodes()) ==
      R"([{"op":"replace","path":"/spec/containers/0/resources/requests/memory","value":"502Gi"},)"
      R"({"op":"replace","path":"/spec/containers/0/resources/limits/memory","value":"502Gi"},)"
      R"({"op":"add","path":"/metadata/annotations/example.com~1added",)"
      R"("value":"{\"cuda\":{\"added\":\"2Gi\",\"requests\":\"500Gi\",\"limits\":\"500Gi\"}}"}])");
}

TEST_CASE("headroom: none when the policy keeps no memory per GPU", "[mutate][headroom]") {
  Policy p = PolicyWith("  reserved: {memory: {fixed: 1Gi}}\n");
  CHECK(
      PatchFor(Yaml(GpuPod("{requests: {memory: 1Gi}, limits: {memory: 1Gi, nvidia.com/gpu: 1}}")),
               p, NoNodes()) == "[]");
}

TEST_CASE("headroom: the annotation is created where the template keeps its metadata",
          "[mutate][headroom]") {
  const std::string containers = R"(
      containers:
      - name: train
        image: x
        resources: {limits: {memory: 10Gi, nvidia.com/gpu: 1}}
)";
  const std::string limit =
      R"({"op":"replace","path":"/spec/template/spec/containers/0/resources/limits/memory","value":"11Gi"},)";
  const std::string value = R"("{\"train\":{\"added\":\"1Gi\",\"limits\":\"10Gi\"}}")";
  // No metadata at all.
  CHECK(PatchFor("apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  template:\n"
                 "    spec:" +
                 containers) ==
        "[" + limit + R"({"op":"add","path":"/spec/template/metadata","value":)" +
            R"({"annotations":{"gpulint.io/headroom-added":)" + value + "}}}]");
  // Metadata without annotations.
  CHECK(PatchFor("apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  template:\n"
                 "    metadata: {labels: {a: b}}\n    spec:" +
                 containers) ==
        "[" + limit + R"({"op":"add","path":"/spec/template/metadata/annotations","value":)" +
            R"({"gpulint.io/headroom-added":)" + value + "}}]");
  // Annotations already there.
  CHECK(
      PatchFor("apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  template:\n"
               "    metadata: {annotations: {a: b}}\n    spec:" +
               containers) ==
      "[" + limit +
          R"({"op":"add","path":"/spec/template/metadata/annotations/gpulint.io~1headroom-added","value":)" +
          value + "}]");
}

TEST_CASE("headroom is recorded per container, init containers included, no GPU, no headroom",
          "[mutate][headroom][hide]") {
  std::string pod = R"(apiVersion: v1
kind: Pod
metadata: {name: p, annotations: {team: ml}}
spec:
  initContainers:
  - name: warmup
    image: x
    resources: {requests: {memory: 1Gi}, limits: {nvidia.com/gpu: 1}}
  containers:
  - name: trainer
    image: x
    resources: {requests: {memory: 10Gi}, limits: {memory: 10Gi, nvidia.com/gpu: 2}}
  - name: metrics
    image: busybox
    resources: {requests: {memory: 64Mi}, limits: {memory: 64Mi}}
)";
  CHECK(
      PatchFor(pod) ==
      R"([{"op":"replace","path":"/spec/initContainers/0/resources/requests/memory","value":"2Gi"},)"
      R"({"op":"replace","path":"/spec/containers/0/resources/requests/memory","value":"12Gi"},)"
      R"({"op":"replace","path":"/spec/containers/0/resources/limits/memory","value":"12Gi"},)"
      R"({"op":"add","path":"/spec/containers/1/env","value":[{"name":"NVIDIA_VISIBLE_DEVICES","value":"void"}]},)"
      R"({"op":"add","path":"/metadata/annotations/gpulint.io~1headroom-added",)"
      R"("value":"{\"warmup\":{\"added\":\"1Gi\",\"requests\":\"1Gi\"},)"
      R"(\"trainer\":{\"added\":\"2Gi\",\"requests\":\"10Gi\",\"limits\":\"10Gi\"}}"}])");
}

}  // namespace
}  // namespace gpulint
