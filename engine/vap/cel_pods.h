// The policy's workload table in CEL: the pods of the object under
// admission, found as engine/workload/workload.cc's ExtractPods finds them,
// with the facts about their containers that the exported rules read.
// Internal to engine/vap.
#ifndef GPULINT_ENGINE_VAP_CEL_PODS_H_
#define GPULINT_ENGINE_VAP_CEL_PODS_H_

#include <string>
#include <vector>

#include "engine/policy/policy.h"
#include "engine/vap/cel_text.h"

namespace gpulint::cel {

// The variables every exported rule reads, in the order they must be
// declared:
//   q0, q29, qm29  the quantities compared with (cel::QuantityConstants)
//   group          the object's API group
//   gpus           the policy's gpuResources
//   shape, w       the index of the object's workloads entry (-1 for none;
//                  kinds whose entries say the same share one), and that
//                  entry as data: its paths as lists of segments
//   ds             whether the object is a DaemonSet or a DaemonSet's Pod
//   walked         the values at the entry's paths: {k, v, p, h, hp}
//   pods0, pods1   the pods found (PodOf's enclosure, a container outside
//                  every pod making its own), then with their containers
//                  read and DropEmptyPods applied
//   containers, entries, pods
//                  the tables of engine/vap/cel_facts.h
//   annotations    the object's and its pod templates' annotation maps
// `kinds` is set to a CEL condition that holds for the workload kinds of the
// table (the policy's matchCondition). False, with *error, for a table entry
// that CEL cannot follow (cel_pods.cc's CheckKind).
bool PodVariables(const Policy& policy, std::vector<Variable>* variables, std::string* kinds,
                  std::string* error);

}  // namespace gpulint::cel

#endif  // GPULINT_ENGINE_VAP_CEL_PODS_H_
