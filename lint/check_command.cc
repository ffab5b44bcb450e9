// `gpulint check`: inputs -> documents -> objects -> Evaluate -> findings.
// Documents stream through one at a time, so memory stays flat whatever the
// size of the input; findings go to the writer as each object is evaluated.
#include <algorithm>
#include <filesystem>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "engine/engine.h"
#include "engine/loader.h"
#include "engine/workload.h"
#include "lint/commands.h"
#include "lint/output.h"
#include "lint/setup.h"

namespace gpulint {
namespace {

constexpr std::string_view kHelp = R"(Usage: gpulint check [OPTIONS] PATH... | -

Lints Kubernetes manifests (YAML or JSON, any number of documents per file,
kind: List included) for GPU workloads that can take nodes down.

Options:
  --policy FILE        use this policy (kind: Policy, gpulint.io/v1alpha1)
                       instead of the built-in one
  --nodes FILE         real nodes to check fit against, added to the policy's
                       node classes: 'kubectl get nodes -o yaml' (or -o json)
                       output, or Node documents. Repeatable
  --format FORMAT      text (default), json, sarif, junit or github
  --fail-on SEVERITY   the lowest severity that makes the exit status 1:
                       error (default), warning or info
  -q, --quiet          leave out the summary line
  -h, --help           print this text

Output:
  text    one line per finding on stdout, as compilers print them:
            file:line:col: severity: message [rule]
          stdin shows as <stdin>. The summary line, e.g.
            gpulint: 3 errors, 1 warning in 2 objects (5 files)
          goes to stderr, so stdout holds findings only. Colour only when
          stdout is a terminal and NO_COLOR is not set.
  json    one object on stdout (line and column are 1-based, 0 when unknown):
            {"findings": [{"rule", "severity", "message", "file", "line",
              "column", "object": {"apiVersion", "kind", "namespace", "name"},
              "path"}],
             "summary": {"errors", "warnings", "infos", "objects", "files"}}
          and no summary line.
  sarif   SARIF 2.1.0 for GitHub code scanning: every rule with its
          description and help, a result per finding with its file (relative
          to the current directory), line and column.
  junit   JUnit XML for CI test reports: a testsuite per file, a testcase per
          object (Kind/namespace/name), a <failure> per finding at or above
          --fail-on; findings below it are the testcase's <system-out>.
  github  GitHub Actions workflow commands, one per finding, which annotate
          the pull request: ::error file=F,line=L,col=C,title=RULE::MESSAGE
          (warning and notice for the lower severities).

Examples:
  gpulint check k8s/
  gpulint check --nodes nodes.yaml --fail-on warning k8s/
  helm template chart/ | gpulint check --format json -
  gpulint check --format sarif k8s/ > gpulint.sarif     # upload-sarif
  gpulint check --format junit k8s/ > gpulint-junit.xml
  gpulint check --format github k8s/                    # in a workflow step

A document that cannot be parsed is a parse-error finding; the run goes on
with the other documents and files. Problems with the inputs themselves (a
missing file, an invalid policy or nodes file) are printed to stderr as
'gpulint: error: ...' and make the exit status 2.

Exit status: 0 clean, 1 findings at or above --fail-on, 2 error.
)";

struct CheckOptions {
  std::string policy_file;               // empty: the built-in policy
  std::vector<std::string> nodes_files;  // --nodes, in order
  OutputFormat format = OutputFormat::kText;
  Severity fail_on = Severity::kError;
  bool quiet = false;
  std::vector<std::string> paths;  // "-" is stdin
};

class CheckRun {
 public:
  CheckRun(const CheckOptions& options, CliIo& io) : options_(options), io_(io) {}

  int Run() {
    Error error;
    if (!setup_.Load(options_.policy_file, options_.nodes_files, io_.stdin_fd, &error)) {
      ReportError(error);
      return kExitUsage;
    }
    std::vector<Error> path_errors;
    std::vector<InputFile> inputs = ExpandPaths(options_.paths, &path_errors);
    for (const Error& e : path_errors) ReportError(e);
    // A CI job pointed at the wrong directory should not pass in silence.
    if (inputs.empty() && path_errors.empty())
      io_.err << "gpulint: warning: no manifests found (looked for *.yaml, *.yml and *.json)\n";

    WriterOptions writer_options;
    writer_options.format = options_.format;
    writer_options.color = io_.color;
    writer_options.fail_on = options_.fail_on;
    writer_options.policy = &setup_.policy();
    std::error_code ec;
    writer_options.base_dir = std::filesystem::current_path(ec).string();
    writer_ = NewFindingWriter(writer_options, io_.out);
    for (const InputFile& input : inputs) CheckInput(input);
    writer_->Finish(summary_);
    writer_.reset();
    // JSON carries its own summary; the others leave stdout to the findings.
    if (options_.format != OutputFormat::kJson && !options_.quiet)
      io_.err << "gpulint: " << SummaryText(summary_) << '\n';

    if (input_failed_) return kExitUsage;
    return summary_.AtLeast(options_.fail_on) > 0 ? kExitFindings : kExitClean;
  }

