// Runs the engine the way `gpulint check` does over one file, for the golden
// and corpus tests.
#ifndef GPULINT_TESTS_GOLDEN_H_
#define GPULINT_TESTS_GOLDEN_H_

#include <string>
#include <vector>

#include "engine/engine.h"

namespace gpulint::testing {

std::string SourceDir();
// Every Node in `path` (a List or Node documents), as NodeClasses; fails the test on error.
std::vector<NodeClass> LoadNodes(const std::string& path);
// Findings for every object of every document in `path` (parse errors included).
std::vector<Finding> LintFile(const std::string& path, const Policy& policy,
                              const Inventory& inventory);
// "LINE:COL: SEVERITY: MESSAGE" for each finding of `rule` (all when empty).
std::vector<std::string> Render(const std::vector<Finding>& findings, const std::string& rule);
std::string ReadFile(const std::string& path);

}  // namespace gpulint::testing

#endif  // GPULINT_TESTS_GOLDEN_H_
