// Reading a live cluster into a ClusterAudit (audit.h): discovery, then the
// nodes, the workload kinds of the policy's workload table, and the pods, each
// listed page by page. A list the user may not read is said plainly (the verb,
// the resource, its group, and what the report lacks without it), and the
// audit goes on with what it can see. Internal to lint/.
#ifndef GPULINT_LINT_CLI_AUDIT_SOURCE_H_
#define GPULINT_LINT_CLI_AUDIT_SOURCE_H_

#include <string>
#include <vector>

#include "engine/policy/policy.h"
#include "kube/kube_client.h"
#include "kube/list.h"
#include "lint/cli/audit.h"

namespace gpulint {

// What the reading came to, besides the objects.
struct ClusterRead {
  // Lists that failed, each a message naming what is missing from the report.
  std::vector<std::string> problems;
  // What the reader noticed and the report should say (a list that went on
  // past an expired continue token, an API group whose discovery failed).
  std::vector<std::string> notes;
  // The workload kinds listed, as "Deployment.apps", and those the cluster does
  // not serve (no such CRD installed).
  std::vector<std::string> kinds_listed, kinds_not_served;
  bool nodes_listed = false;
  bool pods_listed = false;
};

// The permissions an audit needs, one line each ("list nodes", "list
// deployments.apps", ...): for the help text, the chart's ClusterRole and the
// report of what is missing.
std::string Permission(const std::string& verb, const std::string& resource,
                       const std::string& group);

// Reads `endpoint`'s cluster into `audit`: its nodes, and the workloads and
// pods of `ns` ("" for every namespace). False with *error only when the
// cluster could not be read at all (no answer, discovery refused).
bool ReadCluster(const KubeEndpoint& endpoint, const Policy& policy, const ListOptions& options,
                 const std::string& ns, ClusterAudit* audit, ClusterRead* read,
                 std::string* error);

}  // namespace gpulint

#endif  // GPULINT_LINT_CLI_AUDIT_SOURCE_H_
