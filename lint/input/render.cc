#include "lint/input/render.h"

#include <sys/stat.h>

#include <algorithm>
#include <optional>
#include <utility>

#include "engine/yaml/loader.h"
#include "lint/input/inputs.h"
#include "lint/input/kustomize_origins.h"
#include "lint/input/setup.h"
#include "lint/input/template_lines.h"

namespace gpulint {
namespace {

constexpr std::string_view kSourcePrefix = "# Source: ";

// A path as an argument: one that starts with '-' would read as an option.
std::string AsArgument(const std::string& path) {
  return !path.empty() && path[0] == '-' ? "./" + path : path;
}

std::string TrimmedEnd(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ' || text.back() == '\r'))
    text.pop_back();
  return text;
}

// "failed (exit status 1): Error: ..." with what the tool printed on stderr.
std::string ToolFailure(const std::string& what, const ToolRun& run, const ToolLimits& limits) {
  std::string text = what + " failed (" + run.FailureText(limits) + ")";
  std::string err = TrimmedEnd(run.err);
  return err.empty() ? text : text + ": " + err;
}

// Runs `argv` for the source at `path`; its stdout on success.
bool Render(const std::vector<std::string>& argv, const std::string& what, const std::string& path,
            const ToolLimits& limits, std::string* out, Error* error) {
  ToolRun run;
  std::string start_error;
  if (!RunTool(argv, limits, &run, &start_error)) {
    *error = Error{path, {}, "cannot run " + what + ": " + start_error};
    return false;
  }
  if (!run.ok()) {
    *error = Error{path, {}, ToolFailure(what, run, limits)};
    return false;
  }
  *out = std::move(run.out);
  return true;
}

// The file a "# Source:" comment names, under the chart's path as given:
// helm names it from the chart's name ("mychart/templates/x.yaml"), which
// need not be its directory's.
std::string SourceFile(std::string_view source, const std::string& chart) {
  size_t slash = source.find('/');
  if (slash == std::string_view::npos) return chart;
  std::string rest(source.substr(slash + 1));
  if (chart == ".") return rest;
  return chart.back() == '/' ? chart + rest : chart + "/" + rest;
}

bool IsDocumentMarker(std::string_view line) {
  if (line.substr(0, 3) != "---") return false;
  line.remove_prefix(3);
  return line.find_first_not_of(" \t\r") == std::string_view::npos;
}

}  // namespace

// A chart's render, and which template line wrote which line of it, found
// when a document first needs it (a second render: template_lines.h).
struct RenderedDocument::Chart {
  std::string path;               // as given
  std::vector<std::string> argv;  // helm's, the chart at argv[2]
  ToolLimits limits;
  std::string output;
  std::optional<TemplateLines> lines;

