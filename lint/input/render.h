// Sources that a tool turns into manifests: a Helm chart (`helm template`)
// and a kustomization (`kubectl kustomize`, or `kustomize build`). The tool is
// the one on PATH; gpulint never renders templates itself.
#ifndef GPULINT_LINT_INPUT_RENDER_H_
#define GPULINT_LINT_INPUT_RENDER_H_

#include <string>
#include <string_view>
#include <vector>

#include "engine/base/finding.h"
#include "engine/yaml/loader.h"
#include "lint/input/inputs.h"
#include "common/subprocess.h"

namespace gpulint {

struct RenderOptions {
  std::vector<std::string> values_files;  // helm template --values, in order
  ToolLimits limits;
};

// Streams the documents of one input: a file, or "-" for `stdin_fd`, as
// written; a chart or kustomization as its tool renders it. A rendered
// document's file says where it came from and that it was rendered:
//   mychart/templates/deploy.yaml (rendered)   the template named by helm's
//       "# Source:" comment, under the chart's path as given; lines count
//       within that rendered document, from the line after the comment
//   overlays/prod (kustomized)   lines of `kubectl kustomize overlays/prod`
// A missing tool, a tool that fails (its stderr quoted), times out or prints
// too much is an error at the source's path.
bool LoadSource(const InputFile& input, int stdin_fd, const RenderOptions& options,
                const LoadLimits& limits, const DocumentSink& sink, Error* error);

// Reads `helm template` output for the chart at `chart`: one document per
// "# Source:" comment, each named by its template (see LoadSource).
bool LoadHelmOutput(std::string_view text, const std::string& chart, const LoadLimits& limits,
                    const DocumentSink& sink, Error* error);

// Why `gpulint fix` leaves a rendered source alone: it edits files, and these
// manifests exist only once rendered.
std::string NotFixableText(const InputFile& input);

}  // namespace gpulint

#endif  // GPULINT_LINT_INPUT_RENDER_H_
