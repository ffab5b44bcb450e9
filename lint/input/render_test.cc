#include "lint/input/render.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "engine/yaml/loader.h"
#include "lint/input/inputs.h"
#include "tests/temp_dir.h"

namespace gpulint {
namespace {

// What helm template printed for a chart named "trainer" (abridged): two
// documents from one template, one from another, and a document with no
// "# Source:" comment.
constexpr char kHelmOutput[] = R"(---
# Source: trainer/templates/service.yaml
apiVersion: v1
kind: Service
metadata:
  name: a
---
# Source: trainer/templates/deploy.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: b
---
# Source: trainer/templates/deploy.yaml
apiVersion: v1
kind: ConfigMap
data:
  text: |
    ---
    not a marker: indented
---
kind: Secret
)";

// "file:line:col kind" for each document, and where its first line is in
// helm's output.
std::vector<std::string> Read(const std::string& chart) {
  std::vector<std::string> out;
  Error error;
  REQUIRE(LoadHelmOutput(
      kHelmOutput, chart, nullptr, LoadLimits{},
      [&](Document&& doc, const SourceOrigin* rendered) {
        REQUIRE(doc.ok);
        REQUIRE(rendered != nullptr);
        out.push_back(doc.file + ":" + std::to_string(doc.root.mark().line) + ":" +
                      std::to_string(doc.root.mark().column) + " " +
                      std::string(doc.root.StringAt("kind")) + " @" +
                      std::to_string(rendered->InOutput({1, 1}).line));
        return true;
      },
      &error));
  return out;
}

TEST_CASE("LoadHelmOutput: each document named by its template, lines from its start", "[render]") {
  // The chart's directory, not helm's chart name, leads the path.
  CHECK(Read("charts/gpu-trainer") ==
        std::vector<std::string>{
            "charts/gpu-trainer/templates/service.yaml:1:1 Service @3",
            "charts/gpu-trainer/templates/deploy.yaml:1:1 Deployment @9",
            "charts/gpu-trainer/templates/deploy.yaml:1:1 ConfigMap @15",
            "charts/gpu-trainer:1:1 Secret @22",
        });
  CHECK(Read(".")[0] == "templates/service.yaml:1:1 Service @3");
  CHECK(Read("chart/")[1] == "chart/templates/deploy.yaml:1:1 Deployment @9");
}

TEST_CASE(
    "RenderedDocument: what no template line is known to have written is shown at "
    "the template, with its line in helm's output",
    "[render]") {
  TempDir dir;
  std::filesystem::create_directories(dir.Path("c/templates"));
  dir.Write("c/Chart.yaml", "apiVersion: v2\nname: c\nversion: 1.0.0\n");
  dir.Write("c/templates/x.yaml", "kind: Pod\n");
  const std::string chart = dir.Path("c");
  std::vector<std::string> placed;
  Error error;
  REQUIRE(LoadHelmOutput(
      "---\n# Source: c/templates/x.yaml\nkind: Pod\nspec: {}\n"
      "---\n# Source: c/charts/sub/templates/y.yaml\nkind: Pod\n"
      "---\nkind: Secret\n",
      chart, nullptr, LoadLimits{},
      [&](Document&& doc, const SourceOrigin* rendered) {
        std::string file = doc.file, message = "m";
        Mark mark{2, 7};
        rendered->Place(doc.root, &file, &mark, &message);
        placed.push_back(file + ":" + std::to_string(mark.line) + ": " + message);
        return true;
      },
      &error));
  CHECK(placed == std::vector<std::string>{
                      chart + "/templates/x.yaml:0: line 4 of helm's output: m",
                      // A packaged subchart's template is no file: its chart is.
                      chart + "/Chart.yaml:0: line 8 of helm's output, from " + chart +
                          "/charts/sub/templates/y.yaml: m",
                      chart + "/Chart.yaml:0: line 10 of helm's output: m",
                  });
}

TEST_CASE("LoadHelmOutput: a document that does not parse is reported at its template",
          "[render]") {
  std::vector<std::string> errors;
  Error error;
  REQUIRE(LoadHelmOutput(
      "---\n# Source: c/templates/x.yaml\nkind: Pod\nspec: [\n", "c", nullptr, LoadLimits{},
      [&](Document&& doc, const SourceOrigin*) {
        if (!doc.ok) errors.push_back(doc.error.ToString());
        return true;
      },
      &error));
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].rfind("c/templates/x.yaml:", 0) == 0);
}

TEST_CASE("NotFixableText: what fix says of a chart and a kustomization", "[render]") {
  CHECK(NotFixableText({"k8s/app", InputKind::kHelmChart}) ==
        "is a Helm chart, left alone: gpulint fix edits files, and its manifests exist only once "
        "rendered; fix its templates or values by hand ('gpulint check k8s/app' shows what to "
        "change)");
  CHECK(NotFixableText({"k8s/prod", InputKind::kKustomization}) ==
        "is a kustomization, left alone: gpulint fix edits files, and its manifests exist only "
        "once rendered; fix its resources or patches by hand ('gpulint check k8s/prod' shows what "
        "to change)");
}

}  // namespace
}  // namespace gpulint
