// Small facts about resources and containers that several rules share.
#ifndef GPULINT_ENGINE_RULES_RULE_UTIL_H_
#define GPULINT_ENGINE_RULES_RULE_UTIL_H_

#include <string>
#include <string_view>

#include "engine/policy.h"
#include "engine/workload.h"

namespace gpulint {

// Resources counted in bytes, the one list that the rules, the messages and
// `gpulint fix`'s unit repairs read: Kubernetes' memory, ephemeral-storage,
// storage and hugepages-<size>, and the policy's VRAM resource.
bool IsByteResource(std::string_view name, const Policy& policy);
bool IsGpuResource(const Policy& policy, std::string_view name);
// A quantity for a message: bytes in both unit systems, counts plainly.
std::string Describe(std::string_view resource, const Quantity& q, const Policy& policy);
// Path of the pod's metadata: "metadata" for a Pod, "spec.template.metadata"...
std::string MetadataPath(const PodInfo& pod);
// "container \"cuda\"", "initContainer \"setup\"", "sidecar \"proxy\"".
std::string ContainerLabel(const ContainerInfo& c);
// The GPU devices a container's DRA claims ask for, as the manifest states
// them: "DRA claim \"gpus\": 2 gpu.nvidia.com devices, memory 20Gi each";
// "" for none.
std::string DescribeGpuClaims(const ContainerInfo& c);
// The VRAM a GPU container declares per the policy: the container's VRAM
// resource limit, else `<annotation>.<container>` on the pod, else the pod's
// `<annotation>`. Sets *where to the node the value was read from.
bool DeclaredVram(const PodInfo& pod, const ContainerInfo& c, const Policy& policy, Quantity* out,
                  const Value** where, std::string* path);

}  // namespace gpulint

#endif  // GPULINT_ENGINE_RULES_RULE_UTIL_H_
