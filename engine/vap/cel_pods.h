// The policy's workload table in CEL: the pods of the object under
// admission, found as engine/workload/workload.cc's ExtractPods finds them,
// with the facts about their containers that the exported rules read.
// Internal to engine/vap.
#ifndef GPULINT_ENGINE_VAP_CEL_PODS_H_
#define GPULINT_ENGINE_VAP_CEL_PODS_H_

#include <string>
#include <utility>
#include <vector>

#include "engine/policy/policy.h"
#include "engine/vap/cel_text.h"

namespace gpulint::cel {

// The variables every exported rule reads, in the order they must be
// declared:
//   group        the object's API group
//   ds           whether the object is a DaemonSet's or makes DaemonSet pods
//   pods, containers, entries
//                the tables of engine/vap/cel_facts.h
//   annotations  the object's and its pod templates' annotation maps
// `kinds` is set to a CEL condition that holds for the workload kinds of the
// table (the policy's matchCondition). False, with *error, for a table entry
// that CEL cannot follow (a `containers` path outside every pod with a "*").
bool PodVariables(const Policy& policy, std::vector<Variable>* variables, std::string* kinds,
                  std::string* error);

}  // namespace gpulint::cel

#endif  // GPULINT_ENGINE_VAP_CEL_PODS_H_
