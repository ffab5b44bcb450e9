// KServe's serving runtimes: an InferenceService's predictor model is merged
// with the container of its ServingRuntime (or ClusterServingRuntime), which
// brings what the predictor leaves out (KServe's MergeRuntimeContainers), a
// memory limit among it. The runtimes seen before an object in its input
// tell what that container gets.
#ifndef GPULINT_ENGINE_WORKLOAD_SERVING_RUNTIMES_H_
#define GPULINT_ENGINE_WORKLOAD_SERVING_RUNTIMES_H_

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/base/value.h"

namespace gpulint {

struct ServingRuntime {
  std::string kind;  // "ServingRuntime" or "ClusterServingRuntime"
  std::string name;
  std::vector<std::string> auto_formats;  // supportedModelFormats with autoSelect: true
  std::string memory_limit;               // its serving container's limits.memory, as written
};

class ServingRuntimes {
 public:
  // Records `object` when it is a ServingRuntime or ClusterServingRuntime of
  // serving.kserve.io; returns whether it was one.
  bool Add(const Value& object);
  // The runtimes an InferenceService in `ns` with predictor `model` may be
  // merged with: the one model.runtime names (a ServingRuntime of its
  // namespace before a ClusterServingRuntime), else every one in view that
  // selects itself for model.modelFormat.name. Empty when none is in view.
  std::vector<const ServingRuntime*> For(std::string_view ns, const Value& model) const;

 private:
  std::map<std::pair<std::string, std::string>, ServingRuntime> namespaced_;  // namespace, name
  std::map<std::string, ServingRuntime> cluster_;
};

}  // namespace gpulint

#endif  // GPULINT_ENGINE_WORKLOAD_SERVING_RUNTIMES_H_
