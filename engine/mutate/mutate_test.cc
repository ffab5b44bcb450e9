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
TEST_CASE("VRAM: the container's annotation, else the pod's, with a CUDA context per GPU",
          "[mutate][vram]") {
  std::string pod = R"(apiVersion: v1
kind: Pod
metadata:
  name: p
  annotations: {gpulint.io/vram: "12000000000", gpulint.io/vram.b: 20Gi}
spec:
  containers:
  - name: a
    image: x
    resources: {limits: {nvidia.com/gpu: 1}}
  - name: b
    image: x
    resources: {limits: {nvidia.com/gpu: 2}, requests: {nvidia.com/gpu: 2}}
)";
  std::string expected =
      // 12G and one 621Mi context (vram.contextPerGpu); 20Gi and two.
      R"([{"op":"add","path":"/spec/containers/0/resources/requests","value":{"gpulint.io/vram":"12651165696"}},)"
      R"({"op":"add","path":"/spec/containers/0/resources/limits/gpulint.io~1vram","value":"12651165696"},)"
      R"({"op":"add","path":"/spec/containers/1/resources/requests/gpulint.io~1vram","value":"21722Mi"},)"
      R"({"op":"add","path":"/spec/containers/1/resources/limits/gpulint.io~1vram","value":"21722Mi"}])";
  // VRAM is requested only where nodes advertise it (testdata/nodes/incidents.yaml
  // does): with no node inventory the request could leave the pod Pending.
  CHECK(PatchFor(pod) == "[]");
  // An annotation wins over what the nodes would give.
  CHECK(PatchFor(pod, IncidentNodes()) == expected);
}

TEST_CASE("VRAM: nothing to go on, nothing added", "[mutate][vram]") {
  // No annotation and no node inventory.
  CHECK(PatchFor(GpuPod("{limits: {nvidia.com/gpu: 1}}")) == "[]");
  // Already declared, in limits (requests default to it) or in both.
  CHECK(PatchFor(GpuPod("{limits: {nvidia.com/gpu: 1, gpulint.io/vram: 4Gi}}", "",
                        "{gpulint.io/vram: 8Gi}"),
                 IncidentNodes()) == "[]");
  CHECK(PatchFor(GpuPod("{requests: {gpulint.io/vram: 4Gi}, limits: {nvidia.com/gpu: 1, "
                        "gpulint.io/vram: 4Gi}}"),
                 IncidentNodes()) == "[]");
  // A container annotation that does not parse stops there: no fallback to the
  // pod's annotation or the nodes (quantity-invalid reports the typo).
  CHECK(PatchFor(GpuPod("{limits: {nvidia.com/gpu: 1}}", "",
                        "{gpulint.io/vram.cuda: 12GB, gpulint.io/vram: 8Gi}"),
                 IncidentNodes()) == "[]");
  CHECK(PatchFor(GpuPod("{limits: {nvidia.com/gpu: 1}}", "", "{gpulint.io/vram: \"-1Gi\"}"),
                 IncidentNodes()) == "[]");
  // No GPU and no node inventory: nothing.
  CHECK(PatchFor(GpuPod("{limits: {cpu: 1}}", "", "{gpulint.io/vram: 8Gi}")) == "[]");
}

TEST_CASE("VRAM: only toward nodes that advertise it", "[mutate][vram][nodes]") {
  // The same nodes, one without gpulint.io/vram in its allocatable: no VRAM
  // request, or the pod could land nowhere else than the nodes that have it.
  std::vector<NodeClass> nodes =
      testing::LoadNodes(testing::SourceDir() + "/testdata/nodes/incidents.yaml");
  for (NodeClass& n : nodes)
    if (n.name == "rtx8000-node") n.allocatable.erase("gpulint.io/vram");
  Inventory unadvertised = BuildInventory(DefaultPolicy(), nodes);
  std::string rtx = GpuPod("{limits: {nvidia.com/gpu: 1}}", "  nodeSelector: {nvidia.com/gpu.product: Quadro-RTX-8000}\n");
  CHECK(PatchFor(rtx, IncidentNodes()) == VramPatch("48536Mi"));
  CHECK(PatchFor(rtx, unadvertised) == "[]");
  // More than any candidate advertises: vram-exceeds-gpu denies it; the
  // mutation does not make it unschedulable on top.
  CHECK(PatchFor(GpuPod("{limits: {nvidia.com/gpu: 1}}", "  nodeSelector: {nvidia.com/gpu.product: Quadro-RTX-8000}\n",
                        "{gpulint.io/vram: 60Gi}"),
                 IncidentNodes()) == "[]");
}

