// The CLI's formats: compiler-style lines, JSON escaping, the summary line.
#include "lint/output/output.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "engine/rules/rule.h"
#include "lint/cli/cli.h"
#include "lint/output/rule_catalogue.h"

namespace gpulint {
namespace {

TEST_CASE("colour only on a terminal without NO_COLOR", "[output]") {
  CHECK(UseColor(true, nullptr));
  CHECK(UseColor(true, ""));
  CHECK_FALSE(UseColor(true, "1"));
  CHECK_FALSE(UseColor(false, nullptr));
}

TEST_CASE("finding text is compiler style", "[output]") {
  Finding f;
  f.rule = "gpu-fractional";
  f.severity = Severity::kError;
  f.message = "half a GPU";
  f.file = "pod.yaml";
  f.mark = {3, 7};
  struct Case {
    std::string file;
    Mark mark;
    Severity severity;
    std::string text;
  };
  const Case cases[] = {
      {"pod.yaml", {3, 7}, Severity::kError, "pod.yaml:3:7: error: half a GPU [gpu-fractional]\n"},
      {"pod.yaml",
       {3, 0},
       Severity::kWarning,
       "pod.yaml:3: warning: half a GPU [gpu-fractional]\n"},
      {"pod.yaml", {0, 0}, Severity::kInfo, "pod.yaml: info: half a GPU [gpu-fractional]\n"},
      {"", {0, 0}, Severity::kError, "error: half a GPU [gpu-fractional]\n"},
  };
  for (const Case& c : cases) {
    f.file = c.file;
    f.mark = c.mark;
    f.severity = c.severity;
    std::string out = "previous\n";
    AppendFindingText(f, false, &out);
    CHECK(out == "previous\n" + c.text);
  }
  f.file = "pod.yaml";
  f.mark = {3, 7};
  f.severity = Severity::kError;
  std::string colored;
  AppendFindingText(f, true, &colored);
  CHECK(colored ==
        "\x1b[1mpod.yaml:3:7:\x1b[0m \x1b[1;31merror:\x1b[0m half a GPU [gpu-fractional]\n");
}

TEST_CASE("summary line counts and plurals", "[output]") {
  Summary s;
  CHECK(SummaryText(s) == "0 errors, 0 warnings in 0 objects (0 files)");
  s.Count(Severity::kError);
  s.objects = 1;
  s.files = 1;
  CHECK(SummaryText(s) == "1 error, 0 warnings in 1 object (1 file)");
  s.Count(Severity::kWarning);
  s.Count(Severity::kInfo);
  s.Count(Severity::kInfo);
  s.objects = 2;
  s.files = 5;
  CHECK(SummaryText(s) == "1 error, 1 warning, 2 infos in 2 objects (5 files)");
  CHECK(s.AtLeast(Severity::kError) == 1);
  CHECK(s.AtLeast(Severity::kWarning) == 2);
  CHECK(s.AtLeast(Severity::kInfo) == 4);
}

// The bytes of --format json are part of the interface: quotes, backslashes
// and control characters escaped, UTF-8 as is, invalid UTF-8 as U+FFFD.
TEST_CASE("a JSON finding, byte for byte", "[output]") {
  Finding f;
  f.rule = "gpu-limit-missing";
  f.severity = Severity::kError;
  f.message = "say \"hi\"\\ \x01\x1f\x7f caf\xc3\xa9 \xe2\x82 \xff";
  f.file = "dir/a\tb.yaml";
  f.mark = Mark{12, 7};
  f.object = ObjectRef{"v1", "Pod", "ml", "tr</ain>"};
  f.path = "spec.containers[0]";
  CHECK(
      FindingJsonText(f) ==
      "{\"rule\":\"gpu-limit-missing\",\"severity\":\"error\","
      "\"message\":\"say \\\"hi\\\"\\\\ \\u0001\\u001f\x7f caf\xc3\xa9 \xef\xbf\xbd \xef\xbf\xbd\","
      "\"file\":\"dir/a\\tb.yaml\",\"line\":12,\"column\":7,"
      "\"object\":{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"namespace\":\"ml\",\"name\":\"tr</"
      "ain>\"},"
      "\"path\":\"spec.containers[0]\"}");
  f.fingerprint = "e0f9f5d0cac9dea1";
  CHECK_THAT(FindingJsonText(f), Catch::EndsWith(",\"fingerprint\":\"e0f9f5d0cac9dea1\"}"));
  // A chart's finding: where helm's output has it, after the rest.
  f.rendered = Mark{40, 11};
  CHECK_THAT(FindingJsonText(f),
             Catch::EndsWith(",\"fingerprint\":\"e0f9f5d0cac9dea1\",\"rendered\":{\"line\":40,"
                             "\"column\":11}}"));
}

TEST_CASE("JSON strings are escaped", "[output]") {
  Finding f;
  f.rule = "r";
  f.message = "say \"hi\"\n\\";
  f.file = "a\tb.yaml";
  std::string out = FindingJsonText(f);
  nlohmann::json j = nlohmann::json::parse(out);
  CHECK(j.at("message") == "say \"hi\"\n\\");
  CHECK(j.at("file") == "a\tb.yaml");
  CHECK(j.at("line") == 0);
}

TEST_CASE("wrapping keeps words whole and the text's own line breaks", "[output]") {
  std::string out;
  AppendWrapped("one two three four\nfive", "  ", 12, &out);
  CHECK(out == "  one two\n  three four\n  five\n");
  out.clear();
  AppendWrapped("averyveryverylongword x", "  ", 8, &out);
  CHECK(out == "  averyveryverylongword\n  x\n");
}

const Rule kFakeRule = {
    {"fake-rule", Severity::kWarning, "Pipes | in titles", "Because.", "Do this.",
     "kind: Pod\nspec:\n  containers: []\n"},
    [](const ObjectContext&, Reporter&) {},
};

TEST_CASE("markdown catalogue escapes table cells and shows examples", "[output]") {
  std::string md;
  AppendRulesMarkdown({{&kFakeRule, {true, true, false, true}}}, &md);
  CHECK(md.find("| [`fake-rule`](#fake-rule) | warning | object | yes | yes | no | yes | Pipes \\| in "
                "titles |\n") != std::string::npos);
  CHECK(md.find("\n### fake-rule\n\n**warning by default**: Pipes | in titles\n\n"
                "`gpulint fix` repairs its findings where the manifest says how. Exported as CEL "
                "by `gpulint export vap`.\n\nBecause.\n\n"
                "**Fix:** Do this.\n\n```yaml\nkind: Pod\nspec:\n  containers: []\n```\n") !=
        std::string::npos);
}

TEST_CASE("the catalogue says which rules are off, repaired, need nodes and are CEL",
          "[output]") {
  // Off by default, repaired by nothing, needing nodes, not exported.
  CatalogueRule off{&kFakeRule, {false, false, true, false}};
  std::string text;
  AppendExplanation(off, "ignore.example/", &text);
  CHECK_THAT(text, Catch::StartsWith(
                       "fake-rule (off by default; warning when enabled)\n"
                       "  Pipes | in titles\n\n"
                       "  Off in the built-in policy: enable it in spec.rules to use it.\n"
                       "  gpulint fix does not repair it.\n"
                       "  Needs a node inventory (--nodes, the policy's node classes, or the webhook's\n"
                       "  node watch): without one it reports nothing.\n"
                       "  Not exported as CEL (gpulint export vap leaves it to the webhook).\n"));
  CHECK(text.find("warning by default") == std::string::npos);
  std::string table;
  AppendRulesText({off, {&kFakeRule, {true, true, false, true}}}, &table);
  CHECK(table ==
        "RULE       SEVERITY  SCOPE   DEFAULT  FIX  NODES  CEL  TITLE\n"
        "fake-rule  warning   object  off      -    yes    -    Pipes | in titles\n"
        "fake-rule  warning   object  on       yes  -      yes  Pipes | in titles\n");
  std::string json;
  AppendRulesJson({off}, &json);
  nlohmann::json doc = nlohmann::json::parse(json);
  CHECK(doc["rules"][0]["enabledByDefault"] == false);
  CHECK(doc["rules"][0]["fixable"] == false);
  CHECK(doc["rules"][0]["needsNodes"] == true);
  CHECK(doc["rules"][0]["exportedAsCel"] == false);
  CHECK(doc["rules"][0]["scope"] == "object");
}

TEST_CASE("the catalogue says why a rule is not CEL, and what a node's rule judges", "[output]") {
  Rule node = kFakeRule;
  node.info.not_cel = "it sums a node's pods";
  node.info.scope = RuleScope::kNode;
  std::string text;
  AppendExplanation({&node, {}}, "ignore.example/", &text);
  CHECK(text.find("  It judges a node by the pods bound to it, which gpulint audit sums.\n") !=
        std::string::npos);
  CHECK(text.find("  Not exported as CEL by gpulint export vap: it sums a node's pods.\n") !=
        std::string::npos);
  // A node carries no annotation to accept a finding with: the policy turns it off.
  CHECK(text.find("annotate") == std::string::npos);
  CHECK(text.find("spec.rules") != std::string::npos);
  std::string json;
  AppendRulesJson({{&node, {}}}, &json);
  nlohmann::json doc = nlohmann::json::parse(json);
  CHECK(doc["rules"][0]["scope"] == "node");
  CHECK(doc["rules"][0]["notExportedBecause"] == "it sums a node's pods");
}

TEST_CASE("explain shows the example indented, not wrapped", "[output]") {
  std::string text;
  AppendExplanation({&kFakeRule, {}}, "ignore.example/", &text);
  CHECK(text ==
        "fake-rule (warning by default)\n"
        "  Pipes | in titles\n\n"
        "  gpulint fix does not repair it.\n"
        "  Not exported as CEL (gpulint export vap leaves it to the webhook).\n"
        "\nWhy it matters:\n  Because.\n"
        "\nHow to fix:\n  Do this.\n"
        "\nExample:\n  kind: Pod\n  spec:\n    containers: []\n"
        "\nTo accept it for one object, annotate the object (the reason is required):\n"
        "  ignore.example/fake-rule: \"why this is fine\"\n"
        "or for one of its containers only:\n"
        "  ignore.example/fake-rule.CONTAINER: \"why this is fine\"\n");
}

TEST_CASE("rules as JSON carry a null example when there is none", "[output]") {
  Rule plain = kFakeRule;
  plain.info.example = nullptr;
  std::string json;
  AppendRulesJson({{&kFakeRule, {}}, {&plain, {}}}, &json);
  nlohmann::json doc = nlohmann::json::parse(json);
  REQUIRE(doc.at("rules").size() == 2);
  CHECK(doc.at("rules").at(0).at("example") == "kind: Pod\nspec:\n  containers: []\n");
  CHECK(doc.at("rules").at(1).at("example").is_null());
  CHECK(doc.at("rules").at(1).at("severity") == "warning");
}

}  // namespace
}  // namespace gpulint