  const TemplateLines& Lines() {
    if (!lines) lines = TemplateLines::Build(argv, 2, path, output, limits);
    return *lines;
  }
};

namespace {

bool RenderChart(const std::string& chart, const RenderOptions& options, const LoadLimits& limits,
                 const SourceSink& sink, Error* error) {
  std::string helm = FindOnPath("helm");
  if (helm.empty()) {
    *error = Error{chart,
                   {},
                   "is a Helm chart; install helm to lint it, or lint helm's output: "
                   "helm template " +
                       chart + " | gpulint check -"};
    return false;
  }
  std::vector<std::string> argv = {helm, "template", AsArgument(chart)};
  for (const std::string& values : options.values_files) {
    argv.push_back("--values");
    argv.push_back(values);
  }
  auto rendered = std::make_shared<RenderedDocument::Chart>();
  if (!Render(argv, "helm template", chart, options.limits, &rendered->output, error)) return false;
  rendered->path = chart;
  rendered->argv = std::move(argv);
  rendered->limits = options.limits;
  return LoadHelmOutput(rendered->output, chart, rendered, limits, sink, error);
}

bool RenderKustomization(const std::string& dir, const RenderOptions& options,
                         const LoadLimits& limits, const SourceSink& sink, Error* error) {
  std::vector<std::string> argv;
  std::string what;
  if (std::string kubectl = FindOnPath("kubectl"); !kubectl.empty()) {
    argv = {kubectl, "kustomize", AsArgument(dir)};
    what = "kubectl kustomize";
  } else if (std::string kustomize = FindOnPath("kustomize"); !kustomize.empty()) {
    argv = {kustomize, "build", AsArgument(dir)};
    what = "kustomize build";
  } else {
    *error = Error{dir,
                   {},
                   "is a kustomization; install kubectl to lint it, or lint its output: "
                   "kubectl kustomize " +
                       dir + " | gpulint check -"};
    return false;
  }
  std::string out;
  return Render(argv, what, dir, options.limits, &out, error) &&
         LoadKustomizeOutput(std::move(out), dir, std::move(argv), what, options.limits, limits,
                             sink, error);
}

bool IsFile(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

}  // namespace

RenderedDocument::RenderedDocument(std::shared_ptr<Chart> chart, std::string source,
                                   size_t first_line)
    : chart_(std::move(chart)), source_(std::move(source)), first_line_(first_line) {
  // A template in a packaged subchart (charts/x.tgz) is no file on disk: the
  // chart that names it is.
  file_ = !source_.empty() && IsFile(source_) ? source_
          : chart_->path.back() == '/'        ? chart_->path + "Chart.yaml"
                                              : chart_->path + "/Chart.yaml";
}

Mark RenderedDocument::InOutput(Mark mark) const {
  if (mark.line > 0) mark.line += static_cast<uint32_t>(first_line_);
  return mark;
}

void RenderedDocument::Place(const Value&, std::string* file, Mark* mark,
                             std::string* message) const {
  Mark out = InOutput(*mark);
  if (out.line > 0 && chart_->Lines().Find(out.line - 1, out.column, file, mark)) return;
  *file = file_;
  *mark = Mark();
  if (out.line == 0) return;
  std::string where = "line " + std::to_string(out.line) + " of helm's output";
  if (file_ != source_ && !source_.empty()) where += ", from " + source_;
  *message = where + ": " + *message;
}

bool LoadHelmOutput(std::string_view text, const std::string& chart,
                    std::shared_ptr<RenderedDocument::Chart> rendered, const LoadLimits& limits,
                    const SourceSink& sink, Error* error) {
  if (!rendered) {
    rendered = std::make_shared<RenderedDocument::Chart>();
    rendered->path = chart;
    rendered->lines = TemplateLines();  // nothing to place with
  }
  bool stopped = false;
  size_t counted = 0, lines = 0;  // the newlines in text[0, counted)
  // Documents are cut at "---" lines, so each one's lines count from its own
  // start; a "---" at the start of a line is a document marker wherever it
  // is, so no document is cut in two.
  size_t pos = 0;
  while (pos < text.size() && !stopped) {
    size_t end = pos;
    while (end < text.size()) {
      size_t eol = text.find('\n', end);
      std::string_view line = text.substr(end, eol == std::string_view::npos ? eol : eol - end);
      if (end > pos && IsDocumentMarker(line)) break;
      end = eol == std::string_view::npos ? text.size() : eol + 1;
    }
    std::string_view piece = text.substr(pos, end - pos);
    pos = end;
    if (size_t eol = piece.find('\n'); IsDocumentMarker(piece.substr(0, eol))) {
      piece.remove_prefix(eol == std::string_view::npos ? piece.size() : eol + 1);
    }
    std::string source;
    if (piece.substr(0, kSourcePrefix.size()) == kSourcePrefix) {
      size_t eol = piece.find('\n');
      source = SourceFile(piece.substr(kSourcePrefix.size(), eol - kSourcePrefix.size()), chart);
      piece.remove_prefix(eol == std::string_view::npos ? piece.size() : eol + 1);
    }
    if (piece.find_first_not_of(" \t\r\n") == std::string_view::npos) continue;
    // Its lines count from its own start; where that is in helm's output.
    size_t begin = static_cast<size_t>(piece.data() - text.data());
    lines += static_cast<size_t>(std::count(text.begin() + counted, text.begin() + begin, '\n'));
    counted = begin;
    RenderedDocument from(rendered, source, lines);
    DocumentSink until_stopped = [&](Document&& doc) {
      stopped = !sink(std::move(doc), &from);
      return !stopped;
    };
    if (!LoadYamlString(piece, source.empty() ? chart : source, limits, until_stopped, error))
      return false;
  }
  return true;
}

bool LoadSource(const InputFile& input, int stdin_fd, const RenderOptions& options,
                const LoadLimits& limits, const SourceSink& sink, Error* error) {
  switch (input.kind) {
    case InputKind::kHelmChart:
      return RenderChart(input.path, options, limits, sink, error);
    case InputKind::kKustomization:
      return RenderKustomization(input.path, options, limits, sink, error);
    case InputKind::kFile:
      break;
  }
  return LoadPath(
      input.path, stdin_fd, limits, [&](Document&& doc) { return sink(std::move(doc), nullptr); },
      error);
}

std::string NotFixableText(const InputFile& input) {
  std::string what = input.kind == InputKind::kHelmChart ? "a Helm chart" : "a kustomization";
  std::string edit =
      input.kind == InputKind::kHelmChart ? "its templates or values" : "its resources or patches";
  return "is " + what + ", left alone: gpulint fix edits files, and its manifests exist only " +
         "once rendered; fix " + edit + " by hand ('gpulint check " + input.path +
         "' shows what to change)";
}

}  // namespace gpulint
