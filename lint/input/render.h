// Sources that a tool turns into manifests: a Helm chart (`helm template`)
// and a kustomization (`kubectl kustomize`, or `kustomize build`). The tool is
// the one on PATH; gpulint never renders templates itself.
#ifndef GPULINT_LINT_INPUT_RENDER_H_
#define GPULINT_LINT_INPUT_RENDER_H_

#include <cstddef>
#include <functional>
#include <memory>
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

// Where a document of a rendered chart came from, and how a position in it
// is shown: at the template line that wrote it (template_lines.h), or, where
// that is not known, at the template file with the line of helm's output.
class RenderedDocument {
 public:
  struct Chart;  // shared by a chart's documents (render.cc)
  RenderedDocument(std::shared_ptr<Chart> chart, std::string source, size_t first_line);

  // Moves a position in this document (its mark counts lines from the
  // document's first) to the template: *file and *mark become the template
  // line and column that wrote it. Else *file is the template (the chart's
  // Chart.yaml when helm named none, or it is in a packaged subchart), *mark
  // no position, and *message starts "line N of helm's output: ", N counting
  // the lines of 'helm template' with the same values.
  void Place(std::string* file, Mark* mark, std::string* message) const;
  // Where `mark` of this document is in helm's output (a line of it, 1-based).
  Mark InOutput(Mark mark) const;

 private:
  std::shared_ptr<Chart> chart_;
  std::string source_;  // the template helm named, under the chart's path; "" for none
  std::string file_;    // source_ when it is a file on disk, else the chart's Chart.yaml
  size_t first_line_;   // the document's first line in helm's output, 0-based
};

// A document and, for a rendered chart's, where it came from (else null).
using SourceSink = std::function<bool(Document&& doc, const RenderedDocument* rendered)>;

// Streams the documents of one input: a file, or "-" for `stdin_fd`, as
// written; a chart or kustomization as its tool renders it. A chart's
// documents are named by the template helm's "# Source:" comment names,
// under the chart's path as given, and come with their RenderedDocument; a
// kustomization's are 'overlays/prod (kustomized)', lines of `kubectl
// kustomize overlays/prod`. A missing tool, a tool that fails (its stderr
// quoted), times out or prints too much is an error at the source's path.
bool LoadSource(const InputFile& input, int stdin_fd, const RenderOptions& options,
                const LoadLimits& limits, const SourceSink& sink, Error* error);

// Reads `helm template` output for the chart at `chart`: one document per
// "# Source:" comment (see LoadSource). `rendered` (may be null) maps lines to
// templates; without it nothing is placed in a template.
bool LoadHelmOutput(std::string_view text, const std::string& chart,
                    std::shared_ptr<RenderedDocument::Chart> rendered, const LoadLimits& limits,
                    const SourceSink& sink, Error* error);

// Why `gpulint fix` leaves a rendered source alone: it edits files, and these
// manifests exist only once rendered.
std::string NotFixableText(const InputFile& input);

}  // namespace gpulint

#endif  // GPULINT_LINT_INPUT_RENDER_H_
