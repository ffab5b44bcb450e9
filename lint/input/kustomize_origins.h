// Which file wrote each document of a kustomization's output, found by asking
// kustomize rather than by guessing, as template_lines.h does for charts.
//
// When a finding needs placing, the kustomization is rendered a second time
// through a wrapper in a temporary directory: a kustomization.yaml whose one
// resource is the kustomization (by a relative path: kustomize refuses an
// absolute one) and which sets `buildMetadata: [originAnnotations]`, so each
// document comes with `config.kubernetes.io/origin`: the resource file it was
// read from (`path`), or the kustomization whose generator made it
// (`configuredIn`). The wrapper transforms nothing, so both renders hold the
// same documents in the same order; when they do not (same kind, namespace
// and name at each place), nothing is placed.
//
// A position is placed in the resource file only when the value there is the
// one kustomize wrote: the object of the same kind whose name the output's
// contains (a namePrefix or nameSuffix adds to it), the same keys down to the
// position (list items matched by their `name`, else by index), and the same
// scalar text. A value a patch, a replacement or any other transformer wrote
// is not in the file as it is, and is never put on a line that happens to
// read the same. Such a finding, and one of a generated object or one read
// from a remote resource, is placed on the kustomization file (the one that
// configured a generator, else the one linted), with where kustomize's output
// has it. Anything that goes wrong (no scratch directory, a render that
// fails or differs) places nothing but on the kustomization file.
#ifndef GPULINT_LINT_INPUT_KUSTOMIZE_ORIGINS_H_
#define GPULINT_LINT_INPUT_KUSTOMIZE_ORIGINS_H_

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/subprocess.h"
#include "engine/base/finding.h"
#include "engine/yaml/loader.h"
#include "lint/input/render.h"

namespace gpulint {

class KustomizedDocument : public SourceOrigin {
 public:
  struct Kustomization;  // shared by a kustomization's documents
  KustomizedDocument(std::shared_ptr<Kustomization> kustomization, size_t index)
      : kustomization_(std::move(kustomization)), index_(index) {}

  void Place(const Value& doc, std::string* file, Mark* mark,
             std::string* message) const override;
  // The output is loaded whole, so a document's marks are already its lines.
  Mark InOutput(Mark mark) const override { return mark; }

 private:
  std::shared_ptr<Kustomization> kustomization_;
  size_t index_;  // among the output's documents
};

// Streams the documents of `output`, what `argv` (the tool, `what` in
// messages, with the kustomization's directory `dir` last) printed, each
// named by and placed with its KustomizedDocument.
bool LoadKustomizeOutput(std::string output, const std::string& dir,
                         std::vector<std::string> argv, const std::string& what,
                         const ToolLimits& tool_limits, const LoadLimits& limits,
                         const SourceSink& sink, Error* error);

}  // namespace gpulint

#endif  // GPULINT_LINT_INPUT_KUSTOMIZE_ORIGINS_H_
