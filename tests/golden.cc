#include "tests/golden.h"

#include <fcntl.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "engine/cluster/nodes_file.h"
#include "engine/object_stream.h"
#include "engine/yaml/loader.h"
#include "lint/cli/audit.h"
#include "lint/input/inputs.h"

namespace gpulint::testing {

std::string SourceDir() {
  const char* dir = std::getenv("GPULINT_SOURCE_DIR");
  return dir && *dir ? dir : GPULINT_SOURCE_DIR;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<NodeClass> LoadNodes(const std::string& path) {
  std::vector<NodeClass> nodes;
  Error error;
  bool ok = LoadNodesFile(path, STDIN_FILENO, &nodes, &error);
  INFO(error.ToString());
  REQUIRE(ok);
  return nodes;
}

Inventory LoadInventory(const Policy& policy, const std::string& path) {
  NodesFile file;
  Error error;
  bool ok = LoadNodesFile(path, STDIN_FILENO, &file, &error);
  INFO(error.ToString());
  REQUIRE(ok);
  return BuildInventoryFrom(policy, std::move(file));
}

std::vector<Finding> LintFile(const std::string& path, const Policy& policy,
                              const Inventory& inventory) {
  std::vector<Finding> findings;
  ObjectStream stream(policy, inventory);  // as `gpulint check` reads a file
  Error error;
  bool ok = LoadYamlFile(
      path, LoadLimits(),
      [&](Document&& doc) {
        if (!doc.ok) {
          findings.push_back(ParseErrorFinding(doc.error));
          return true;
        }
        stream.Judge(doc.root, path, [&](JudgedObject& judged) {
          for (Finding& f : judged.findings) findings.push_back(std::move(f));
        });
        return true;
      },
      &error);
  INFO(error.ToString());
  REQUIRE(ok);
  return findings;
}

std::vector<Finding> AuditNodes(const std::string& path, const Policy& policy) {
  std::vector<Value> nodes, pods;
  Error error;
  bool ok = LoadYamlFile(
      path, LoadLimits(),
      [&](Document&& doc) {
        REQUIRE(doc.ok);
        (doc.root.StringAt("kind") == "Node" ? nodes : pods).push_back(std::move(doc.root));
        return true;
      },
      &error);
  INFO(error.ToString());
  REQUIRE(ok);
  ClusterAudit audit(policy);
  for (const Value& node : nodes) audit.AddNode(node, path);
  REQUIRE(audit.node_errors().empty());
  for (const Value& pod : pods) {
    REQUIRE(pod.StringAt("kind") == "Pod");
    audit.AddPod(pod);
  }
  std::vector<Finding> findings;
  for (NodeReport& node : audit.Finish().nodes)
    for (Finding& f : node.findings) findings.push_back(std::move(f));
  return findings;
}

std::vector<Finding> CaseFindings(const Rule& rule, const std::string& path, const Policy& policy,
                                  const Inventory& inventory) {
  if (rule.info.scope == RuleScope::kNode) return AuditNodes(path, policy);
  return LintFile(path, policy, inventory);
}

std::vector<std::string> Render(const std::vector<Finding>& findings, const std::string& rule) {
  std::vector<std::string> lines;
  for (const Finding& f : findings) {
    if (!rule.empty() && f.rule != rule) continue;
    std::string where = f.object.kind == "Node" && f.mark.line == 0
                            ? "Node/" + f.object.name
                            : std::to_string(f.mark.line) + ":" + std::to_string(f.mark.column);
    lines.push_back(where + ": " + SeverityName(f.severity) + ": " + f.message);
  }
  return lines;
}

}  // namespace gpulint::testing