TEST_CASE("VRAM: a pod that declares VRAM but asks for no GPU (incident 2 as it happened)",
          "[mutate][vram][nodes]") {
  // Its one app container gets the request where nodes advertise VRAM, so the
  // fifth 12 GB pod on a 48 GB card stays Pending instead of crashing.
  std::string pod = GpuPod("{limits: {cpu: 1, memory: 2G}}", "  nodeSelector: {nvidia.com/gpu.product: Quadro-RTX-8000}\n",
                           "{gpulint.io/vram: 12G}");
  std::string patch = PatchFor(pod, IncidentNodes());
  CHECK(patch.find(R"("path":"/spec/containers/0/resources/requests","value":{"gpulint.io/vram":"12G"})") !=
        std::string::npos);
  CHECK(patch.find(R"("path":"/spec/containers/0/resources/limits/gpulint.io~1vram","value":"12G")") !=
        std::string::npos);
  // No nodes known to advertise it: no VRAM; it is hidden from GPUs all the same.
  CHECK(PatchFor(pod).find("vram") == std::string::npos);
  // Two app containers: which one uses the GPU is not known; nothing added.
  std::string two = R"(apiVersion: v1
kind: Pod
metadata: {name: p, annotations: {gpulint.io/vram: 12G}}
spec:
  nodeSelector: {nvidia.com/gpu.product: Quadro-RTX-8000}
  containers:
  - {name: a, image: x}
  - {name: b, image: y}
)";
  CHECK(PatchFor(two, IncidentNodes()).find("vram") == std::string::npos);
}

// Each GPU gives pods its memory.total less the 616Mi the driver reserves
// (vram.driverReservedPerGpu): 32152Mi of a V100's 32Gi, 48536Mi of the RTX
// 8000's 48Gi, 14744Mi of a T4's 15Gi.
TEST_CASE("VRAM from the node inventory: the smallest candidate that can hold the pod",
          "[mutate][vram][nodes]") {
  const std::string tolerate =
      "  tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]\n";
  struct Case {
    std::string what;
    std::string spec_extra;
    int gpus;
    std::string vram;  // "" for no patch
  };
  const std::vector<Case> cases = {
      {"V100 only: 2 × 32152Mi", "  nodeSelector: {gpus: \"true\"}\n" + tolerate, 2, "64304Mi"},
      {"V100 only: 4 × 32152Mi", "  nodeSelector: {gpus: \"true\"}\n" + tolerate, 4, "128608Mi"},
      {"RTX 8000: 48536Mi", "  nodeSelector: {nvidia.com/gpu.product: Quadro-RTX-8000}\n", 1,
       "48536Mi"},
      {"MPS: one replica is 14744Mi / 10, rounded down to a byte",
       "  nodeSelector: {nvidia.com/mps.capable: \"true\"}\n", 1, "1546020454"},
      {"MPS: 3 replicas", "  nodeSelector: {nvidia.com/mps.capable: \"true\"}\n", 3, "4638061362"},
      {"MPS: all 10 replicas are the whole card, but for the rounding",
       "  nodeSelector: {nvidia.com/mps.capable: \"true\"}\n", 10, "15460204540"},
      {"MPS: 11 replicas fit no node", "  nodeSelector: {nvidia.com/mps.capable: \"true\"}\n", 11,
       ""},
      {"no placement: RTX 8000 or an MPS replica, the smaller", "", 1, "1546020454"},
      {"V100 or T4, 2 GPUs: the single-GPU T4 cannot hold it",
       "  affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
       "{nodeSelectorTerms: [{matchExpressions: [{key: nvidia.com/gpu.product, operator: In, "
       "values: [Tesla-V100-SXM2-32GB, Tesla-T4]}]}]}}}\n" +
           tolerate,
       2, "64304Mi"},
      {"V100 or T4, 1 GPU: the T4's 14744Mi",
       "  affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
       "{nodeSelectorTerms: [{matchExpressions: [{key: nvidia.com/gpu.product, operator: In, "
       "values: [Tesla-V100-SXM2-32GB, Tesla-T4]}]}]}}}\n" +
           tolerate,
       1, "14744Mi"},
      {"CPU nodes only", "  nodeSelector: {node-role: cpu}\n", 1, ""},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    std::string pod =
        GpuPod("{limits: {nvidia.com/gpu: " + std::to_string(c.gpus) + "}}", c.spec_extra);
    CHECK(PatchFor(pod, IncidentNodes()) == (c.vram.empty() ? "[]" : VramPatch(c.vram)));
    CHECK(PatchFor(pod) == "[]");  // without nodes, nothing is known
  }
}

