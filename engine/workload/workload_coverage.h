// Which objects gpulint could check, and where it could not: an object of a
// kind the workload table does not know that holds containers, a known kind
// with containers its paths miss, or a configured path that points at a value
// of the wrong shape. Such an object is "not checked", never passed in silence.
#ifndef GPULINT_ENGINE_WORKLOAD_WORKLOAD_COVERAGE_H_
#define GPULINT_ENGINE_WORKLOAD_WORKLOAD_COVERAGE_H_

#include <string>
#include <vector>

#include "engine/base/value.h"
#include "engine/policy/policy.h"
#include "engine/workload/workload.h"

namespace gpulint {

// One place in an object that holds containers gpulint did not read.
struct UncheckedShape {
  const Value* node = nullptr;
  std::string path;     // where: spec.templates[0].container
  std::string field;    // the workloads field that would reach it: templates, podSpecs,
                        // containers or containerLists; "" for a configured path of the
                        // wrong shape
  std::string pattern;  // the path to write there, items as "*": spec.templates.*.container
  // For a configured path of the wrong shape: what is there ("a string") and
  // what the path should reach ("a pod spec"); else empty.
  std::string found;
  std::string expected;
  // A GPU request outside any container (an inference flavour's limits, a
  // Spark executor's gpu): its resource. field and pattern are empty: no
  // workloads entry reaches it, as no container holds it.
  std::string gpu_resource;
};

// The unchecked shapes of `object` given the pods ExtractPods found in it,
// one per distinct field and pattern, in document order. Objects without a
// kind (Helm values, bare data) hold none.
std::vector<UncheckedShape> FindUncheckedShapes(const Value& object, const Policy& policy,
                                                const std::vector<PodInfo>& pods);

enum class Coverage {
  kNoWorkload,  // carries no pods or containers (a Service, a ConfigMap)
  kChecked,     // its pods were found and checked
  kNotChecked,  // some of its containers could not be found: see FindUncheckedShapes
};

}  // namespace gpulint

#endif  // GPULINT_ENGINE_WORKLOAD_WORKLOAD_COVERAGE_H_
