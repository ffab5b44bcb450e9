// GPU node agents: the pods that make a node's GPUs exist for Kubernetes
// (device plugins, GPU Feature Discovery, dcgm-exporter, MIG manager, the GPU
// Operator's driver and toolkit, AMD's and Intel's plugins, HAMi, Volcano's
// vGPU plugin, gpushare) must see every GPU of their node. Hiding the GPUs
// from one of them makes the node advertise none, and no GPU pod can then be
// scheduled there. gpulint never mutates them and no GPU-visibility rule
// blames them.
#ifndef GPULINT_ENGINE_WORKLOAD_NODE_AGENT_H_
#define GPULINT_ENGINE_WORKLOAD_NODE_AGENT_H_

#include <string>

#include "engine/base/value.h"
#include "engine/policy/policy.h"

namespace gpulint {

struct PodInfo;

// Why `pod` (a pod of `object`) is a GPU node agent, or "" when it is not one.
// Decided by what the pod does, not by its name:
//  - it mounts one of the kubelet directories that only node agents use (the
//    policy's gpuNodes.agentHostPaths: the device-plugin socket directory,
//    pod-resources, plugin registration), or
//  - it is a DaemonSet pod (a DaemonSet's template, or a Pod whose owner is a
//    DaemonSet) that is privileged or mounts host devices (a hostPath under
//    /dev): it runs on every node it may, GPU nodes included, or
//  - one of its containers runs an image of the policy's gpuNodes.agentImages
//    (the extension point for agents that do neither).
// A pod that asks the device plugin for GPUs is a workload, never an agent.
// Computed when `pod` is settled; can_reach_gpu_node must be set already.
std::string NodeAgentReason(const Value& object, const PodInfo& pod, const Policy& policy);

}  // namespace gpulint

#endif  // GPULINT_ENGINE_WORKLOAD_NODE_AGENT_H_
