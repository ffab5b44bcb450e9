// What the command line names, as inputs: files, Helm charts and
// kustomizations, found by walking directories.
#ifndef GPULINT_LINT_INPUT_INPUTS_H_
#define GPULINT_LINT_INPUT_INPUTS_H_

#include <cstddef>
#include <string>
#include <vector>

#include "engine/base/finding.h"
#include "lint/input/exclude.h"

namespace gpulint {

// Expands command-line paths into the files to read: a directory is walked
// recursively for *.yaml, *.yml and *.json (sorted, symlink loops not
// followed); "-" is stdin. Paths that cannot be used become errors.
//
// Some directories are sources that a tool renders into manifests, not
// manifests: a Helm chart (it holds Chart.yaml; its templates are not YAML)
// and a kustomization (kustomization.yaml, kustomization.yml or
// Kustomization). Such a directory, named or met in a walk, is one input of
// its kind and is not walked. A file named on the command line inside a chart
// (a template passed by pre-commit, values.yaml) stands for the chart, the
// outermost one when charts nest (subcharts under charts/); a kustomization
// file named stands for its kustomization, while its resources named are read
// as the manifests they are. Each source is listed once, however many of its
// files are named.
enum class InputKind { kFile, kHelmChart, kKustomization };
struct InputFile {
  std::string path;  // "-" for stdin
  InputKind kind = InputKind::kFile;
};
// What `exclude` matches (lint/input/exclude.h) is left out, named or met in
// a walk, and is no error: a directory that matches is not walked.
// With `yields`, (*yields)[i] says what paths[i] gave: the indices of its
// inputs in the result (a source named through several paths is under each),
// how many errors, and how many directories and manifests --exclude left out.
// A path that gave no input and no error holds no manifest.
struct PathYield {
  std::vector<size_t> inputs;
  size_t errors = 0;
  size_t excluded = 0;
};
// The kustomization file of the kustomization at `dir` (kustomization.yaml,
// kustomization.yml or Kustomization, under `dir` as given), or "" for none.
std::string KustomizationFile(const std::string& dir);

std::vector<InputFile> ExpandPaths(const std::vector<std::string>& paths,
                                   const ExcludePatterns& exclude, std::vector<Error>* errors,
                                   std::vector<PathYield>* yields = nullptr);

}  // namespace gpulint

#endif  // GPULINT_LINT_INPUT_INPUTS_H_
