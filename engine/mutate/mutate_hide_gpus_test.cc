// The hide-GPUs mutation: NVIDIA_VISIBLE_DEVICES=void for containers that ask
// for no GPU in pods that can reach GPU nodes.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "engine/engine_test_support.h"
#include "engine/mutate/mutate.h"
#include "engine/policies.h"

namespace gpulint {
namespace {

using namespace mutate_testing;  // NOLINT: test helpers

TEST_CASE("hide GPUs: every container without a GPU limit in a pod that can reach GPU nodes",
          "[mutate][hide]") {
  std::string pod = R"(apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
  initContainers:
  - {name: setup, image: busybox}
  - name: proxy
    image: envoy
    restartPolicy: Always
    env: [{name: A, value: "1"}]
  containers:
  - {name: main, image: app, env: null}
  - name: own
    image: app
    env: [{name: NVIDIA_VISIBLE_DEVICES, valueFrom: {configMapKeyRef: {name: c, key: k}}}]
  - name: mine
    image: app
    env: [{name: NVIDIA_VISIBLE_DEVICES, value: "0"}]
  - {name: zero, image: app, resources: {limits: {nvidia.com/gpu: 0}}}
)";
  std::string v(kVoid);
  CHECK(PatchFor(pod) ==
        R"([{"op":"add","path":"/spec/initContainers/0/env","value":[)" + v + "]}," +
            R"({"op":"add","path":"/spec/initContainers/1/env/-","value":)" + v + "}," +
            R"({"op":"add","path":"/spec/containers/0/env","value":[)" + v + "]}," +
            R"({"op":"add","path":"/spec/containers/3/env","value":[)" + v + "]}]");
}

TEST_CASE("hide GPUs: a container with a DRA claim keeps the devices its driver injects",
          "[mutate][hide]") {
  // The webhook sees no ResourceClaimTemplate: the claim is not known to hold
  // GPUs, but hiding them would take away what the DRA driver gives.
  std::string pod = R"(apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
  resourceClaims: [{name: gpu, resourceClaimTemplateName: single-gpu}]
  containers:
  - {name: dra, image: nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04, resources: {claims: [{name: gpu}]}}
  - {name: plain, image: busybox}
)";
  CHECK(PatchFor(pod) ==
        R"([{"op":"add","path":"/spec/containers/1/env","value":[)" + std::string(kVoid) + "]}]");
}

TEST_CASE("hide GPUs: only where the pod can reach a GPU node", "[mutate][hide][nodes]") {
  const char* plain =
      "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n%s"
      "  containers:\n  - {name: web, image: nginx}\n";
  auto pod = [&](std::string extra) {
    std::string text = plain;
    text.replace(text.find("%s"), 2, extra);
    return text;
  };
  std::string hidden =
      R"([{"op":"add","path":"/spec/containers/0/env","value":[)" + std::string(kVoid) + "]}]";
  // Nothing says it reaches a GPU node.
  CHECK(PatchFor(pod("")) == "[]");
  // A GPU node label in its nodeSelector, with or without nodes.
  CHECK(PatchFor(pod("  nodeSelector: {gpus: \"true\"}\n")) == hidden);
  // With nodes: it can land on the untainted RTX 8000 or MPS nodes.
  CHECK(PatchFor(pod(""), IncidentNodes()) == hidden);
  CHECK(PatchFor(pod("  nodeSelector: {node-role: cpu}\n"), IncidentNodes()) == "[]");
}

}  // namespace
}  // namespace gpulint
