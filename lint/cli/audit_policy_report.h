// `gpulint audit --policy-report`: the report as wgpolicyk8s.io/v1alpha2
// PolicyReports (one per namespace with findings) and one ClusterPolicyReport
// (the nodes, and findings on cluster-scoped objects), the format Kyverno
// writes and Policy Reporter shows. Each run applies them by server-side apply
// under fixed names and deletes the reports of earlier runs it did not write
// again (found by their label and name), so they always say what the last run
// saw. It touches no report of another name: the chart's ClusterRole grants
// it those names alone, and its admission policy those labelled as its own.
// Internal to lint/.
#ifndef GPULINT_LINT_CLI_AUDIT_POLICY_REPORT_H_
#define GPULINT_LINT_CLI_AUDIT_POLICY_REPORT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "kube/kube_client.h"
#include "lint/cli/audit.h"

namespace gpulint {

inline constexpr const char* kPolicyReportName = "gpulint-audit";
// The label that marks the reports gpulint writes.
inline constexpr const char* kPolicyReportLabel = "app.kubernetes.io/managed-by";
inline constexpr const char* kPolicyReportLabelValue = "gpulint";
// The most results one report holds: an object must stay well under etcd's
// 1.5 MiB. The rest are counted in the report's last result.
inline constexpr size_t kMaxResultsPerReport = 1000;

struct PolicyReportObject {
  std::string namespace_name;  // "" for the ClusterPolicyReport
  std::string json;            // the object, to apply
  size_t results = 0;
};

// The reports of `report`, their results timestamped `now_seconds`; the
// ClusterPolicyReport last.
std::vector<PolicyReportObject> PolicyReports(const AuditReport& report, int64_t now_seconds);

// Applies `reports` and deletes the earlier ones gpulint wrote that these do
// not replace. *done gets a line per report written or deleted. False with
// *error on the first request that fails (the message names the permission
// it needed); what was done before stays done.
bool ApplyPolicyReports(const KubeEndpoint& endpoint,
                        const std::vector<PolicyReportObject>& reports,
                        std::vector<std::string>* done, std::string* error);

}  // namespace gpulint

#endif  // GPULINT_LINT_CLI_AUDIT_POLICY_REPORT_H_
