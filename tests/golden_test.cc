// Golden cases, one directory per rule (Polaris style): testdata/rules/<rule>/
//   pass-*.yaml     must give no finding of the rule
//   fail-*.yaml     must give exactly the findings in fail-*.expected
//                   ("LINE:COL: SEVERITY: MESSAGE", one per line)
//   policy.yaml     optional policy for the directory (else the default policy)
//   nodes.yaml      optional node inventory (kubectl get nodes,deviceclasses,
//                   resourceslices -o yaml)
//   nodes-NAME.yaml the inventory of the case pass-NAME or fail-NAME alone,
//                   in place of nodes.yaml
// A rule of nodes (RuleScope::kNode) has Nodes and the Pods bound to them in
// each case, read as `gpulint audit` reads a cluster; its findings are
// "Node/NAME: SEVERITY: MESSAGE".
// and one directory per workload kind: testdata/workloads/<kind>/, the same
// files judged by every rule, each expected finding with its rule and path
//   ("LINE:COL: SEVERITY: [RULE] PATH: MESSAGE"): a finding in a CRD must point
//   at the CRD's own line and field.
// GPULINT_UPDATE_GOLDEN=1 rewrites the .expected files (review the diff!).
#include "tests/golden.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "engine/policies.h"
#include "engine/rules/rule.h"

namespace fs = std::filesystem;

