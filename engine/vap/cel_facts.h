// What the exported rules ask of a pod and its containers, in CEL: the
// ContainerInfo and PodInfo accessors of engine/workload/workload.h, the
// node-agent test (node_agent.h) and GpuReachReason with no inventory.
// Internal to engine/vap.
#ifndef GPULINT_ENGINE_VAP_CEL_FACTS_H_
#define GPULINT_ENGINE_VAP_CEL_FACTS_H_

#include <string>
#include <vector>

#include "engine/policy/policy.h"
#include "engine/vap/cel_text.h"

namespace gpulint::cel {

// The tables the rules read, as variables declared after `pods1` (the pods
// found, each {path, meta, own, spec, podLevel, partial, containers}, its
// containers {c, path, role, name, image, res, resPath} read), in order:
//   containers   every container of every pod, with `pod`, its pod's index,
//                rq and lm (its requests and limits maps), and {gpu,
//                privileged, nvd, claims, cuda, agentImage, memLimit,
//                cpuLimit} (ContainerInfo)
//   entries      every request and limit ({c: the container's index, list:
//                'requests' or 'limits', name, v, path}), then every volume's
//                storage quantity ({c: -1, list: 'volume', ...}:
//                VolumeQuantities); a rule makes a cel::Entry of those it
//                judges, so that only they are parsed
//   pods         each with {containers, gpu, agent, reach, assigns,
//                memLimit, cpuLimit} (PodInfo, settled)
// Flat tables, each a small expression: the API server's CEL compiler takes
// time that grows with the square of an expression's size. Each step costs a
// microsecond or two in the API server, for every request: nothing is parsed
// or joined that a rule does not read.
std::vector<Variable> FactVariables(const Policy& policy, Names* names);

}  // namespace gpulint::cel

#endif  // GPULINT_ENGINE_VAP_CEL_FACTS_H_
