// Input errors in every output format: whatever fails (a file, a chart, a
// policy, the nodes, the baseline), `gpulint check` exits 2, says so on
// stderr, and writes a whole document in the chosen format that carries the
// error, so that CI cannot take the run for a clean one.
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/rules/rule.h"
#include "lint/cli/cli_test_util.h"
#include "lint/output/formats.h"

namespace gpulint {
namespace {

// The rules `check` reports on, which its SARIF lists: those of objects.
std::vector<const Rule*> ObjectRules() {
  std::vector<const Rule*> out;
  for (const Rule* rule : AllRules())
    if (rule->info.scope == RuleScope::kObject) out.push_back(rule);
  return out;
}

using nlohmann::json;
using testing::EnvVar;
using testing::InDirectory;
using testing::Result;
using testing::Run;
using testing::TempDir;

constexpr char kConfigMap[] =
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  a: b\n";

// The one "gpulint: error: " line of stderr, without that prefix.
std::string StderrError(const Result& r) {
  const std::string prefix = "gpulint: error: ";
  size_t at = r.err.find(prefix);
  REQUIRE(at != std::string::npos);
  CHECK(r.err.find(prefix, at + 1) == std::string::npos);
  size_t end = r.err.find('\n', at);
  return r.err.substr(at + prefix.size(), end - at - prefix.size());
}

// The message of `error_text` ("file:line:col: message"), given its file.
std::string MessageOf(const std::string& error_text, const std::string& file) {
  REQUIRE(error_text.rfind(file, 0) == 0);
  std::string rest = error_text.substr(file.size());
  // ":12:7: message", ":12: message" or ": message"
  size_t colon_space = rest.find(": ");
  REQUIRE(colon_space != std::string::npos);
  return rest.substr(colon_space + 2);
}

// That `out`, written in `format`, is a whole document carrying the error
// that stderr shows as `error_text`, about `file`.
void CheckCarries(std::string_view format, const std::string& out, const std::string& error_text,
                  const std::string& file) {
  INFO(format << " output:\n" << out);
  std::string message = MessageOf(error_text, file);
  if (format == "text") {
    CHECK(out.find(message) == std::string::npos);  // stderr only, as ever
  } else if (format == "json") {
    json doc = json::parse(out);
    REQUIRE(doc.at("errors").size() == 1);
    const json& e = doc["errors"][0];
    Error error{e.at("file"), {e.at("line"), e.at("column")}, e.at("message")};
    CHECK(error.ToString() == error_text);
    CHECK(doc.at("summary").is_object());
  } else if (format == "sarif") {
    json run = json::parse(out).at("runs").at(0);
    CHECK(run.at("tool").at("driver").at("rules").size() == ObjectRules().size());
    const json& invocation = run.at("invocations").at(0);
    CHECK(invocation.at("executionSuccessful") == false);
    REQUIRE(invocation.at("toolExecutionNotifications").size() == 1);
    const json& n = invocation["toolExecutionNotifications"][0];
    CHECK(n.at("level") == "error");
    CHECK(n.at("message").at("text") == message);
    std::string uri =
        n.at("locations").at(0).at("physicalLocation").at("artifactLocation").at("uri");
    CHECK(uri == "file://" + file);
  } else if (format == "junit") {
    CHECK(out.rfind("<?xml", 0) == 0);
    CHECK(out.ends_with("</testsuites>\n"));
    CHECK(out.find("errors=\"1\"") != std::string::npos);
    CHECK(out.find("<error type=\"input-error\" message=\"") != std::string::npos);
    CHECK(out.find("classname=\"" + file + "\"") != std::string::npos);
  } else if (format == "github") {
    CHECK(out.rfind("::error file=" + file, 0) == 0);
    CHECK(out.find(",title=gpulint::") != std::string::npos);
  } else {
    FAIL("a format this test does not know: " << format);
  }
}

// One kind of input error: what to set up, the arguments (--format follows
// "check"), the file the error is about, and the helm on PATH.
enum class Helm { kFails, kRendersNothing, kNone };
struct ErrorCase {
  const char* name;
  std::function<std::vector<std::string>(const TempDir&)> args;
  const char* file;  // under the temporary directory
  Helm helm = Helm::kFails;
};

const std::string kBadYaml =
    "apiVersion: gpulint.io/v1alpha1\nkind: Policy\nspec:\n  reserved: [1, 2\n";

const ErrorCase kCases[] = {
    {"a missing file",
     [](const TempDir& d) { return std::vector<std::string>{d.path() + "/nosuch.yaml"}; },
     "nosuch.yaml"},
    {"a chart that does not render",
     [](const TempDir& d) {
       d.Write("chart/Chart.yaml", "apiVersion: v2\nname: chart\nversion: 1.0.0\n");
       return std::vector<std::string>{d.path() + "/chart"};
     },
     "chart"},
    {"a chart and no helm",
     [](const TempDir& d) {
       d.Write("nohelm/Chart.yaml", "apiVersion: v2\nname: nohelm\nversion: 1.0.0\n");
       return std::vector<std::string>{d.path() + "/nohelm"};
     },
     "nohelm", Helm::kNone},
    {"a chart that renders nothing",
     [](const TempDir& d) {
       d.Write("chart/Chart.yaml", "apiVersion: v2\nname: chart\nversion: 1.0.0\n");
       return std::vector<std::string>{d.path() + "/chart/templates/pod.yaml"};
     },
     "chart/templates/pod.yaml", Helm::kRendersNothing},
    {"a directory with no manifest",
     [](const TempDir& d) {
       d.Write("docs/README.md", "# not a manifest\n");
       return std::vector<std::string>{d.path() + "/docs"};
     },
     "docs"},
    {"a directory with nothing but a policy",
     [](const TempDir& d) {
       d.Write("k8s/.gpulint.yaml", "apiVersion: gpulint.io/v1alpha1\nkind: Policy\n");
       return std::vector<std::string>{d.path() + "/k8s"};
     },
     "k8s"},
    {"a file of comments",
     [](const TempDir& d) {
       return std::vector<std::string>{d.Write("cm.yaml", kConfigMap),
                                       d.Write("empty.yaml", "# x\n")};
     },
     "empty.yaml"},
    {"an invalid --policy",
     [](const TempDir& d) {
       return std::vector<std::string>{"--policy", d.Write("policy.yaml", kBadYaml),
                                       d.Write("cm.yaml", kConfigMap)};
     },
     "policy.yaml"},
    {"an invalid --nodes file",
     [](const TempDir& d) {
       return std::vector<std::string>{"--nodes", d.Write("nodes.yaml", kConfigMap),
                                       d.Write("cm.yaml", kConfigMap)};
     },
     "nodes.yaml"},
    {"an invalid --baseline",
     [](const TempDir& d) {
       return std::vector<std::string>{"--baseline", d.Write("baseline.json", "{\"version\": 9}"),
                                       d.Write("cm.yaml", kConfigMap)};
     },
     "baseline.json"},
    {"an invalid .gpulint.yaml found by discovery",
     [](const TempDir& d) {
       d.Write("repo/.git/HEAD", "");
       d.Write("repo/.gpulint.yaml", kBadYaml);
       return std::vector<std::string>{d.Write("repo/cm.yaml", kConfigMap)};
     },
     "repo/.gpulint.yaml"},
};

TEST_CASE("every kind of input error exits 2 and is in every format's document",
          "[cli][input-error]") {
  // helm, for the charts: one that fails as helm does, one that prints
  // nothing, or none at all.
  TempDir tools;
  std::string fails =
      tools.Write("fails/helm", "#!/bin/sh\necho 'Error: chart is broken' >&2\nexit 1\n");
  std::string silent = tools.Write("silent/helm", "#!/bin/sh\nexit 0\n");
  for (const std::string& helm : {fails, silent}) REQUIRE(chmod(helm.c_str(), 0755) == 0);
  for (const ErrorCase& c : kCases) {
    EnvVar path("PATH", tools.path() + (c.helm == Helm::kFails            ? "/fails"
                                        : c.helm == Helm::kRendersNothing ? "/silent"
                                                                          : "/none"));
    for (const OutputFormat* format : OutputFormats()) {
      INFO(c.name << ", --format " << format->name);
      TempDir dir;
      std::vector<std::string> args = {"check", "--format", std::string(format->name)};
      for (std::string& arg : c.args(dir)) args.push_back(std::move(arg));
      Result r = Run(args);
      INFO(r.err);
      CHECK(r.rc == 2);
      std::string file = dir.path() + "/" + c.file;
      std::string error_text = StderrError(r);
      CHECK(error_text.rfind(file + ":", 0) == 0);
      CheckCarries(format->name, r.out, error_text, file);
    }
  }
}

// What the old log said: "results": [] and no invocation, a clean run to
// code scanning, which then closed every open alert.
TEST_CASE("check --format sarif on a missing file is a failed run, not an empty clean log",
          "[cli][sarif][input-error]") {
  TempDir dir;
  Result r = Run({"check", "--format", "sarif", dir.path() + "/nosuch.yaml"});
  CHECK(r.rc == 2);
  json run = json::parse(r.out).at("runs").at(0);
  CHECK(run.at("results") == json::array());
  REQUIRE(run.contains("invocations"));
  CHECK(run["invocations"][0].at("executionSuccessful") == false);
  CHECK(run["invocations"][0].at("toolExecutionNotifications").at(0).at("message").at("text") ==
        "no such file or directory");
}

TEST_CASE("a failed run's SARIF lists the built-in rules when no policy loaded",
          "[cli][sarif][input-error]") {
  TempDir dir;
  std::string policy = dir.Write("policy.yaml", kBadYaml);
  Result r =
      Run({"check", "--format", "sarif", "--policy", policy, dir.Write("cm.yaml", kConfigMap)});
  CHECK(r.rc == 2);
  json run = json::parse(r.out).at("runs").at(0);
  const json& rules = run.at("tool").at("driver").at("rules");
  REQUIRE(rules.size() == ObjectRules().size());
  for (size_t i = 0; i < rules.size(); ++i) CHECK(rules[i].at("id") == ObjectRules()[i]->info.name);
  CHECK_FALSE(run.contains("properties"));  // no policy judged anything
  const json& location = run.at("invocations")
                             .at(0)
                             .at("toolExecutionNotifications")
                             .at(0)
                             .at("locations")
                             .at(0)
                             .at("physicalLocation");
  CHECK(location.at("region").at("startLine") == 5);  // where the flow sequence is cut off
}

TEST_CASE("a clean run: JSON's errors empty, SARIF's invocation successful", "[cli][input-error]") {
  TempDir dir;
  std::string cm = dir.Write("cm.yaml", kConfigMap);
  Result j = Run({"check", "--format", "json", cm});
  CHECK(j.rc == 0);
  CHECK(json::parse(j.out).at("errors") == json::array());
  Result s = Run({"check", "--format", "sarif", cm});
  CHECK(s.rc == 0);
  CHECK(json::parse(s.out).at("runs").at(0).at("invocations") ==
        json::parse(R"([{"executionSuccessful": true}])"));
}

TEST_CASE("a file that cannot be read among good ones: findings and the error in one document",
          "[cli][input-error]") {
  TempDir dir;
  std::string cm = dir.Write("cm.yaml", kConfigMap);
  for (const char* jobs : {"1", "4"}) {
    INFO("--jobs " << jobs);
    Result r =
        Run({"check", "--format", "json", "--jobs", jobs, cm, dir.path() + "/nosuch.yaml", cm});
    CHECK(r.rc == 2);
    json doc = json::parse(r.out);
    CHECK(doc.at("summary").at("files") == 2);
    REQUIRE(doc.at("errors").size() == 1);
    CHECK(doc["errors"][0].at("file") == dir.path() + "/nosuch.yaml");
  }
}

TEST_CASE("a PATH with no manifest: the messages, and --allow-empty makes them warnings",
          "[cli][input-error]") {
  TempDir dir;
  std::string docs = dir.path() + "/docs";
  dir.Write("docs/README.md", "# not a manifest\n");
  const std::string none = docs + ": no manifests found (looked for *.yaml, *.yml and *.json)\n";
  const std::string summary = "gpulint: 0 errors, 0 warnings in 0 objects (0 files)\n";
  Result r = Run({"check", docs});
  CHECK(r.rc == 2);
  CHECK(r.out.empty());
  CHECK(r.err == "gpulint: error: " + none + summary);
  Result allowed = Run({"check", "--allow-empty", docs});
  CHECK(allowed.rc == 0);
  CHECK(allowed.err == "gpulint: warning: " + none + summary);
  // Allowed, an empty SARIF log is a successful run.
  Result sarif = Run({"check", "--allow-empty", "--format", "sarif", docs});
  CHECK(sarif.rc == 0);
  CHECK(json::parse(sarif.out).at("runs").at(0).at("invocations").at(0).at("executionSuccessful") ==
        true);

  // A PATH is judged as a whole: an empty file beside a manifest is fine.
  dir.Write("k8s/cm.yaml", kConfigMap);
  dir.Write("k8s/empty.yaml", "");
  CHECK(Run({"check", dir.path() + "/k8s"}).rc == 0);
  // Each PATH on its own: the manifest elsewhere does not excuse this one.
  Result both = Run({"check", dir.path() + "/k8s", docs});
  CHECK(both.rc == 2);
  CHECK(both.err == "gpulint: error: " + none +
                        "gpulint: 0 errors, 0 warnings in 1 object (2 files); policy: built-in\n");
}

// A GitHub workflow and a compose file are YAML, and no Kubernetes objects:
// they are not counted as objects that passed, and a PATH of nothing else is
// the wrong PATH.
TEST_CASE("YAML that is no Kubernetes object is said to be, not passed as objects",
          "[cli][input-error]") {
  TempDir dir;
  const std::string workflow =
      "name: ci\non: [push]\njobs:\n  build:\n    runs-on: ubuntu-latest\n"
      "    steps:\n    - uses: actions/checkout@v4\n";
  const std::string compose = "services:\n  web:\n    image: nginx\n    ports: ['80:80']\n";
  dir.Write("repo/.github/workflows/ci.yml", workflow);
  dir.Write("repo/.github/workflows/release.yml", workflow);
  dir.Write("repo/compose.yaml", compose);
  dir.Write("repo/deploy/compose.override.yaml", compose);
  InDirectory in(dir.path());
  Result r = Run({"check", "repo"});
  CHECK(r.rc == 2);
  CHECK(r.out.empty());
  CHECK(r.err ==
        "gpulint: error: repo: no manifests found (4 YAML or JSON documents, none a Kubernetes "
        "object: no apiVersion or kind)\n"
        "gpulint: note: not Kubernetes objects (no apiVersion or kind), not checked: "
        "repo/.github/workflows/ci.yml, repo/.github/workflows/release.yml, repo/compose.yaml, "
        "repo/deploy/compose.override.yaml\n"
        "gpulint: 0 errors, 0 warnings in 0 objects (4 files); 4 documents not checked: no "
        "Kubernetes objects (no apiVersion or kind); policy: built-in\n");
  // Beside a manifest, they are skipped and said to be.
  dir.Write("repo/deploy/cm.yaml", kConfigMap);
  Result mixed = Run({"check", "repo"});
  CHECK(mixed.rc == 0);
  CHECK(mixed.err ==
        "gpulint: note: not Kubernetes objects (no apiVersion or kind), not checked: "
        "repo/.github/workflows/ci.yml, repo/.github/workflows/release.yml, repo/compose.yaml, "
        "repo/deploy/compose.override.yaml\n"
        "gpulint: 0 errors, 0 warnings in 1 object (5 files); 4 documents not checked: no "
        "Kubernetes objects (no apiVersion or kind); policy: built-in\n");
  Result j = Run({"check", "--format", "json", "repo"});
  CHECK(json::parse(j.out).at("summary").at("notKubernetes") == 4);
  CHECK(json::parse(j.out).at("summary").at("objects") == 1);
  // An object with a kind and no apiVersion is still an object: checked.
  dir.Write("broken/pod.yaml", "kind: Pod\nmetadata: {name: p}\nspec: {containers: []}\n");
  CHECK(Run({"check", "broken"}).err.find("no Kubernetes objects") == std::string::npos);
}

TEST_CASE("check --stdin-filename names stdin's findings and finds its policy", "[cli]") {
  TempDir dir;
  const std::string pod =
      "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n"
      "    image: nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04\n"
      "    resources: {limits: {memory: 1Gi, nvidia.com/gpu: 0.5}}\n";
  std::string input = dir.Write("input.yaml", pod);
  // A policy beside the named file turns the finding into a warning.
  dir.Write("k8s/.gpulint.yaml",
            "apiVersion: gpulint.io/v1alpha1\nkind: Policy\nmetadata: {name: k8s}\n"
            "spec:\n  rules:\n    gpu-fractional: {severity: warning}\n");
  InDirectory in(dir.path());
  Result r = Run({"check", "--stdin-filename", "k8s/pod.yaml", "-"}, input);
  CHECK(r.rc == 0);
  CHECK(r.out.rfind("k8s/pod.yaml:8:55: warning: ", 0) == 0);
  CHECK(r.err ==
        "gpulint: 0 errors, 1 warning in 1 object (1 file); fit and VRAM not checked: no nodes "
        "(--nodes); policy: k8s/.gpulint.yaml\n");
  Result sarif =
      Run({"check", "--format", "sarif", "--stdin-filename", "k8s/pod.yaml", "-"}, input);
  CHECK(json::parse(sarif.out)["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
                               ["artifactLocation"]["uri"] == "k8s/pod.yaml");
  // SARIF of unnamed stdin would be refused by code scanning: a usage error.
  Result unnamed = Run({"check", "--format", "sarif", "-"}, input);
  CHECK(unnamed.rc == 2);
  CHECK(unnamed.err ==
        "gpulint: error: --format sarif reading stdin needs --stdin-filename PATH: GitHub code "
        "scanning refuses a result that is in no file of the repository\n");
  Result unread = Run({"check", "--stdin-filename", "k8s/pod.yaml", input});
  CHECK(unread.rc == 2);
  CHECK(unread.err ==
        "gpulint: error: --stdin-filename names stdin, which is not read: give - as a PATH\n");
}

TEST_CASE("check -: empty stdin is an error, allowed with --allow-empty, no PATH at all too",
          "[cli][input-error]") {
  TempDir dir;
  std::string empty = dir.Write("empty.yaml", "");
  const std::string none = "<stdin>: no manifests found (no YAML or JSON document in it)\n";
  const std::string summary =
      "gpulint: 0 errors, 0 warnings in 0 objects (1 file); policy: built-in\n";
  Result r = Run({"check", "-"}, empty);
  CHECK(r.rc == 2);
  CHECK(r.err == "gpulint: error: " + none + summary);
  Result allowed = Run({"check", "--allow-empty", "-"}, empty);
  CHECK(allowed.rc == 0);
  CHECK(allowed.err == "gpulint: warning: " + none + summary);
  // As pre-commit runs a hook with always_run and no file to pass.
  Result no_path = Run({"check", "--allow-empty"});
  CHECK(no_path.rc == 0);
  CHECK(no_path.out.empty());
  CHECK(no_path.err ==
        "gpulint: warning: no manifests found (no PATH given)\n"
        "gpulint: 0 errors, 0 warnings in 0 objects (0 files)\n");
  CHECK(Run({"check"}).rc == 2);  // without it, still a usage error
}

TEST_CASE("baseline: a PATH with no manifest writes no baseline, unless --allow-empty",
          "[cli][input-error][baseline]") {
  TempDir dir;
  std::string docs = dir.path() + "/docs";
  dir.Write("docs/README.md", "# not a manifest\n");
  std::string out = dir.path() + "/baseline.json";
  Result r = Run({"baseline", "-o", out, docs});
  CHECK(r.rc == 2);
  CHECK(r.err == "gpulint: error: " + docs +
                     ": no manifests found (looked for *.yaml, *.yml and *.json)\n"
                     "gpulint: error: no baseline written after an input error\n");
  CHECK_FALSE(std::filesystem::exists(out));
  Result allowed = Run({"baseline", "--allow-empty", "-o", out, docs});
  CHECK(allowed.rc == 0);
  CHECK(dir.Read("baseline.json") == "{\n  \"version\": 2,\n  \"findings\": []\n}\n");
}

// docs/ci.md's SARIF step: findings go to code scanning without failing the
// step; an input error fails it.
TEST_CASE("check --fail-on none: findings never fail the run, input errors still do",
          "[cli][input-error]") {
  TempDir dir;
  std::string pod = dir.Write("pod.yaml",
                              "apiVersion: v1\nkind: Pod\nmetadata:\n  name: half\nspec:\n"
                              "  containers:\n  - name: c\n    image: nvcr.io/nvidia/cuda:12.4.1\n"
                              "    resources:\n      limits: {nvidia.com/gpu: 0.5}\n");
  REQUIRE(Run({"check", pod}).rc == 1);
  Result sarif = Run({"check", "--format", "sarif", "--fail-on", "none", pod});
  CHECK(sarif.rc == 0);
  CHECK_FALSE(json::parse(sarif.out).at("runs").at(0).at("results").empty());
  CHECK(Run({"check", "--fail-on", "none", pod, dir.path() + "/nosuch.yaml"}).rc == 2);
  CHECK(Run({"check", "--fail-on", "none", dir.path()}).rc == 0);
  // JUnit: findings at or above --fail-on are failures; with none, none is.
  Result junit = Run({"check", "--format", "junit", "--fail-on", "none", pod});
  CHECK(junit.rc == 0);
  CHECK(junit.out.find("<failure") == std::string::npos);
  CHECK(junit.out.find("<system-out>") != std::string::npos);
}

}  // namespace
}  // namespace gpulint
