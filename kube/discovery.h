// Which resource serves a kind: the API server's discovery documents (/api/v1
// and /apis/GROUP/VERSION), read for the groups a caller names. Every
// authenticated user may read them (the system:discovery role), so a client
// learns what it may list before it asks.
#ifndef GPULINT_KUBE_DISCOVERY_H_
#define GPULINT_KUBE_DISCOVERY_H_

#include <string>
#include <vector>

#include "kube/kube_client.h"

namespace gpulint {

struct ApiResource {
  std::string group;     // "" for the core group
  std::string version;   // the group's preferred version
  std::string resource;  // "deployments"
  std::string kind;      // "Deployment"
  bool namespaced = false;
  std::string ApiVersion() const { return group.empty() ? version : group + "/" + version; }
  // The collection across namespaces: "/apis/apps/v1/deployments", "/api/v1/pods";
  // with `ns`, that namespace's: "/apis/apps/v1/namespaces/ml/deployments"
  // (a cluster-scoped resource has no namespace: its collection is the same).
  std::string Path(const std::string& ns = "") const;
};

struct Discovery {
  std::vector<ApiResource> resources;  // of the groups asked for that are served
  // Groups whose document did not come (an aggregated API that is down),
  // each with why: what was asked of them is not in `resources`.
  std::vector<std::string> problems;
  // The resource of `kind` in `group` ("*": any group, the first served).
  const ApiResource* Find(const std::string& group, const std::string& kind) const;
};

// Reads the core group and, of the groups the server serves, those in
// `groups` ("*" among them: every group). False with *error only when the
// server could not be asked at all (the core group's document did not come).
bool Discover(const KubeEndpoint& endpoint, const std::vector<std::string>& groups, Discovery* out,
              std::string* error);

}  // namespace gpulint

#endif  // GPULINT_KUBE_DISCOVERY_H_