namespace gpulint::testing {
namespace {

fs::path RulesDir() { return fs::path(SourceDir()) / "testdata" / "rules"; }

std::vector<fs::path> Cases(const fs::path& dir, const std::string& prefix) {
  std::vector<fs::path> out;
  if (!fs::is_directory(dir)) return out;
  for (const auto& e : fs::directory_iterator(dir)) {
    std::string name = e.path().filename().string();
    if (name.rfind(prefix, 0) == 0 && (e.path().extension() == ".yaml" || e.path().extension() == ".json"))
      out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

struct DirSetup {
  Policy policy;
  Inventory inventory;
};

DirSetup SetupFor(const fs::path& dir) {
  DirSetup s;
  fs::path policy = dir / "policy.yaml";
  if (fs::exists(policy)) {
    Error error;
    INFO(error.ToString());
    REQUIRE(LoadPolicyFile(policy.string(), &s.policy, &error));
  } else {
    Error error;
    REQUIRE(LoadPolicyText(DefaultPolicyText(), "<default policy>", &s.policy, &error));
  }
  s.inventory = fs::exists(dir / "nodes.yaml")
                    ? LoadInventory(s.policy, (dir / "nodes.yaml").string())
                    : BuildInventory(s.policy, {});
  return s;
}

// The inventory a case is judged against: its own nodes-NAME.yaml, else the
// directory's.
Inventory InventoryFor(const fs::path& file, const DirSetup& setup) {
  std::string stem = file.stem().string();
  fs::path own = file.parent_path() / ("nodes-" + stem.substr(stem.find('-') + 1) + ".yaml");
  if (!fs::exists(own)) return setup.inventory;
  return LoadInventory(setup.policy, own.string());
}

std::string Relative(const fs::path& p) { return fs::relative(p, SourceDir()).string(); }

// `lines`, or the .expected file beside `file` when updating it.
void CheckExpected(const fs::path& file, const std::vector<std::string>& got, bool update) {
  fs::path expected_path = file;
  expected_path.replace_extension(".expected");
  if (update) {
    std::ofstream out(expected_path);
    for (const std::string& line : got) out << line << "\n";
    return;
  }
  REQUIRE(fs::exists(expected_path));
  std::vector<std::string> expected;
  std::ifstream in(expected_path);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) expected.push_back(line);
  CHECK(!got.empty());
  CHECK(got == expected);
}

std::vector<std::string> RenderWithPaths(const std::vector<Finding>& findings) {
  std::vector<std::string> lines;
  for (const Finding& f : findings)
    lines.push_back(std::to_string(f.mark.line) + ":" + std::to_string(f.mark.column) + ": " +
                    SeverityName(f.severity) + ": [" + f.rule + "] " + f.path + ": " + f.message);
  return lines;
}

}  // namespace

TEST_CASE("every rule has passing and failing golden cases", "[golden]") {
  for (const Rule* rule : AllRules()) {
    fs::path dir = RulesDir() / rule->info.name;
    INFO("rule " << rule->info.name << " needs " << Relative(dir) << "/pass-*.yaml and fail-*.yaml");
    CHECK(!Cases(dir, "pass-").empty());
    CHECK(!Cases(dir, "fail-").empty());
  }
}

TEST_CASE("every golden directory names a registered rule", "[golden]") {
  for (const auto& e : fs::directory_iterator(RulesDir())) {
    INFO(Relative(e.path()));
    CHECK(FindRule(e.path().filename().string()) != nullptr);
  }
}

TEST_CASE("rules have complete metadata", "[golden]") {
  for (const Rule* rule : AllRules()) {
    const RuleInfo& i = rule->info;
    INFO(i.name);
    std::string name = i.name;
    CHECK(name.find_first_not_of("abcdefghijklmnopqrstuvwxyz-") == std::string::npos);
    CHECK(std::string(i.title).size() > 10);
    CHECK(std::string(i.rationale).size() > 40);
    CHECK(std::string(i.fix).size() > 20);
    // A rule of objects or of nodes, with the check its scope calls.
    if (i.scope == RuleScope::kObject) {
      CHECK(rule->check != nullptr);
      CHECK(rule->check_node == nullptr);
    } else {
      CHECK(rule->check == nullptr);
      CHECK(rule->check_node != nullptr);
    }
  }
}

TEST_CASE("golden cases give the expected findings", "[golden]") {
  const bool update = std::getenv("GPULINT_UPDATE_GOLDEN") != nullptr;
  for (const Rule* rule : AllRules()) {
    const std::string name = rule->info.name;
    fs::path dir = RulesDir() / name;
    if (!fs::is_directory(dir)) continue;
    DirSetup setup = SetupFor(dir);
    for (const fs::path& file : Cases(dir, "pass-")) {
      INFO(Relative(file));
      auto findings = Render(
          CaseFindings(*rule, file.string(), setup.policy, InventoryFor(file, setup)), name);
      CHECK(findings == std::vector<std::string>{});
    }
    for (const fs::path& file : Cases(dir, "fail-")) {
      INFO(Relative(file));
      CheckExpected(
          file,
          Render(CaseFindings(*rule, file.string(), setup.policy, InventoryFor(file, setup)), name),
          update);
    }
  }
}

TEST_CASE("a policy turns a rule of nodes off, or sets its severity, as any rule's",
          "[golden][node-rules]") {
  auto load = [](const std::string& rules) {
    Policy changed;
    Error error;
    INFO(error.ToString());
    REQUIRE(LoadPolicyText("apiVersion: gpulint.io/v1alpha1\nkind: Policy\nmetadata: {name: t}\n"
                           "spec:\n  rules:\n" + rules,
                           "t.yaml", &changed, &error));
    return changed;
  };
  std::string sharing = (RulesDir() / "node-gpu-sharing" / "fail-example.yaml").string();
  std::vector<std::string> by_default = Render(AuditNodes(sharing, DefaultPolicy()), "");
  REQUIRE(by_default.size() == 2);
  CHECK(by_default[0].rfind("Node/t4-1: error: ", 0) == 0);
  Policy warning = load("    node-gpu-sharing: {severity: warning}\n");
  std::vector<std::string> warned = Render(AuditNodes(sharing, warning), "node-gpu-sharing");
  REQUIRE(warned.size() == 2);
  CHECK(warned[0].rfind("Node/t4-1: warning: ", 0) == 0);
  Policy off = load("    node-gpu-sharing: {enabled: false}\n");
  CHECK(Render(AuditNodes(sharing, off), "node-gpu-sharing").empty());
  // The others still run: the memory limits here add up past the node.
  std::string limits = (RulesDir() / "node-memory-limits" / "fail-example.yaml").string();
  CHECK(Render(AuditNodes(limits, off), "node-memory-limits").size() == 1);
  CHECK(Render(AuditNodes(limits, load("    node-memory-limits: {enabled: false}\n")), "").empty());
}

TEST_CASE("workload kinds give the expected findings at their own paths", "[golden][workloads]") {
  const bool update = std::getenv("GPULINT_UPDATE_GOLDEN") != nullptr;
  fs::path root = fs::path(SourceDir()) / "testdata" / "workloads";
  REQUIRE(fs::is_directory(root));
  size_t dirs = 0;
  for (const auto& e : fs::directory_iterator(root)) {
    if (!e.is_directory()) continue;
    ++dirs;
    INFO(Relative(e.path()));
    CHECK(!Cases(e.path(), "pass-").empty());
    CHECK(!Cases(e.path(), "fail-").empty());
    DirSetup setup = SetupFor(e.path());
    for (const fs::path& file : Cases(e.path(), "pass-")) {
      INFO(Relative(file));
      CHECK(RenderWithPaths(LintFile(file.string(), setup.policy, setup.inventory)) ==
            std::vector<std::string>{});
    }
    for (const fs::path& file : Cases(e.path(), "fail-")) {
      INFO(Relative(file));
      CheckExpected(file, RenderWithPaths(LintFile(file.string(), setup.policy, setup.inventory)),
                    update);
    }
  }
  CHECK(dirs >= 15);
}

}  // namespace gpulint::testing
