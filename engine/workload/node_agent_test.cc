// GPU node agents are recognised by what their pods do, and are never mutated
// or blamed; containers given GPUs by other means keep them.
#include "engine/workload/node_agent.h"

#include <catch2/catch.hpp>
#include <string>

#include "engine/engine_test_support.h"
#include "engine/policies.h"
#include "engine/workload/workload.h"

namespace gpulint {
namespace {

using mutate_testing::PatchFor;
using mutate_testing::PolicyWith;
using mutate_testing::Yaml;

// A DaemonSet (or `kind`) whose template has `spec` (indented for a pod spec).
std::string Agent(std::string_view spec, std::string_view kind = "DaemonSet") {
  return "apiVersion: apps/v1\nkind: " + std::string(kind) +
         "\nmetadata: {name: agent, namespace: gpu}\nspec:\n  template:\n    spec:\n" +
         std::string(spec);
}

constexpr std::string_view kTolerates =
    "      tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]\n";

std::string Reason(const std::string& yaml, const Policy& policy = DefaultPolicy()) {
  Value object = Yaml(yaml);
  std::vector<PodInfo> pods = ExtractPods(object, policy, Inventory());
  REQUIRE(pods.size() == 1);
  return pods[0].node_agent;
}

std::vector<std::string> Rules(const std::string& yaml) {
  std::vector<std::string> rules;
  for (const Finding& f : Evaluate(Yaml(yaml), "a.yaml", DefaultPolicy(), Inventory()))
    rules.push_back(f.rule);
  return rules;
}

TEST_CASE("a pod that mounts the kubelet's device-plugin or pod-resources directory is an agent",
          "[node-agent]") {
  for (std::string_view path :
       {"/var/lib/kubelet/device-plugins", "/var/lib/kubelet/device-plugins/",
        "/var/lib/kubelet/device-plugins/kubelet.sock", "/var/lib/kubelet/pod-resources",
        "/var/lib/kubelet/plugins_registry"}) {
    INFO(path);
    std::string yaml = Agent(
        "      containers: [{name: plugin, image: example.com/plugin:1}]\n"
        "      volumes: [{name: dp, hostPath: {path: \"" +
            std::string(path) + "\"}}]\n",
        "Deployment");
    CHECK(Reason(yaml) == "it mounts the kubelet's " + std::string(path));
  }
  // A sibling directory whose name only starts the same is not the kubelet's.
  CHECK(
      Reason(
          Agent(
              "      containers: [{name: c, image: busybox}]\n"
              "      volumes: [{name: v, hostPath: {path: /var/lib/kubelet/device-plugins-old}}]\n",
              "Deployment"))
          .empty());
}

TEST_CASE("a privileged or /dev-mounting DaemonSet pod is an agent",
          "[node-agent]") {
  std::string privileged =
      "      containers: [{name: mig, image: example.com/mig:1, securityContext: {privileged: "
      "true}}]\n";
  std::string dev =
      "      containers: [{name: dri, image: example.com/dri:1}]\n"
      "      volumes: [{name: dri, hostPath: {path: /dev/dri}}]\n";
  CHECK(Reason(Agent(privileged + std::string(kTolerates))) == "it is a privileged DaemonSet pod");
  CHECK(Reason(Agent(dev + std::string(kTolerates))) == "it is a DaemonSet pod that mounts /dev/dri");
  // Not a DaemonSet: a privileged Deployment is a workload.
  CHECK(Reason(Agent(privileged + std::string(kTolerates), "Deployment")).empty());
  // A DaemonSet that says nothing of where it runs runs on GPU nodes too.
  CHECK(Reason(Agent(privileged)) == "it is a privileged DaemonSet pod");
  // One that is neither privileged nor mounts a device is a workload.
  CHECK(Reason(Agent("      containers: [{name: c, image: busybox}]\n" + std::string(kTolerates)))
            .empty());
  // A Pod made by a DaemonSet, as the webhook sees it.
  std::string pod =
      "apiVersion: v1\nkind: Pod\nmetadata:\n  name: dcgm-abcde\n  ownerReferences:\n"
      "  - {apiVersion: apps/v1, kind: DaemonSet, name: dcgm, controller: true, uid: u}\n"
      "spec:\n  nodeName: gpu-1\n  tolerations: [{operator: Exists}]\n"
      "  containers: [{name: c, image: example.com/c:1, securityContext: {privileged: true}}]\n";
  CHECK(Reason(pod) == "it is a privileged DaemonSet pod");
}

TEST_CASE("agentImages stays an extension point, a pod that asks for GPUs is never an agent",
          "[node-agent]") {
  std::string exporter =
      Agent("      containers: [{name: e, image: example.com/acme-exporter:2}]\n");
  CHECK(Reason(exporter).empty());
  Policy policy = PolicyWith("  gpuNodes:\n    agentImages: ['acme-exporter']\n");
  CHECK(Reason(exporter, policy) ==
        "its image example.com/acme-exporter:2 is a node agent's (gpuNodes.agentImages)");
  CHECK(
      Reason(
          Agent("      containers: [{name: burn, image: nvcr.io/nvidia/cuda:12.4.1-base, "
                "resources: {limits: {nvidia.com/gpu: 1}}}]\n"
                "      volumes: [{name: dp, hostPath: {path: /var/lib/kubelet/pod-resources}}]\n"))
          .empty());
}

TEST_CASE("agentHostPaths must be absolute", "[node-agent][policy]") {
  Policy p;
  Error error;
  REQUIRE_FALSE(
      LoadPolicyText("apiVersion: gpulint.io/v1alpha1\nkind: Policy\nspec:\n  gpuNodes:\n"
                     "    agentHostPaths: [/var/lib/kubelet/device-plugins, device-plugins]\n",
                     "p.yaml", &p, &error));
  CHECK(error.ToString() ==
        "p.yaml:5:55: spec.gpuNodes.agentHostPaths[1]: \"device-plugins\" is not an absolute path");
}

// NVIDIA's static device plugin, as applied outside kube-system: before, the
// hide-GPUs mutation gave it NVIDIA_VISIBLE_DEVICES=void and the node lost its GPUs.
TEST_CASE("a device plugin is neither mutated nor blamed", "[node-agent][mutate]") {
  std::string plugin = Agent(
      std::string(kTolerates) +
      "      containers:\n"
      "      - name: nvidia-device-plugin-ctr\n"
      "        image: nvcr.io/nvidia/k8s-device-plugin:v0.14.5\n"
      "        securityContext: {allowPrivilegeEscalation: false, capabilities: {drop: [ALL]}}\n"
      "        volumeMounts: [{name: dp, mountPath: /var/lib/kubelet/device-plugins}]\n"
      "      volumes: [{name: dp, hostPath: {path: /var/lib/kubelet/device-plugins}}]\n");
  CHECK(PatchFor(plugin) == "[]");
  CHECK(Rules(plugin).empty());
  // A CUDA container on GPU nodes that mounts nothing of the kubelet's is hidden.
  std::string workload = Agent(std::string(kTolerates) +
                                   "      containers:\n"
                                   "      - name: c\n"
                                   "        image: nvcr.io/nvidia/cuda:12.4.1-base\n",
                               "Deployment");
  CHECK(
      PatchFor(workload) ==
      R"([{"op":"add","path":"/spec/template/spec/containers/0/env","value":[{"name":"NVIDIA_VISIBLE_DEVICES","value":"void"}]}])");
}

TEST_CASE("hide GPUs leaves containers given GPUs otherwise, and privileged ones",
          "[node-agent][mutate][hide]") {
  auto pod = [](std::string_view container) {
    return "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n" +
           std::string(kTolerates.substr(4)) +
           "  containers:\n  - name: c\n    image: nvcr.io/nvidia/cuda:12.4.1-base\n" +
           std::string(container);
  };
  // MIG (mixed strategy), AMD and Intel: the device plugin hands the device
  // over, as NVIDIA_VISIBLE_DEVICES for MIG; void written in the spec would win.
  for (std::string_view resources :
       {"    resources: {limits: {nvidia.com/mig-1g.5gb: 1}}\n",
        "    resources: {limits: {amd.com/gpu: 1}}\n",
        "    resources: {requests: {gpu.intel.com/i915: 1}, limits: {gpu.intel.com/i915: 1}}\n",
        "    securityContext: {privileged: true}\n"}) {
    INFO(resources);
    CHECK(PatchFor(pod(resources)) == "[]");
  }
  CHECK(PatchFor(
            "apiVersion: v1\nkind: Pod\nmetadata: {name: p, annotations: {gpu-fraction: '0.5'}}\n"
            "spec:\n" +
            std::string(kTolerates.substr(4)) +
            "  containers: [{name: c, image: nvcr.io/nvidia/cuda:12.4.1-base}]\n") == "[]");
  CHECK(
      PatchFor(pod("")) ==
      R"([{"op":"add","path":"/spec/containers/0/env","value":[{"name":"NVIDIA_VISIBLE_DEVICES","value":"void"}]}])");
}

}  // namespace
}  // namespace gpulint
