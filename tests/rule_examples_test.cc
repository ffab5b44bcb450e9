// Every rule's `gpulint explain` shows a failing and a fixed example; they are
// testdata/rules/<rule>/fail-example.yaml and pass-example.yaml, compiled in
// (and golden cases: fail-example.expected holds the finding). Here each runs
// through the engine with the default policy: the failing one must fire its
// rule, the fixed one must give no finding of any rule. Rule texts are for people who never
// read docs/incidents.md: they say what happened, not "incident N".
#include <algorithm>
#include <catch2/catch.hpp>
#include <cctype>
#include <filesystem>

#include "engine/policies.h"
#include "engine/rules/rule.h"
#include "tests/golden.h"

namespace fs = std::filesystem;

namespace gpulint::testing {
namespace {

struct Examples {
  std::string failing;  // path
  std::string fixed;    // path
};

Examples ExamplesOf(const RuleInfo& rule) {
  std::string dir = SourceDir() + "/testdata/rules/" + rule.name;
  return {dir + "/fail-example.yaml", dir + "/pass-example.yaml"};
}

Policy Default() {
  Policy policy;
  Error error;
  INFO(error.ToString());
  REQUIRE(LoadPolicyText(DefaultPolicyText(), "<default policy>", &policy, &error));
  return policy;
}

// A rule that needs a node inventory says so in its example's comment, as the
// user must pass --nodes too; the nodes are those of docs/incidents.md, or
// the file of testdata/nodes/ the comment names ("--nodes
// testdata/nodes/dra.yaml").
Inventory InventoryFor(const std::string& failing, const Policy& policy) {
  std::string text = ReadFile(failing);
  size_t nodes = text.find("--nodes");
  if (nodes == std::string::npos) return BuildInventory(policy, {});
  std::string file = "testdata/nodes/incidents.yaml";
  constexpr std::string_view kNamed = "--nodes testdata/nodes/";
  if (text.compare(nodes, kNamed.size(), kNamed) == 0)
    file = text.substr(nodes + 8, text.find_first_of(" \n)", nodes + 8) - nodes - 8);
  return LoadInventory(policy, SourceDir() + "/" + file);
}

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

}  // namespace

TEST_CASE("every rule's example fires it and its fixed example is clean", "[examples]") {
  Policy policy = Default();
  for (const Rule* rule : AllRules()) {
    const RuleInfo& info = rule->info;
    Examples files = ExamplesOf(info);
    INFO("rule " << info.name << " needs " << files.failing << " and " << files.fixed
                 << ", and RuleExample(\"" << info.name << "\") in its RuleInfo");
    REQUIRE(fs::exists(files.failing));
    REQUIRE(fs::exists(files.fixed));
    // What explain shows is what is tested here (CMake compiled the files in).
    REQUIRE(info.example != nullptr);
    CHECK(std::string(info.example) == ReadFile(files.failing) + "---\n" + ReadFile(files.fixed));
    CHECK(ReadFile(files.failing).rfind("# Fails", 0) == 0);
    CHECK(ReadFile(files.fixed).rfind("# Fixed", 0) == 0);

    // A rule that is off by default is on in its directory's policy.yaml.
    Policy own;
    std::string own_path = fs::path(files.failing).parent_path().string() + "/policy.yaml";
    Error error;
    bool has_own = fs::exists(own_path);
    if (has_own) REQUIRE(LoadPolicyFile(own_path, &own, &error));
    const Policy& used = has_own ? own : policy;
    Inventory inventory = InventoryFor(files.failing, used);
    std::vector<std::string> fired =
        Render(CaseFindings(*rule, files.failing, used, inventory), info.name);
    INFO(files.failing);
    CHECK(!fired.empty());
    std::vector<std::string> left = Render(CaseFindings(*rule, files.fixed, used, inventory), "");
    INFO(files.fixed);
    CHECK(left == std::vector<std::string>{});
  }
}

// What `gpulint rules` says of needs_nodes is what the rule does: a rule
// marked so fires its example only with the example's nodes, and its example
// says --nodes; every other example fires without nodes.
TEST_CASE("a rule needs nodes exactly when it is marked so", "[examples]") {
  Policy policy = Default();
  for (const Rule* rule : AllRules()) {
    const RuleInfo& info = rule->info;
    Examples files = ExamplesOf(info);
    std::string own_path = fs::path(files.failing).parent_path().string() + "/policy.yaml";
    Policy own;
    Error error;
    bool has_own = fs::exists(own_path);
    if (has_own) REQUIRE(LoadPolicyFile(own_path, &own, &error));
    const Policy& used = has_own ? own : policy;
    INFO(info.name);
    // A rule of nodes judges the nodes of its example, never a pod against
    // an inventory.
    if (info.scope == RuleScope::kNode) {
      CHECK_FALSE(info.needs_nodes);
      continue;
    }
    CHECK(info.needs_nodes == (ReadFile(files.failing).find("--nodes") != std::string::npos));
    std::vector<std::string> without =
        Render(LintFile(files.failing, used, BuildInventory(used, {})), info.name);
    CHECK(without.empty() == info.needs_nodes);
  }
}

TEST_CASE("no rule text sends the reader to an incident number", "[examples]") {
  for (const Rule* rule : AllRules()) {
    const RuleInfo& i = rule->info;
    for (const char* text : {i.title, i.rationale, i.fix, i.example}) {
      if (text == nullptr) continue;
      INFO(i.name << ": " << text);
      CHECK(Lower(text).find("incident") == std::string::npos);
    }
  }
}

}  // namespace gpulint::testing
