// API versions that no server serves any more, Kubernetes' own and those of
// the GPU operators' custom resources: the one table removed-api-version
// reports from, and that tells workload-not-checked which objects the API
// server would refuse before any pod exists.
#ifndef GPULINT_ENGINE_WORKLOAD_REMOVED_APIS_H_
#define GPULINT_ENGINE_WORKLOAD_REMOVED_APIS_H_

#include <string_view>

namespace gpulint {

struct RemovedApi {
  const char* api_version;
  const char* kind;  // "*" for every kind of the version
  const char* server;      // who no longer serves it: "Kubernetes", "the MPI Operator"
  const char* removed_in;  // that server's version: "1.16", "v0.4.0"
  const char* replacement;
};

// The entry for `kind` in `api_version`, or null when it is served.
const RemovedApi* FindRemovedApi(std::string_view api_version, std::string_view kind);

}  // namespace gpulint

#endif  // GPULINT_ENGINE_WORKLOAD_REMOVED_APIS_H_
