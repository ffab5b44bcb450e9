// SARIF output checked against what the SARIF 2.1.0 schema requires and what
// GitHub code scanning reads.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

#include "engine/policies.h"
#include "engine/rules/rule.h"
#include "lint/output/formats.h"
#include "lint/output/output.h"

namespace gpulint {
namespace {

using nlohmann::json;

Finding MakeFinding(std::string rule, Severity severity, std::string file, Mark mark) {
  Finding f;
  f.rule = std::move(rule);
  f.severity = severity;
  f.message = "half a GPU: \"1.5\"\nsecond line";
  f.file = std::move(file);
  f.mark = mark;
  f.object = ObjectRef{"v1", "Pod", "ml", "train"};
  f.path = "spec.containers[0].resources.limits[\"nvidia.com/gpu\"]";
  return f;
}

json Sarif(const std::vector<Finding>& findings, const Policy* policy = nullptr,
           const std::vector<Error>& errors = {}) {
  std::ostringstream out;
  WriterOptions options;
  options.base_dir = "/work/repo";
  options.policy = policy;
  std::unique_ptr<FindingWriter> writer = FindOutputFormat("sarif")->make(options, out);
  for (const Finding& f : findings) writer->Add(f);
  for (const Error& e : errors) writer->AddError(e);
  writer->Finish(Summary());
  writer.reset();
  INFO(out.str());
  return json::parse(out.str());
}

bool IsText(const json& message) {
  return message.is_object() && message.contains("text") && message["text"].is_string();
}

bool IsLevel(const json& level) {
  return level.is_string() &&
         std::set<std::string>{"none", "note", "warning", "error"}.count(level) == 1;
}

// A location's physicalLocation: an artifact with a URI, a region from 1.
void CheckPhysicalLocation(const json& location) {
  if (!location.contains("physicalLocation")) return;
  const json& physical = location["physicalLocation"];
  CHECK(physical.at("artifactLocation").at("uri").is_string());
  if (physical.contains("region")) {
    CHECK(physical["region"].at("startLine").get<int>() >= 1);
    if (physical["region"].contains("startColumn"))
      CHECK(physical["region"]["startColumn"].get<int>() >= 1);
  }
}

// The "required" lists and enums of the SARIF 2.1.0 schema for the parts
// gpulint writes, plus GitHub's own demands (a location per result).
void CheckSchema(const json& log) {
  REQUIRE(log.is_object());
  CHECK(log.at("version") == "2.1.0");
  CHECK(log.at("$schema").is_string());
  REQUIRE(log.at("runs").is_array());
  REQUIRE(log.at("runs").size() == 1);
  const json& run = log["runs"][0];
  const json& driver = run.at("tool").at("driver");
  CHECK(driver.at("name") == "gpulint");
  CHECK(driver.at("version").is_string());
  const json& rules = driver.at("rules");
  REQUIRE(rules.is_array());
  std::set<std::string> ids;
  for (const json& rule : rules) {
    INFO(rule.dump());
    CHECK(rule.at("id").is_string());
    CHECK(ids.insert(rule["id"].get<std::string>()).second);  // ids are unique
    CHECK(IsText(rule.at("shortDescription")));
    CHECK(IsText(rule.at("fullDescription")));
    CHECK(IsText(rule.at("help")));
    CHECK(rule.at("help").at("markdown").is_string());
    CHECK(IsLevel(rule.at("defaultConfiguration").at("level")));
  }
  REQUIRE(run.at("results").is_array());
  for (const json& result : run["results"]) {
    INFO(result.dump());
    CHECK(IsText(result.at("message")));
    CHECK(IsLevel(result.at("level")));
    size_t index = result.at("ruleIndex");
    REQUIRE(index < rules.size());
    CHECK(rules[index].at("id") == result.at("ruleId"));
    if (!result.contains("locations")) continue;
    for (const json& location : result["locations"]) CheckPhysicalLocation(location);
  }
  // invocation: "executionSuccessful" required; a notification requires a
  // message, its level one of four, its locations locations.
  REQUIRE(run.at("invocations").is_array());
  for (const json& invocation : run["invocations"]) {
    INFO(invocation.dump());
    CHECK(invocation.at("executionSuccessful").is_boolean());
    if (!invocation.contains("toolExecutionNotifications")) continue;
    REQUIRE(invocation["toolExecutionNotifications"].is_array());
    for (const json& notification : invocation["toolExecutionNotifications"]) {
      CHECK(IsText(notification.at("message")));
      if (notification.contains("level")) CHECK(IsLevel(notification["level"]));
      if (!notification.contains("locations")) continue;
      REQUIRE(notification["locations"].is_array());
      for (const json& location : notification["locations"]) CheckPhysicalLocation(location);
    }
  }
}

TEST_CASE("sarif: every rule, with its title, rationale and fix", "[output][sarif]") {
  json log = Sarif({});
  CheckSchema(log);
  const json& rules = log["runs"][0]["tool"]["driver"]["rules"];
  // The rules of objects: `check` reports on nothing else (the audit lists
  // the rules of nodes after them, WriterOptions::extra_rules).
  std::vector<const RuleInfo*> object_rules;
  for (const Rule* rule : AllRules())
    if (rule->info.scope == RuleScope::kObject) object_rules.push_back(&rule->info);
  REQUIRE(object_rules.size() < AllRules().size());
  REQUIRE(rules.size() == object_rules.size());
  for (size_t i = 0; i < object_rules.size(); ++i) {
    const RuleInfo& info = *object_rules[i];
    INFO(info.name);
    CHECK(rules[i]["id"] == info.name);
    CHECK(rules[i]["shortDescription"]["text"] == info.title);
    // Code scanning takes 1,024 characters of description: a longer
    // rationale keeps its whole sentences that fit, and is whole in the help.
    std::string description = rules[i]["fullDescription"]["text"];
    std::string rationale = info.rationale;
    std::string markdown = rules[i]["help"]["markdown"];
    CHECK(rules[i]["help"]["text"] == info.fix);
    if (rationale.size() <= 1024) {
      CHECK(description == rationale);
      CHECK(markdown.rfind(std::string("**Fix:** ") + info.fix, 0) == 0);
    } else {
      CHECK(description.size() <= 1024);
      CHECK(description.ends_with("."));
      CHECK(rationale.rfind(description, 0) == 0);
      CHECK(markdown.rfind("**Why:** " + rationale + "\n\n**Fix:** " + info.fix, 0) == 0);
    }
    if (info.example != nullptr) CHECK(markdown.ends_with("\n```\n"));
    const char* level = info.severity == Severity::kError     ? "error"
                        : info.severity == Severity::kWarning ? "warning"
                                                              : "note";
    CHECK(rules[i]["defaultConfiguration"]["level"] == level);
  }
  CHECK(log["runs"][0]["results"] == json::array());
  CHECK(log["runs"][0]["originalUriBaseIds"]["%SRCROOT%"]["uri"] == "file:///work/repo/");
  for (const json& rule : rules)
    if (rule["id"] == "gpu-limit-missing") CHECK(rule["name"] == "GpuLimitMissing");
}

TEST_CASE("sarif: a result per finding, with file, line, column and level", "[output][sarif]") {
  json log = Sarif({
      MakeFinding("gpu-fractional", Severity::kError, "k8s/pod.yaml", {11, 25}),
      MakeFinding("removed-annotation", Severity::kWarning, "/work/repo/k8s/ds.yaml", {5, 0}),
      MakeFinding("quantity-milli-memory", Severity::kInfo, "/elsewhere/x.yaml", {0, 0}),
      MakeFinding("parse-error", Severity::kError, "<stdin>", {2, 1}),
  });
  CheckSchema(log);
  const json& results = log["runs"][0]["results"];
  // stdin is no file: not a result (code scanning refuses one in no file),
  // but a notification, so that it is not lost.
  REQUIRE(results.size() == 3);
  CHECK(results[0]["ruleId"] == "gpu-fractional");
  CHECK(results[0]["level"] == "error");
  CHECK(results[0]["message"]["text"] == "half a GPU: \"1.5\"\nsecond line");
  const json& first = results[0]["locations"][0];
  CHECK(first["physicalLocation"] ==
        json::parse(R"({"artifactLocation": {"uri": "k8s/pod.yaml", "uriBaseId": "%SRCROOT%"},
                        "region": {"startLine": 11, "startColumn": 25}})"));
  CHECK(first["logicalLocations"][0]["fullyQualifiedName"] == "Pod/ml/train");
  CHECK(results[0]["properties"]["path"] ==
        "spec.containers[0].resources.limits[\"nvidia.com/gpu\"]");
  // Absolute paths inside the current directory become relative; no column
  // known, none written.
  CHECK(results[1]["level"] == "warning");
  CHECK(results[1]["locations"][0]["physicalLocation"] ==
        json::parse(R"({"artifactLocation": {"uri": "k8s/ds.yaml", "uriBaseId": "%SRCROOT%"},
                        "region": {"startLine": 5}})"));
  CHECK(results[2]["level"] == "note");
  // No line known: line 1, as code scanning needs one.
  CHECK(results[2]["locations"][0]["physicalLocation"] ==
        json::parse(R"({"artifactLocation": {"uri": "file:///elsewhere/x.yaml"},
                        "region": {"startLine": 1}})"));
  const json& notifications = log["runs"][0]["invocations"][0]["toolExecutionNotifications"];
  REQUIRE(notifications.size() == 1);
  CHECK(notifications[0]["level"] == "warning");
  CHECK(notifications[0]["message"]["text"].get<std::string>().rfind(
            "a finding in no file, so not a result: ", 0) == 0);
  CHECK(log["runs"][0]["invocations"][0]["executionSuccessful"] == true);
}

TEST_CASE("sarif: the policy's severities and disabled rules", "[output][sarif]") {
  Policy policy;
  Error error;
  REQUIRE(
      LoadPolicyText("apiVersion: gpulint.io/v1alpha1\nkind: Policy\nspec:\n  rules:\n"
                     "    gpu-fractional: {severity: warning}\n"
                     "    removed-annotation: {enabled: false}\n",
                     "<policy>", &policy, &error));
  json log = Sarif({}, &policy);
  for (const json& rule : log["runs"][0]["tool"]["driver"]["rules"]) {
    if (rule["id"] == "gpu-fractional") CHECK(rule["defaultConfiguration"]["level"] == "warning");
    if (rule["id"] == "removed-annotation") CHECK(rule["defaultConfiguration"]["enabled"] == false);
  }
}

TEST_CASE("sarif: a clean run's invocation succeeded", "[output][sarif][input-error]") {
  json log = Sarif({MakeFinding("gpu-fractional", Severity::kError, "k8s/pod.yaml", {11, 25})});
  CheckSchema(log);
  CHECK(log["runs"][0]["invocations"] == json::parse(R"([{"executionSuccessful": true}])"));
}

// The old log of `gpulint check --format sarif nosuch.yaml`, "results": []
// and nothing else, read as a clean run and closed every alert.
TEST_CASE("sarif: input errors make a failed invocation, a notification each",
          "[output][sarif][input-error]") {
  json log = Sarif({}, nullptr,
                   {{"k8s/nosuch.yaml", {}, "no such file or directory"},
                    {"/work/repo/k8s/.gpulint.yaml", {4, 13}, "did not find expected ']'"},
                    {"<stdin>", {}, "read failed: is a directory"},
                    {"", {}, "no manifests found (no PATH given)"}});
  CheckSchema(log);
  const json& run = log["runs"][0];
  CHECK(run["results"] == json::array());
  CHECK(run["invocations"] == json::parse(R"j([{
    "executionSuccessful": false,
    "toolExecutionNotifications": [
      {"level": "error", "message": {"text": "no such file or directory"},
       "locations": [{"physicalLocation": {
         "artifactLocation": {"uri": "k8s/nosuch.yaml", "uriBaseId": "%SRCROOT%"}}}]},
      {"level": "error", "message": {"text": "did not find expected ']'"},
       "locations": [{"physicalLocation": {
         "artifactLocation": {"uri": "k8s/.gpulint.yaml", "uriBaseId": "%SRCROOT%"},
         "region": {"startLine": 4, "startColumn": 13}}}]},
      {"level": "error", "message": {"text": "<stdin>: read failed: is a directory"}},
      {"level": "error", "message": {"text": "no manifests found (no PATH given)"}}]}])j"));
}

// Results and notifications in one log: the invocation follows the results.
TEST_CASE("sarif: findings and an input error in one log", "[output][sarif][input-error]") {
  json log = Sarif({MakeFinding("gpu-fractional", Severity::kError, "k8s/pod.yaml", {11, 25})},
                   nullptr, {{"chart", {}, "cannot run helm template: not found"}});
  CheckSchema(log);
  CHECK(log["runs"][0]["results"].size() == 1);
  CHECK(log["runs"][0]["invocations"][0]["executionSuccessful"] == false);
}

TEST_CASE("SarifUri: relative to the base directory, else file://, percent-encoded",
          "[output][sarif]") {
  struct Case {
    const char* file;
    const char* base;
    const char* uri;
  };
  const Case cases[] = {
      {"k8s/pod.yaml", "/repo", "k8s/pod.yaml"},
      {"./k8s/../k8s/pod.yaml", "/repo", "k8s/pod.yaml"},
      {"/repo/a b/pod#1.yaml", "/repo", "a%20b/pod%231.yaml"},
      {"/other/pod.yaml", "/repo", "file:///other/pod.yaml"},
      {"../outside.yaml", "/repo/sub", "file:///repo/outside.yaml"},
      {"/repo", "", "file:///repo"},
      {"k8s/\xC3\xA9.yaml", "/repo", "k8s/%C3%A9.yaml"},
  };
  for (const Case& c : cases) {
    INFO(c.file << " in " << c.base);
    CHECK(SarifUri(c.file, c.base) == c.uri);
  }
}

}  // namespace
}  // namespace gpulint