 private:
  void ReportError(const Error& error) {
    input_failed_ = true;
    // Hand buffered findings out first, so a terminal shows things in order.
    if (writer_) writer_->Flush();
    io_.err << "gpulint: error: " << error.ToString() << '\n';
  }

  void Emit(const Finding& finding) {
    summary_.Count(finding.severity);
    writer_->Add(finding);
  }

  void CheckInput(const InputFile& input) {
    writer_->BeginFile(DisplayName(input.path));
    const Policy& policy = setup_.policy();
    DocumentSink sink = [&](Document&& doc) {
      if (!doc.ok) {
        writer_->BeginObject(ObjectRef(), DisplayName(input.path), doc.error.mark);
        Emit(ParseErrorFinding(doc.error));
        return true;
      }
      if (doc.root.is_null()) return true;  // empty document, e.g. a trailing "---"
      const std::string& file = doc.file.empty() ? DisplayName(input.path) : doc.file;
      ForEachObject(doc.root, [&](const Value& object) {
        if (!object.is_mapping()) return;  // the engine has nothing to say about scalars
        ++summary_.objects;
        writer_->BeginObject(RefOf(object), file, object.mark());
        for (const Finding& f : Evaluate(object, file, policy, setup_.inventory())) Emit(f);
      });
      return true;
    };
    Error error;
    if (LoadPath(input.path, io_.stdin_fd, limits_, sink, &error)) {
      ++summary_.files;
    } else {
      ReportError(error);
    }
  }

  const CheckOptions& options_;
  CliIo& io_;
  LoadLimits limits_;
  RunSetup setup_;
  std::unique_ptr<FindingWriter> writer_;
  Summary summary_;
  bool input_failed_ = false;
};

// What the parser cannot see one argument at a time.
bool ReadOptions(const ParsedArgs& args, CheckOptions* options, std::string* error) {
  options->policy_file = args.Get("--policy");
  options->nodes_files = args.All("--nodes");
  options->quiet = args.Has("--quiet");
  options->paths = args.positional;
  std::string format = args.Get("--format", "text");
  if (!ParseOutputFormat(format, &options->format) || options->format == OutputFormat::kMarkdown) {
    *error =
        "--format: unknown format '" + format + "' (choose text, json, sarif, junit or github)";
    return false;
  }
  std::string fail_on = args.Get("--fail-on", "error");
  if (!ParseSeverity(fail_on, &options->fail_on)) {
    *error = "--fail-on: unknown severity '" + fail_on + "' (choose error, warning or info)";
    return false;
  }
  for (const std::string& p : options->paths) {
    if (p.empty()) {
      *error = "empty path";
      return false;
    }
  }
  if (options->paths.empty()) {
    *error = "no input: give a PATH, or - to read stdin (see 'gpulint check --help')";
    return false;
  }
  size_t stdin_reads = std::count(options->paths.begin(), options->paths.end(), "-") +
                       std::count(options->nodes_files.begin(), options->nodes_files.end(), "-");
  if (stdin_reads > 1) {
    *error = "stdin ('-') can be read only once";
    return false;
  }
  return true;
}

int Run(const std::vector<std::string>& args, CliIo& io) {
  static const std::vector<OptionSpec> kSpecs = {
      {"--policy", "", true},  {"--nodes", "", true, true}, {"--format", "", true},
      {"--fail-on", "", true}, {"--quiet", "-q"},
  };
  ParsedArgs parsed;
  if (int rc = ParseOrExit(args, CheckCommand(), kSpecs, false, &parsed, io); rc >= 0) return rc;
  CheckOptions options;
  std::string error;
  if (!ReadOptions(parsed, &options, &error)) {
    Fail(io, error);
    return kExitUsage;
  }
  return CheckRun(options, io).Run();
}

}  // namespace

const Command& CheckCommand() {
  static const Command command{"check", kHelp, Run};
  return command;
}

}  // namespace gpulint
