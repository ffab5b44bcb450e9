// Runs the engine the way `gpulint check` does over one file, for the golden
// and corpus tests.
#ifndef GPULINT_TESTS_GOLDEN_H_
#define GPULINT_TESTS_GOLDEN_H_

#include <string>
#include <vector>

#include "engine/engine.h"
#include "engine/rules/rule.h"

namespace gpulint::testing {

// The source tree the tests read testdata/ from: $GPULINT_SOURCE_DIR when set
// (./dev test runs the built suite once more over a bare copy of the clone,
// to prove it needs nothing beside it), else the tree it was built from.
std::string SourceDir();
// Every Node in `path` (a List or Node documents), as NodeClasses; fails the test on error.
std::vector<NodeClass> LoadNodes(const std::string& path);
// The inventory of `policy` with the Nodes, DeviceClasses and ResourceSlices
// of `path`, as `gpulint check --nodes` builds it; fails the test on error.
Inventory LoadInventory(const Policy& policy, const std::string& path);
// Findings for every object of every document in `path` (parse errors included).
std::vector<Finding> LintFile(const std::string& path, const Policy& policy,
                              const Inventory& inventory);
// The node rules' findings on the Nodes of `path`, with its Pods bound to
// them (spec.nodeName), as `gpulint audit` reads a cluster (ClusterAudit).
std::vector<Finding> AuditNodes(const std::string& path, const Policy& policy);
// The findings a rule's golden case is held to: LintFile for a rule of
// objects, AuditNodes (every node rule's) for a rule of nodes.
std::vector<Finding> CaseFindings(const Rule& rule, const std::string& path, const Policy& policy,
                                  const Inventory& inventory);
// "LINE:COL: SEVERITY: MESSAGE" for each finding of `rule` (all when empty);
// "Node/NAME: SEVERITY: MESSAGE" for a finding on a node.
std::vector<std::string> Render(const std::vector<Finding>& findings, const std::string& rule);
std::string ReadFile(const std::string& path);

}  // namespace gpulint::testing

#endif  // GPULINT_TESTS_GOLDEN_H_
