// RunCli in-process, with captured streams and manifests in a temp directory.
#include "lint/cli/cli.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "lint/cli/cli_test_util.h"
#include "lint/output/formats.h"
#include "lint/output/output.h"

namespace gpulint {
namespace {

using testing::Result;
using testing::Run;
using testing::TempDir;

constexpr char kFractionalPod[] = R"(apiVersion: v1
kind: Pod
metadata:
  name: half-gpu
spec:
  containers:
  - name: train
    image: nvcr.io/nvidia/pytorch:24.01-py3
    resources:
      requests:
        nvidia.com/gpu: 1.5
        memory: 8Gi
      limits:
        nvidia.com/gpu: 1.5
        memory: 8Gi
)";

constexpr char kConfigMap[] = R"(apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  a: b
)";

// A removed annotation is a warning, and the pod has nothing else wrong.
constexpr char kWarningOnlyPod[] = R"(apiVersion: v1
kind: Pod
metadata:
  name: old-style
  annotations:
    scheduler.alpha.kubernetes.io/critical-pod: ""
spec:
  containers:
  - name: app
    image: nginx:1.25
)";

std::string Named(const std::string& manifest, const std::string& name) {
  std::string text = manifest;
  size_t at = text.find("name: half-gpu");
  REQUIRE(at != std::string::npos);
  text.replace(at, 14, "name: " + name);
  return text;
}

std::multiset<std::string> RulesIn(const nlohmann::json& doc) {
  std::multiset<std::string> rules;
  for (const auto& f : doc.at("findings")) rules.insert(f.at("rule").get<std::string>());
  return rules;
}

// --format, its error, check's help and the main help's usage line all come
// from the one list of formats.
TEST_CASE("check --format takes exactly the registered formats", "[cli][output]") {
  TempDir dir;
  std::string pod = dir.Write("pod.yaml", kFractionalPod);
  std::vector<std::string> names;
  for (const OutputFormat* format : OutputFormats()) {
    INFO(format->name);
    names.emplace_back(format->name);
    CHECK(FindOutputFormat(format->name) == format);
    Result r = Run({"check", "--format", std::string(format->name), pod});
    CHECK(r.rc == 1);
    CHECK_FALSE(r.out.empty());
    // The summary line goes to stderr unless the output holds it.
    CHECK((r.err.find(" in 1 object (1 file)") != std::string::npos) != format->holds_summary);
  }
  CHECK(names == std::vector<std::string>{"text", "json", "sarif", "junit", "github"});
  CHECK(OutputFormatAlternatives() == "text|json|sarif|junit|github");
  Result help = Run({"check", "--help"});
  CHECK_THAT(help.out,
             Catch::Contains("  --format FORMAT      text (default), json, sarif, junit or github\n"));
  Result main_help = Run({"--help"});
  CHECK_THAT(main_help.out, Catch::Contains("lint manifests (the default command);\n"
                                            "                                        "
                                            "--format text|json|sarif|junit|github;\n"));
  Result unknown = Run({"check", "--format", "csv", pod});
  CHECK(unknown.err == "gpulint: error: --format: unknown format 'csv' (choose text, json, sarif, "
                       "junit or github)\n");
}

// A file name is bytes, not always UTF-8: every format still writes its
// findings, and the JSON and XML ones stay valid (U+FFFD, or %FF in a URI).
TEST_CASE("every format writes a file name that is not UTF-8", "[cli][output]") {
  TempDir dir;
  std::string pod = dir.Write("h\xffq.yaml", kFractionalPod);
  std::string shown = pod.substr(0, pod.size() - std::string_view("h\xffq.yaml").size()) +
                      "h\xef\xbf\xbdq.yaml";
  const std::vector<std::pair<std::string_view, std::string>> expected = {
      {"text", pod + ":11:25: error: "},
      {"json", "\"file\":\"" + shown + "\",\"line\":11,\"column\":25,"},
      {"sarif", "h%FFq.yaml\""},
      {"junit", "<testsuite name=\"" + shown + "\""},
      {"github", "::error file=" + pod + ",line=11,col=25,title=gpu-fractional::"},
  };
  for (const OutputFormat* format : OutputFormats()) {
    INFO(format->name);
    Result r = Run({"check", "--format", std::string(format->name), pod});
    CHECK(r.rc == 1);
    CHECK_THAT(r.out, Catch::Contains("gpu-fractional"));
    for (const auto& [name, text] : expected)
      if (name == format->name) CHECK_THAT(r.out, Catch::Contains(text));
  }
}

