// Checks that could not run are said in every format: fit and VRAM need
// nodes, and a run without them must not read as a checked one. An empty
// node inventory is an input error, not a run that checks nothing.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "lint/cli/cli_test_util.h"

namespace gpulint {
namespace {

using nlohmann::json;
using testing::Result;
using testing::Run;
using testing::TempDir;

// 500Gi on one pod: only a node list can tell that no node holds it.
constexpr char kBigPod[] = R"(apiVersion: v1
kind: Pod
metadata: {name: big}
spec:
  containers:
  - name: train
    image: pytorch/pytorch:2.3.0-cuda12.1-cudnn8-runtime
    resources:
      limits: {nvidia.com/gpu: 1, memory: 500Gi}
)";

constexpr char kNode[] = R"(apiVersion: v1
kind: Node
metadata: {name: a100-0}
status:
  allocatable: {cpu: "32", memory: 256Gi, pods: "110", nvidia.com/gpu: "8"}
)";

constexpr char kNoteText[] = "fit and VRAM not checked: no nodes (--nodes)";
constexpr char kNoteWhole[] =
    "fit and VRAM not checked (exceeds-allocatable, no-matching-node and vram-exceeds-gpu): no "
    "nodes; give --nodes FILE";

TEST_CASE("without nodes, every format says that fit and VRAM were not checked",
          "[cli][formats][not-run]") {
  TempDir dir;
  std::string pod = dir.Write("pod.yaml", kBigPod);

  Result text = Run({"check", pod});
  CHECK(text.rc == 0);
  CHECK(text.err == "gpulint: 0 errors, 0 warnings in 1 object (1 file); " +
                        std::string(kNoteText) + "; policy: built-in\n");

  json summary = json::parse(Run({"check", "--format", "json", pod}).out).at("summary");
  REQUIRE(summary.contains("notRun"));
  REQUIRE(summary["notRun"].size() == 1);
  CHECK(summary["notRun"][0]["what"] == "fit and VRAM");
  CHECK(summary["notRun"][0]["why"] == "no nodes");
  CHECK(summary["notRun"][0]["rules"] ==
        json::array({"exceeds-allocatable", "no-matching-node", "vram-exceeds-gpu"}));

  json sarif = json::parse(Run({"check", "--format", "sarif", pod}).out);
  const json& invocation = sarif["runs"][0]["invocations"][0];
  CHECK(invocation["executionSuccessful"] == true);  // the run did what it could
  REQUIRE(invocation["toolExecutionNotifications"].size() == 1);
  CHECK(invocation["toolExecutionNotifications"][0]["level"] == "note");
  CHECK_THAT(invocation["toolExecutionNotifications"][0]["message"]["text"].get<std::string>(),
             Catch::StartsWith(kNoteWhole));

  std::string junit = Run({"check", "--format", "junit", pod}).out;
  CHECK(junit.find("<testsuite name=\"gpulint: checks not run\" tests=\"1\" failures=\"0\" "
                   "errors=\"0\" skipped=\"1\">") != std::string::npos);
  CHECK(junit.find("<skipped message=\"" + std::string(kNoteWhole)) != std::string::npos);

  std::string github = Run({"check", "--format", "github", pod}).out;
  CHECK(github.find("::notice title=gpulint::" + std::string(kNoteWhole)) != std::string::npos);
}

TEST_CASE("with nodes, fit is checked and no format says otherwise", "[cli][formats][not-run]") {
  TempDir dir;
  std::string pod = dir.Write("pod.yaml", kBigPod);
  std::string nodes = dir.Write("nodes.yaml", kNode);
  Result text = Run({"check", "--nodes", nodes, pod});
  CHECK(text.rc == 1);  // 500Gi on nodes of 256Gi
  CHECK(text.out.find("[exceeds-allocatable]") != std::string::npos);
  CHECK(text.err.find("VRAM not checked") == std::string::npos);
  json summary = json::parse(Run({"check", "--format", "json", "--nodes", nodes, pod}).out);
  CHECK_FALSE(summary.at("summary").contains("notRun"));
  for (const char* format : {"sarif", "junit", "github"}) {
    INFO(format);
    CHECK(Run({"check", "--format", format, "--nodes", nodes, pod}).out.find("VRAM not checked") ==
          std::string::npos);
  }
}

TEST_CASE("a run that checked no workload does not speak of fit", "[cli][not-run]") {
  TempDir dir;
  std::string cm = dir.Write("cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n");
  CHECK(Run({"check", cm}).err ==
        "gpulint: 0 errors, 0 warnings in 1 object (1 file); policy: built-in\n");
}

TEST_CASE("an empty node inventory is an input error", "[cli][not-run]") {
  TempDir dir;
  std::string pod = dir.Write("pod.yaml", kBigPod);
  for (const char* empty : {"", "apiVersion: v1\nkind: NodeList\nitems: []\n"}) {
    INFO(empty);
    std::string nodes = dir.Write("nodes.yaml", empty);
    Result r = Run({"check", "--nodes", nodes, pod});
    CHECK(r.rc == 2);
    CHECK(r.err.find("gpulint: error: " + nodes + ": --nodes: no Node, DeviceClass or ResourceSlice in it") != std::string::npos);
  }
}

}  // namespace
}  // namespace gpulint