TEST_CASE("VRAM from policy node classes: their unit system, shares rounded down to a byte",
          "[mutate][vram][nodes]") {
  // With no driver reserve, to keep to the units; the reserve below.
  Policy policy = PolicyWith(R"(  vram: {driverReservedPerGpu: "0"}
  nodeClasses:
  - name: l4-2x
    labels: {accel: l4}
    allocatable: {nvidia.com/gpu: 2, gpulint.io/vram: 48G}
    gpu: {count: 2, memoryPerGpu: 24G}
  - name: small-shared
    labels: {accel: small}
    allocatable: {nvidia.com/gpu: 3, gpulint.io/vram: 2G}
    gpu: {count: 1, memoryPerGpu: 2G, sharing: time-slicing, replicas: 3}
)");
  Inventory inventory = BuildInventory(policy, {});
  auto patch = [&](const char* accel, int gpus) {
    return PatchFor(Yaml(GpuPod("{limits: {nvidia.com/gpu: " + std::to_string(gpus) + "}}",
                                std::string("  nodeSelector: {accel: ") + accel + "}\n")),
                    policy, inventory);
  };
  CHECK(patch("l4", 2) == VramPatch("48G"));
  // A replica is 2G / 3 = 666666666 bytes (rounded down); two are 1333333332,
  // never more than the card has.
  CHECK(patch("small", 1) == VramPatch("666666666"));
  CHECK(patch("small", 2) == VramPatch("1333333332"));
  CHECK(patch("small", 4) == "[]");
  // A reserve in decimal units keeps the class's decimal units: 2 × (24G - 1G).
  Policy reserving = PolicyWith(R"(  vram: {driverReservedPerGpu: 1G}
  nodeClasses:
  - name: l4-2x
    labels: {accel: l4}
    allocatable: {nvidia.com/gpu: 2, gpulint.io/vram: 46G}
    gpu: {count: 2, memoryPerGpu: 24G}
)");
  CHECK(PatchFor(Yaml(GpuPod("{limits: {nvidia.com/gpu: 2}}", "  nodeSelector: {accel: l4}\n")),
                 reserving, BuildInventory(reserving, {})) == VramPatch("46G"));
}

// On a unified-memory GPU the VRAM is the node's memory: a guess would take a
// whole GPU's of it and hide the missing declaration (memory-limit-missing's
// error); what the pod declares is still added.
TEST_CASE("VRAM: nothing guessed toward a unified-memory GPU, a declaration still counts",
          "[mutate][vram][nodes]") {
  Policy policy = PolicyWith(R"(  nodeClasses:
  - name: gh200
    labels: {accel: gh200}
    allocatable: {nvidia.com/gpu: 1, gpulint.io/vram: 97255Mi}
    gpu: {count: 1, memoryPerGpu: 97871Mi, unifiedMemory: true}
  - name: h200
    labels: {accel: h200}
    allocatable: {nvidia.com/gpu: 1, gpulint.io/vram: 143155Mi}
    gpu: {count: 1, memoryPerGpu: 143771Mi}
)");
  Inventory inventory = BuildInventory(policy, {});
  auto patch = [&](const std::string& placement, const std::string& annotations) {
    return PatchFor(Yaml(GpuPod("{limits: {nvidia.com/gpu: 1}}", placement, annotations)), policy,
                    inventory);
  };
  CHECK(patch("  nodeSelector: {accel: h200}\n", "") == VramPatch("143155Mi"));
  CHECK(patch("  nodeSelector: {accel: gh200}\n", "") == "[]");
  CHECK(patch("", "") == "[]");  // either: one of them is unified
  CHECK(patch("  nodeSelector: {accel: gh200}\n", "{gpulint.io/vram: 64Gi}") ==
        VramPatch("66157Mi"));  // 64Gi and a 621Mi context
}