TEST_CASE("exit status: 0 when clean, 1 with an error finding", "[cli]") {
  TempDir dir;
  Result clean = Run({"check", dir.Write("cm.yaml", kConfigMap)});
  CHECK(clean.rc == 0);
  CHECK(clean.out.empty());
  CHECK(clean.err == "gpulint: 0 errors, 0 warnings in 1 object (1 file); policy: built-in\n");

  std::string pod = dir.Write("pod.yaml", kFractionalPod);
  Result dirty = Run({"check", pod});
  CHECK(dirty.rc == 1);
  // Compiler style: file:line:col: error: message [rule]. The GPU count sits on
  // line 11 (requests) and 14 (limits), column 25.
  CHECK(dirty.out.find(pod + ":11:25: error: ") != std::string::npos);
  CHECK(dirty.out.find(pod + ":14:25: error: ") != std::string::npos);
  CHECK(dirty.out.find("[gpu-fractional]\n") != std::string::npos);
  CHECK(dirty.err.find("in 1 object (1 file); fit and VRAM not checked: no nodes (--nodes); policy: built-in\n") != std::string::npos);
}

constexpr char kUnknownGpuKind[] = R"(apiVersion: example.com/v1
kind: ModelServer
metadata: {name: llama}
spec:
  server:
    image: vllm/vllm-openai:v0.6.3
    resources:
      limits: {memory: 32Gi, nvidia.com/gpu: 1}
)";

TEST_CASE("the summary counts objects not checked, --strict makes them errors", "[cli]") {
  TempDir dir;
  std::string unknown = dir.Write("server.yaml", kUnknownGpuKind);
  std::string pod = dir.Write("pod.yaml", kWarningOnlyPod);
  std::string cm = dir.Write("cm.yaml", kConfigMap);
  Result r = Run({"check", "--jobs", "1", cm, pod, unknown});
  CHECK(r.rc == 0);  // a warning
  CHECK(r.out.find(unknown + ":6:5: warning: kind ModelServer (group example.com) is not in "
                             "gpulint's workload table") != std::string::npos);
  CHECK(r.err.find(" in 3 objects (3 files); 1 workload checked, 1 not checked; fit and VRAM not checked: no nodes (--nodes); policy: "
                   "built-in\n") != std::string::npos);

  Result strict = Run({"check", "--strict", "--format", "json", cm, pod, unknown});
  CHECK(strict.rc == 1);
  nlohmann::json doc = nlohmann::json::parse(strict.out);
  CHECK(doc.at("summary").at("checked") == 1);
  CHECK(doc.at("summary").at("notChecked") == 1);
  CHECK(doc.at("summary").at("errors") == 1);
  bool found = false;
  for (const auto& f : doc.at("findings"))
    if (f.at("rule") == "workload-not-checked") {
      found = true;
      CHECK(f.at("severity") == "error");
      CHECK(f.at("path") == "spec.server");
    }
  CHECK(found);
}

TEST_CASE("a FILE with no command means check", "[cli]") {
  TempDir dir;
  std::string pod = dir.Write("pod.yaml", kFractionalPod);
  Result implicit = Run({pod});
  Result explicit_check = Run({"check", pod});
  CHECK(implicit.rc == 1);
  CHECK(implicit.out == explicit_check.out);
  CHECK(implicit.err == explicit_check.err);
  Result with_option_first = Run({"--format=json", pod});
  CHECK(with_option_first.rc == 1);
  CHECK(nlohmann::json::parse(with_option_first.out).at("findings").size() > 0);
}

TEST_CASE("check: --fail-on lowers the severity that fails the run", "[cli]") {
  TempDir dir;
  std::string pod = dir.Write("pod.yaml", kWarningOnlyPod);
  Result by_default = Run({"check", pod});
  REQUIRE(by_default.out.find("warning: ") != std::string::npos);
  CHECK(by_default.out.find("error: ") == std::string::npos);
  CHECK(by_default.out.find("[removed-annotation]") != std::string::npos);
  CHECK(by_default.rc == 0);
  CHECK(Run({"check", "--fail-on", "warning", pod}).rc == 1);
  CHECK(Run({"check", "--fail-on=info", pod}).rc == 1);
  CHECK(Run({"check", "--fail-on", "error", pod}).rc == 0);
}

TEST_CASE("check: --quiet leaves out the summary line", "[cli]") {
  TempDir dir;
  std::string pod = dir.Write("pod.yaml", kFractionalPod);
  Result r = Run({"check", "--quiet", pod});
  CHECK(r.rc == 1);
  CHECK(r.err.empty());
  CHECK(r.out == Run({"check", pod}).out);
}

