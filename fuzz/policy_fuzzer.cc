// libFuzzer target: the policy loader (LoadPolicyText), then the engine
// running a GPU pod under whatever policy loaded.
//
// Properties, beyond "no crash, no sanitizer report":
//  - the loader either loads or returns an Error with a non-empty message;
//  - a policy that loads can evaluate and mutate an object.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "engine/engine.h"
#include "engine/mutate/mutate.h"
#include "engine/policy/policy.h"
#include "engine/yaml/loader.h"

namespace {

// A pod that reaches most rules: GPUs, mixed units, a CUDA image, annotations.
constexpr std::string_view kPod = R"(apiVersion: v1
kind: Pod
metadata:
  name: trainer
  namespace: ml
  annotations: {gpulint.io/vram: 12Gi}
spec:
  nodeSelector: {nvidia.com/gpu.product: Tesla-T4}
  tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
  initContainers:
  - {name: init, image: busybox, resources: {limits: {memory: 64M}}}
  containers:
  - name: train
    image: nvcr.io/nvidia/pytorch:24.05-py3
    resources:
      requests: {cpu: "4", memory: 500Gi}
      limits: {memory: 500G, nvidia.com/gpu: 2}
  - name: sidecar
    image: nvidia/cuda:12.4.1-base-ubuntu22.04
)";

const gpulint::Value& Pod() {
  static const gpulint::Value pod = [] {
    gpulint::Value root;
    gpulint::Error error;
    gpulint::LoadYamlString(kPod, "pod.yaml", {}, [&](gpulint::Document&& d) {
      root = std::move(d.root);
      return false;
    }, &error);
    return root;
  }();
  return pod;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  gpulint::Policy policy;
  gpulint::Error error;
  if (!gpulint::LoadPolicyText(text, "fuzz-policy.yaml", &policy, &error)) {
    if (error.message.empty()) {
      std::fprintf(stderr, "policy_fuzzer: LoadPolicyText failed with no message\n");
      std::abort();
    }
    return 0;
  }
  gpulint::Inventory inventory = gpulint::BuildInventory(policy, {});
  (void)gpulint::Evaluate(Pod(), "pod.yaml", policy, inventory);
  (void)gpulint::PatchToJson(gpulint::Mutate(Pod(), policy, inventory));
  return 0;
}