TEST_CASE("each mutation is turned off in the policy", "[mutate][policy]") {
  std::string pod = R"(apiVersion: v1
kind: Pod
metadata: {name: p, annotations: {gpulint.io/vram: 12Gi}}
spec:
  containers:
  - name: cuda
    image: x
    resources: {requests: {memory: 1Gi}, limits: {memory: 1Gi, nvidia.com/gpu: 1}}
  - {name: side, image: busybox}
)";
  const std::string vram =
      R"({"op":"add","path":"/spec/containers/0/resources/requests/gpulint.io~1vram","value":"12909Mi"},)"
      R"({"op":"add","path":"/spec/containers/0/resources/limits/gpulint.io~1vram","value":"12909Mi"},)";
  const std::string headroom =
      R"({"op":"replace","path":"/spec/containers/0/resources/requests/memory","value":"2Gi"},)"
      R"({"op":"replace","path":"/spec/containers/0/resources/limits/memory","value":"2Gi"},)";
  const std::string hide =
      R"({"op":"add","path":"/spec/containers/1/env","value":[)" + std::string(kVoid) + "]},";
  const std::string recorded =
      R"({"op":"add","path":"/metadata/annotations/gpulint.io~1headroom-added",)"
      R"("value":"{\"cuda\":{\"added\":\"1Gi\",\"requests\":\"1Gi\",\"limits\":\"1Gi\"}}"},)";
  auto patch = [](std::string ops) {
    if (!ops.empty()) ops.pop_back();
    return "[" + ops + "]";
  };
  // With nodes that advertise VRAM (the annotation is requested only there),
  // 12Gi and a 621Mi CUDA context.
  // VRAM and headroom edits to one container's lists come in one group.
  CHECK(
      PatchFor(pod, IncidentNodes()) ==
      patch(
          R"({"op":"add","path":"/spec/containers/0/resources/requests/gpulint.io~1vram","value":"12909Mi"},)"
          R"({"op":"replace","path":"/spec/containers/0/resources/requests/memory","value":"2Gi"},)"
          R"({"op":"add","path":"/spec/containers/0/resources/limits/gpulint.io~1vram","value":"12909Mi"},)"
          R"({"op":"replace","path":"/spec/containers/0/resources/limits/memory","value":"2Gi"},)" +
          hide + recorded));
  CHECK(PatchFor(Yaml(pod), PolicyWith("  mutations: {vram: false}\n"), IncidentNodes()) ==
        patch(headroom + hide + recorded));
  CHECK(PatchFor(Yaml(pod), PolicyWith("  mutations: {headroom: false}\n"), IncidentNodes()) ==
        patch(vram + hide));
  CHECK(
      PatchFor(Yaml(pod), PolicyWith("  mutations: {hideGpus: false}\n"), IncidentNodes()) ==
      patch(
          R"({"op":"add","path":"/spec/containers/0/resources/requests/gpulint.io~1vram","value":"12909Mi"},)"
          R"({"op":"replace","path":"/spec/containers/0/resources/requests/memory","value":"2Gi"},)"
          R"({"op":"add","path":"/spec/containers/0/resources/limits/gpulint.io~1vram","value":"12909Mi"},)"
          R"({"op":"replace","path":"/spec/containers/0/resources/limits/memory","value":"2Gi"},)" +
          recorded));
  CHECK(PatchFor(Yaml(pod),
                 PolicyWith("  mutations: {vram: false, headroom: false, hideGpus: false}\n"),
                 IncidentNodes()) == "[]");
}