TEST_CASE("JSON output parses and follows the documented schema", "[cli][json]") {
  TempDir dir;
  std::string pod = dir.Write("pod.yaml", kFractionalPod);
  std::string cm = dir.Write("cm.yaml", kConfigMap);
  Result r = Run({"check", "--format", "json", pod, cm});
  CHECK(r.rc == 1);
  CHECK(r.err.empty());  // the summary is inside the JSON
  nlohmann::json doc = nlohmann::json::parse(r.out);
  REQUIRE(doc.at("findings").is_array());
  REQUIRE(doc.at("findings").size() >= 2);
  size_t errors = 0;
  for (const auto& f : doc.at("findings")) {
    for (const char* key : {"rule", "severity", "message", "file", "path"})
      CHECK(f.at(key).is_string());
    CHECK(f.at("line").is_number_unsigned());
    CHECK(f.at("column").is_number_unsigned());
    for (const char* key : {"apiVersion", "kind", "namespace", "name"})
      CHECK(f.at("object").at(key).is_string());
    if (f.at("severity") == "error") ++errors;
  }
  CHECK(RulesIn(doc).count("gpu-fractional") == 2);
  nlohmann::json first;
  for (const auto& f : doc.at("findings"))
    if (f.at("rule") == "gpu-fractional") {
      first = f;
      break;
    }
  CHECK(first.at("file") == pod);
  CHECK(first.at("line") == 11);
  CHECK(first.at("column") == 25);
  CHECK(first.at("object") ==
        nlohmann::json(
            {{"apiVersion", "v1"}, {"kind", "Pod"}, {"namespace", ""}, {"name", "half-gpu"}}));
  CHECK(first.at("path") == "spec.containers[0].resources.requests[\"nvidia.com/gpu\"]");
  const auto& summary = doc.at("summary");
  CHECK(summary.at("errors") == errors);
  CHECK(summary.at("objects") == 2);
  CHECK(summary.at("files") == 2);
  CHECK(summary.at("warnings").is_number_unsigned());
  CHECK(summary.at("infos").is_number_unsigned());
}

TEST_CASE("JSON output with no findings is still a complete document", "[cli][json]") {
  TempDir dir;
  Result r = Run({"check", "--format=json", dir.Write("cm.yaml", kConfigMap)});
  CHECK(r.rc == 0);
  CHECK(nlohmann::json::parse(r.out) ==
        nlohmann::json::parse(R"({"findings": [], "errors": [],
                                  "summary": {"errors": 0, "warnings": 0, "infos": 0, "objects": 1, "files": 1,
                                  "checked": 0, "notChecked": 0, "policy": "built-in", "policies": ["built-in"]}})"));
}

TEST_CASE("a broken middle document is a parse-error, the others are still checked", "[cli]") {
  TempDir dir;
  std::string text = Named(kFractionalPod, "first") + "---\n" +
                     "apiVersion: v1\nkind: Pod\nmetadata:\n  name: [unclosed\n" + "---\n" +
                     Named(kFractionalPod, "third");
  std::string path = dir.Write("three.yaml", text);
  Result r = Run({"check", "--format", "json", path});
  CHECK(r.rc == 1);
  nlohmann::json doc = nlohmann::json::parse(r.out);
  CHECK(RulesIn(doc).count("parse-error") == 1);
  std::set<std::string> fractional_objects;
  for (const auto& f : doc.at("findings")) {
    if (f.at("rule") == "gpu-fractional")
      fractional_objects.insert(f.at("object").at("name").get<std::string>());
    if (f.at("rule") == "parse-error") {
      CHECK(f.at("file") == path);
      CHECK(f.at("line").get<int>() >= 17);  // inside the second document
      CHECK(f.at("severity") == "error");
    }
  }
  CHECK(fractional_objects == std::set<std::string>{"first", "third"});
}

TEST_CASE("objects inside kind: List are checked one by one", "[cli]") {
  TempDir dir;
  std::string list = "apiVersion: v1\nkind: List\nitems:\n";
  for (const char* name : {"a", "b", "c"}) {
    std::istringstream lines(Named(kFractionalPod, name));
    std::string line;
    bool first = true;
    while (std::getline(lines, line)) {
      list += (first ? "- " : "  ") + line + "\n";
      first = false;
    }
  }
  Result r = Run({"check", "--format", "json", dir.Write("list.yaml", list)});
  nlohmann::json doc = nlohmann::json::parse(r.out);
  CHECK(doc.at("summary").at("objects") == 3);
  std::set<std::string> names;
  for (const auto& f : doc.at("findings"))
    if (f.at("rule") == "gpu-fractional")
      names.insert(f.at("object").at("name").get<std::string>());
  CHECK(names == std::set<std::string>{"a", "b", "c"});
}

TEST_CASE("check: - reads stdin, shown as <stdin>", "[cli]") {
  TempDir dir;
  std::string pod = dir.Write("pod.yaml", kFractionalPod);
  Result r = Run({"check", "-"}, pod);
  CHECK(r.rc == 1);
  CHECK(r.out.rfind("<stdin>:11:25: error: ", 0) == 0);
  CHECK(r.out.find("[gpu-fractional]") != std::string::npos);
  CHECK(r.out.find(pod) == std::string::npos);
  CHECK(r.err == Run({"check", pod}).err);
}

