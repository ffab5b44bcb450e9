// The CLI's help, its usage errors word for word, and the commands that
// teach the rules (rules, explain) and say the version. In-process, as
// cli_test.cc.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "engine/rules/rule.h"
#include "lint/cli/cli_test_util.h"

namespace gpulint {
namespace {

using testing::Result;
using testing::Run;
using testing::TempDir;

TEST_CASE("help names every command and exits 0", "[cli]") {
  for (const char* flag : {"--help", "-h", "help"}) {
    Result r = Run({flag});
    CHECK(r.rc == 0);
    CHECK(r.err.empty());
    for (const char* command : {"check", "rules", "explain", "version"})
      CHECK(r.out.find(std::string("gpulint ") + command) != std::string::npos);
    CHECK(r.out.find("Exit status") != std::string::npos);
  }
}

TEST_CASE("the rule the help's example explains exists", "[cli]") {
  std::string help = Run({"--help"}).out;
  size_t at = help.find("gpulint explain ");
  at = help.find("gpulint explain ", at + 1);  // the usage line comes first
  REQUIRE(at != std::string::npos);
  at += std::string_view("gpulint explain ").size();
  std::string rule = help.substr(at, help.find('\n', at) - at);
  INFO(rule);
  CHECK(FindRule(rule) != nullptr);
}

TEST_CASE("every command has its own --help", "[cli]") {
  for (const char* command : {"check", "rules", "explain", "version"}) {
    Result r = Run({command, "--help"});
    CHECK(r.rc == 0);
    CHECK(r.out.rfind(std::string("Usage: gpulint ") + command, 0) == 0);
    CHECK(Run({"help", command}).out == r.out);
  }
  Result check = Run({"check", "--help"});
  for (const char* option : {"--policy", "--nodes", "--format", "--fail-on", "--quiet"})
    CHECK(check.out.find(option) != std::string::npos);
}

TEST_CASE("no arguments prints the usage to stderr and exits 2", "[cli]") {
  Result r = Run({});
  CHECK(r.rc == 2);
  CHECK(r.out.empty());
  CHECK(r.err.find("gpulint check") != std::string::npos);
}

TEST_CASE("usage errors exit 2 with a message naming the problem", "[cli]") {
  TempDir dir;
  std::string pod = dir.Write("pod.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n");
  struct Case {
    std::vector<std::string> args;
    std::string err;
  };
  const Case cases[] = {
      {{"check", "--frobnicate", pod},
       "gpulint: error: unknown option '--frobnicate' (see 'gpulint check --help')\n"},
      {{pod, "-x"}, "gpulint: error: unknown option '-x' (see 'gpulint check --help')\n"},
      {{"check", "--node", "nodes.yaml", pod},
       "gpulint: error: unknown option '--node'; did you mean '--nodes'? (see 'gpulint check "
       "--help')\n"},
      {{"baseline", "--ouptut=b.json", pod},
       "gpulint: error: unknown option '--ouptut'; did you mean '--output'? (see 'gpulint "
       "baseline --help')\n"},
      {{"rules", "--verbose"},
       "gpulint: error: unknown option '--verbose' (see 'gpulint rules --help')\n"},
      {{"check", pod, "--policy"}, "gpulint: error: option '--policy' needs a value\n"},
      {{"check", "--format", "xml", pod},
       "gpulint: error: --format: unknown format 'xml' (choose text, json, sarif, junit or "
       "github)\n"},
      {{"check", "--format=markdown", pod},
       "gpulint: error: --format: unknown format 'markdown' (choose text, json, sarif, junit or "
       "github)\n"},
      {{"rules", "--format", "yaml"},
       "gpulint: error: --format: unknown format 'yaml' (choose text, json or markdown)\n"},
      {{"check", "--fail-on", "fatal", pod},
       "gpulint: error: --fail-on: unknown severity 'fatal' (choose error, warning, info or "
       "none)\n"},
      {{"check", "--quiet=yes", pod}, "gpulint: error: option '--quiet' takes no value\n"},
      {{"check"},
       "gpulint: error: no input: give a PATH, or - to read stdin (see 'gpulint check "
       "--help')\n"},
      {{"check", "-", "--nodes", "-"}, "gpulint: error: stdin ('-') can be read only once\n"},
      {{"chekc", pod},
       "gpulint: error: unknown command 'chekc' and no such file (commands: check, "
       "baseline, fix, audit, node-patch, quantity, policy, rules, explain, export, version, completion, help; "
       "see 'gpulint --help')\n"},
      {{"explain"}, "gpulint: error: explain needs a RULE ('gpulint rules' lists them)\n"},
      {{"version", "extra"}, "gpulint: error: version takes no arguments\n"},
  };
  for (const Case& c : cases) {
    INFO(c.args[0] << " " << (c.args.size() > 1 ? c.args[1] : ""));
    Result r = Run(c.args);
    CHECK(r.rc == 2);
    CHECK(r.err == c.err);
    CHECK(r.out.empty());
  }
}

TEST_CASE("rules lists every rule, in every format", "[cli][rules]") {
  Result text = Run({"rules"});
  Result json = Run({"rules", "--format", "json"});
  Result markdown = Run({"rules", "--format=markdown"});
  CHECK(text.rc == 0);
  CHECK(json.rc == 0);
  CHECK(markdown.rc == 0);
  nlohmann::json doc = nlohmann::json::parse(json.out);
  REQUIRE(doc.at("rules").size() == AllRules().size());
  size_t i = 0;
  for (const Rule* rule : AllRules()) {
    std::string name = rule->info.name;
    INFO(name);
    CHECK(text.out.find("\n" + name + " ") != std::string::npos);
    CHECK(text.out.find(rule->info.title) != std::string::npos);
    CHECK(markdown.out.find("| [`" + name + "`](#" + name + ") | " +
                            SeverityName(rule->info.severity) + " | ") != std::string::npos);
    CHECK(markdown.out.find("\n### " + name + "\n") != std::string::npos);
    CHECK(markdown.out.find(rule->info.rationale) != std::string::npos);
    CHECK(markdown.out.find(std::string("**Fix:** ") + rule->info.fix) != std::string::npos);
    const auto& entry = doc.at("rules").at(i++);
    CHECK(entry.at("name") == name);
    CHECK(entry.at("severity") == SeverityName(rule->info.severity));
    CHECK(entry.at("fix") == rule->info.fix);
  }
}

TEST_CASE("explain prints a rule's metadata", "[cli][rules]") {
  Result r = Run({"explain", "gpu-fractional"});
  CHECK(r.rc == 0);
  CHECK(r.out.rfind("gpu-fractional (error by default)\n", 0) == 0);
  const Rule* rule = FindRule("gpu-fractional");
  REQUIRE(rule != nullptr);
  CHECK(r.out.find(rule->info.title) != std::string::npos);
  CHECK(r.out.find("Why it matters:\n") != std::string::npos);
  CHECK(r.out.find("How to fix:\n") != std::string::npos);
  CHECK(r.out.find("ignore.gpulint.io/gpu-fractional: ") != std::string::npos);
}

TEST_CASE("explain of an unknown rule exits 2 and points at the list", "[cli][rules]") {
  Result r = Run({"explain", "no-such-rule-at-all"});
  CHECK(r.rc == 2);
  CHECK(r.err ==
        "gpulint: error: unknown rule 'no-such-rule-at-all'; 'gpulint rules' lists them\n");
  Result typo = Run({"explain", "gpu-fractionl"});
  CHECK(typo.rc == 2);
  CHECK(typo.err ==
        "gpulint: error: unknown rule 'gpu-fractionl' (did you mean 'gpu-fractional'?); "
        "'gpulint rules' lists them\n");
}

TEST_CASE("version and --version print the same line", "[cli]") {
  Result a = Run({"version"});
  Result b = Run({"--version"});
  CHECK(a.rc == 0);
  CHECK(a.out.rfind("gpulint ", 0) == 0);
  CHECK(a.out.back() == '\n');
  CHECK(a.out == b.out);
}

}  // namespace
}  // namespace gpulint