TEST_CASE("objects in exempt namespaces and objects without pods are left alone",
          "[mutate][policy]") {
  std::string pod = GpuPod("{requests: {memory: 1Gi}, limits: {memory: 1Gi, nvidia.com/gpu: 1}}");
  pod.replace(pod.find("name: p"), 7, "name: p\n  namespace: kube-system");
  Policy p = PolicyWith("  exemptions: {namespaces: [kube-system]}\n");
  CHECK(PatchFor(Yaml(pod), p, NoNodes()) == "[]");
  CHECK(PatchFor(Yaml(pod), DefaultPolicy(), NoNodes()) != "[]");

  CHECK(PatchFor("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: b}\n") == "[]");
  // A List is not one object: its items are mutated one by one (ForEachObject).
  CHECK(PatchFor("apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Pod, spec: "
                 "{containers: [{name: a, image: x, resources: {limits: {memory: 1Gi, "
                 "nvidia.com/gpu: 1}}}]}}\n") == "[]");
  CHECK(Mutate(Yaml("[1, 2]"), DefaultPolicy(), NoNodes()).empty());
}

TEST_CASE("pods in CRD and CronJob templates are patched at their own paths",
          "[mutate][workloads]") {
  std::string job = R"(apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: t}
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          containers:
          - name: pytorch
            image: x
            resources: {limits: {memory: 8Gi, nvidia.com/gpu: 1}}
    Worker:
      replicas: 3
      template:
        metadata: {annotations: {gpulint.io/vram: 30Gi}}
        spec:
          containers:
          - name: pytorch
            image: x
            resources: {limits: {nvidia.com/gpu: 2}}
)";
  CHECK(
      PatchFor(job, IncidentNodes()) ==
      R"([{"op":"add","path":"/spec/pytorchReplicaSpecs/Master/template/spec/containers/0/resources/requests",)"
      R"("value":{"gpulint.io/vram":"1546020454"}},)"
      R"({"op":"add","path":"/spec/pytorchReplicaSpecs/Master/template/spec/containers/0/resources/limits/gpulint.io~1vram","value":"1546020454"},)"
      R"({"op":"replace","path":"/spec/pytorchReplicaSpecs/Master/template/spec/containers/0/resources/limits/memory","value":"9Gi"},)"
      R"({"op":"add","path":"/spec/pytorchReplicaSpecs/Master/template/metadata",)"
      R"("value":{"annotations":{"gpulint.io/headroom-added":"{\"pytorch\":{\"added\":\"1Gi\",\"limits\":\"8Gi\"}}"}}},)"
      R"({"op":"add","path":"/spec/pytorchReplicaSpecs/Worker/template/spec/containers/0/resources/requests",)"
      R"("value":{"gpulint.io/vram":"31962Mi"}},)"
      R"({"op":"add","path":"/spec/pytorchReplicaSpecs/Worker/template/spec/containers/0/resources/limits/gpulint.io~1vram","value":"31962Mi"}])");

  std::string cron = R"(apiVersion: batch/v1
kind: CronJob
metadata: {name: c}
spec:
  schedule: "0 2 * * *"
  jobTemplate:
    spec:
      template:
        spec:
          containers:
          - {name: eval, image: x, resources: {limits: {nvidia.com/gpu: 1}}}
)";
  CHECK(PatchFor(cron) == "[]");
  CHECK(PatchFor(cron, IncidentNodes()) ==
        VramPatch("1546020454", "/spec/jobTemplate/spec/template/spec/containers/0"));
}

TEST_CASE("a key with / or ~ in a template path is escaped in the pointer", "[mutate][workloads]") {
  std::string job = R"(apiVersion: kubeflow.org/v1
kind: TFJob
metadata: {name: t}
spec:
  tfReplicaSpecs:
    a/b~c:
      template:
        spec:
          containers:
          - {name: tf, image: x, resources: {limits: {nvidia.com/gpu: 1}}}
)";
  Value object = Yaml(job);
  std::vector<PatchOp> ops = Mutate(object, DefaultPolicy(), IncidentNodes());
  REQUIRE(ops.size() == 2);
  CHECK(ops[0].path ==
        "/spec/tfReplicaSpecs/a~1b~0c/template/spec/containers/0/resources/requests");
  CHECK(PatchFor(object, DefaultPolicy(), IncidentNodes()) == PatchToJson(ops));
}

}  // namespace
}  // namespace gpulint