TEST_CASE("a missing file exits 2, names the path, and the other files are still checked",
          "[cli]") {
  TempDir dir;
  std::string pod = dir.Write("pod.yaml", kFractionalPod);
  std::string missing = dir.path() + "/no-such.yaml";
  Result r = Run({"check", missing, pod});
  CHECK(r.rc == 2);
  CHECK(r.err.rfind("gpulint: error: " + missing, 0) == 0);
  CHECK(r.out.find("[gpu-fractional]") != std::string::npos);
}

TEST_CASE("directories are searched for manifests", "[cli]") {
  TempDir dir;
  dir.Write("k8s/a/pod.yaml", kFractionalPod);
  dir.Write("k8s/b/cm.json", R"({"apiVersion": "v1", "kind": "ConfigMap",
                                 "metadata": {"name": "x"}})");
  dir.Write("k8s/notes.txt", "not a manifest: [");
  Result r = Run({"check", "--format", "json", dir.path() + "/k8s"});
  CHECK(r.rc == 1);
  nlohmann::json doc = nlohmann::json::parse(r.out);
  CHECK(doc.at("summary").at("files") == 2);
  CHECK(RulesIn(doc).count("parse-error") == 0);
}

TEST_CASE("an invalid policy exits 2 with its position", "[cli][policy]") {
  TempDir dir;
  std::string pod = dir.Write("pod.yaml", kFractionalPod);
  std::string policy = dir.Write("policy.yaml",
                                 "apiVersion: gpulint.io/v1alpha1\nkind: Policy\n"
                                 "spec:\n  reserved: [1, 2\n");
  Result r = Run({"check", "--policy", policy, pod});
  CHECK(r.rc == 2);
  CHECK(r.err.rfind("gpulint: error: " + policy + ":", 0) == 0);
  CHECK(r.out.empty());
  Result missing = Run({"check", "--policy", dir.path() + "/none.yaml", pod});
  CHECK(missing.rc == 2);
  CHECK(missing.err.find(dir.path() + "/none.yaml") != std::string::npos);
}

TEST_CASE("check: --nodes refuses objects that are not Nodes", "[cli][nodes]") {
  TempDir dir;
  std::string pod = dir.Write("pod.yaml", kFractionalPod);
  Result r = Run({"check", "--nodes", pod, pod});
  CHECK(r.rc == 2);
  CHECK(r.err == "gpulint: error: " + pod +
                     ":1:1: not a Node (kind: Pod); --nodes reads the output of 'kubectl get "
                     "nodes,deviceclasses,resourceslices -o yaml'\n");
  CHECK(r.out.empty());
}

constexpr char kSmallGpuNodeList[] = R"(apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata:
    name: gpu-small-1
    labels:
      nvidia.com/gpu.product: Tesla-T4
      nvidia.com/gpu.count: "1"
      nvidia.com/gpu.memory: "15360"
  status:
    allocatable:
      cpu: "4"
      memory: 16Gi
      nvidia.com/gpu: "1"
      pods: "110"
)";

constexpr char kBigGpuPod[] = R"(apiVersion: v1
kind: Pod
metadata:
  name: big
spec:
  containers:
  - name: train
    image: nvcr.io/nvidia/pytorch:24.01-py3
    resources:
      requests:
        nvidia.com/gpu: 1
        memory: 64Gi
      limits:
        nvidia.com/gpu: 1
        memory: 64Gi
)";

TEST_CASE("check: --nodes adds real nodes to the inventory", "[cli][nodes]") {
  TempDir dir;
  std::string nodes = dir.Write("nodes.yaml", kSmallGpuNodeList);
  std::string pod = dir.Write("pod.yaml", kBigGpuPod);
  Result without = Run({"check", "--policy",
                        dir.Write("p.yaml",
                                  "apiVersion: gpulint.io/v1alpha1\n"
                                  "kind: Policy\n"),
                        "--format=json", pod});
  INFO(without.err);
  REQUIRE(without.rc != 2);
  Result with =
      Run({"check", "--policy", dir.path() + "/p.yaml", "--nodes", nodes, "--format=json", pod});
  INFO(with.err);
  REQUIRE(with.rc != 2);
  std::multiset<std::string> before = RulesIn(nlohmann::json::parse(without.out));
  std::multiset<std::string> after = RulesIn(nlohmann::json::parse(with.out));
  // 64Gi fits no 16Gi node: only with the node does the engine know that.
  CHECK(before.count("exceeds-allocatable") + before.count("no-matching-node") == 0);
  CHECK(after.count("exceeds-allocatable") + after.count("no-matching-node") >= 1);
}

}  // namespace
}  // namespace gpulint
