#include "lint/input/render.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "engine/yaml/loader.h"
#include "lint/input/inputs.h"

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

// "file:line:col kind" for each document.
std::vector<std::string> Read(const std::string& chart) {
  std::vector<std::string> out;
  Error error;
  REQUIRE(LoadHelmOutput(kHelmOutput, chart, LoadLimits{},
                         [&](Document&& doc) {
                           REQUIRE(doc.ok);
                           out.push_back(doc.file + ":" + std::to_string(doc.root.mark().line) +
                                         ":" + std::to_string(doc.root.mark().column) + " " +
                                         std::string(doc.root.StringAt("kind")));
                           return true;
                         },
                         &error));
  return out;
}

TEST_CASE("LoadHelmOutput: each document named by its template, lines from its start",
          "[render]") {
  // The chart's directory, not helm's chart name, leads the path.
  CHECK(Read("charts/gpu-trainer") == std::vector<std::string>{
                                          "charts/gpu-trainer/templates/service.yaml (rendered):1:1 Service",
                                          "charts/gpu-trainer/templates/deploy.yaml (rendered):1:1 Deployment",
                                          "charts/gpu-trainer/templates/deploy.yaml (rendered):1:1 ConfigMap",
                                          "charts/gpu-trainer (rendered):1:1 Secret",
                                      });
  CHECK(Read(".")[0] == "templates/service.yaml (rendered):1:1 Service");
  CHECK(Read("chart/")[1] == "chart/templates/deploy.yaml (rendered):1:1 Deployment");
}

TEST_CASE("LoadHelmOutput: a document that does not parse is reported at its template",
          "[render]") {
  std::vector<std::string> errors;
  Error error;
  REQUIRE(LoadHelmOutput("---\n# Source: c/templates/x.yaml\nkind: Pod\nspec: [\n", "c",
                         LoadLimits{},
                         [&](Document&& doc) {
                           if (!doc.ok) errors.push_back(doc.error.ToString());
                           return true;
                         },
                         &error));
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].rfind("c/templates/x.yaml (rendered):", 0) == 0);
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
