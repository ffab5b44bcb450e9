// How `gpulint audit` writes its report: text for a person, JSON, and SARIF
// through check's writer (lint/output). Internal to lint/.
#ifndef GPULINT_LINT_CLI_AUDIT_OUTPUT_H_
#define GPULINT_LINT_CLI_AUDIT_OUTPUT_H_

#include <iosfwd>
#include <string>
#include <vector>

#include "engine/base/finding.h"
#include "engine/policy/policy.h"
#include "lint/cli/audit.h"
#include "lint/cli/audit_source.h"

namespace gpulint {

// Where the report comes from.
struct AuditContext {
  std::string server;  // "https://10.0.0.1:6443"
  std::string origin;  // "kubeconfig ~/.kube/config, context prod"
  std::string policy;  // "built-in", or the --policy file
  const Policy* rules = nullptr;
  std::string namespace_name;  // -n; "" for every namespace
  std::string sarif_file;      // --sarif-file: where SARIF places every result
};

// Every finding of `report`, each under the object it is reported for: a
// node's under the Node, a workload's under its top owner, those of its
// running pods too (their message says on how many pods, and one of them),
// in the report's order.
std::vector<Finding> AuditFindings(const AuditReport& report);

// "text", "json" or "sarif"; the formats `--format` takes.
const std::vector<std::string>& AuditFormats();

// Writes the report. `read.problems` are in it too (JSON "errors", SARIF
// notifications); text leaves them to the caller's stderr.
void WriteAudit(const std::string& format, const AuditReport& report, const ClusterRead& read,
                const AuditContext& context, bool color, std::ostream& out);

}  // namespace gpulint

#endif  // GPULINT_LINT_CLI_AUDIT_OUTPUT_H_
