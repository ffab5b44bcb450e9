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

// Where a document of a rendered source came from, and how a position in it
// is shown: in a file that exists, which the source's own files are, never
// in the tool's output, which is no file.
class SourceOrigin {
 public:
  virtual ~SourceOrigin() = default;
  // Moves a position in `doc` (this document's tree as loaded) to the file
  // and position that wrote it; where that is not known, *file is a file of
  // the source (a chart's template or Chart.yaml, a kustomization's file),
  // *mark no position, and *message starts with where the tool's output has
  // it ("line N of helm's output: ").
  virtual void Place(const Value& doc, std::string* file, Mark* mark,
                     std::string* message) const = 0;
  // Where `mark` of this document is in the tool's output (a line of it, 1-based).
  virtual Mark InOutput(Mark mark) const = 0;
};

// A document of a rendered chart: placed at the template line that wrote it
// (template_lines.h), or, where that is not known, at the template file with
// the line of helm's output.
class RenderedDocument : public SourceOrigin {
 public:
  struct Chart;  // shared by a chart's documents (render.cc)
  RenderedDocument(std::shared_ptr<Chart> chart, std::string source, size_t first_line);

  // A position in this document (its mark counts lines from the document's
  // first) goes to the template line and column that wrote it. Else *file is
  // the template (the chart's Chart.yaml when helm named none, or it is in a
  // packaged subchart), and *message starts "line N of helm's output: ", N
  // counting the lines of 'helm template' with the same values.
  void Place(const Value& doc, std::string* file, Mark* mark,
             std::string* message) const override;
  Mark InOutput(Mark mark) const override;

 private:
  std::shared_ptr<Chart> chart_;
  std::string source_;  // the template helm named, under the chart's path; "" for none
  std::string file_;    // source_ when it is a file on disk, else the chart's Chart.yaml
  size_t first_line_;   // the document's first line in helm's output, 0-based
};

// A document and, for a rendered source's, where it came from (else null).
using SourceSink = std::function<bool(Document&& doc, const SourceOrigin* rendered)>;

// Streams the documents of one input: a file, or "-" for `stdin_fd`, as
// written; a chart or kustomization as its tool renders it. A chart's
// documents are named by the template helm's "# Source:" comment names,
// under the chart's path as given, and come with their RenderedDocument; a
// kustomization's are named by its kustomization file, and come with their
// KustomizedDocument (kustomize_origins.h), which places them in the files
// they came from. A missing tool, a tool that fails (its stderr quoted),
// times out or prints too much is an error at the source's path.
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
