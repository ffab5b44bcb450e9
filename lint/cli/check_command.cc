// `gpulint check` and `gpulint baseline`: the help, and the options read from
// the command line. The run itself is check_run.cc.
#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "lint/cli/check_run.h"
#include "lint/cli/commands.h"
#include "lint/output/formats.h"

namespace gpulint {
namespace {

constexpr std::string_view kHelp = R"(Usage: gpulint check [OPTIONS] PATH... | -

Lints Kubernetes manifests (YAML or JSON, any number of documents per file,
kind: List included) for GPU workloads that can take nodes down.

Options:
  --policy FILE        use this policy (kind: Policy, gpulint.io/v1alpha1)
                       for every input; see Policy below
  --nodes FILE         real nodes to check fit against, added to the policy's
                       node classes: 'kubectl get nodes -o yaml' (or -o json)
                       output, or Node documents. Repeatable
  --format FORMAT      @FORMATS@
  --fail-on SEVERITY   the lowest severity that makes the exit status 1:
                       error (default), warning or info; none: findings
                       never do, input errors still exit 2 (for a CI step
                       that uploads findings rather than judges them)
  --baseline FILE      report only findings not in FILE, a baseline written
                       by 'gpulint baseline' (see its --help); the summary
                       says how many it hid
  -f, --values FILE    values for every Helm chart among the inputs
                       (helm template --values FILE). Repeatable
  -j, --jobs N         check N files at a time (default: the number of
                       cores); the output is the same for any N
  --strict             an object holding containers gpulint could not reach
                       (workload-not-checked) is an error, not a warning
  --allow-empty        a PATH with no manifest is a warning, not an error
                       (exit 0 if nothing else is wrong); with it, no PATH
                       at all checks nothing
  --exclude GLOB       leave out the files and directories GLOB matches,
                       met in a walk or named (see Exclude below).
                       Repeatable
  --stdin-filename PATH
                       the file stdin ('-') holds: its findings are named
                       PATH in every format (SARIF needs a file for each
                       result, so --format sarif with stdin requires it), and
                       its policy is the one PATH would get
  -q, --quiet          leave out the summary line
  -h, --help           print this text

Output:
  text    one line per finding on stdout, as compilers print them:
            file:line:col: severity: message [rule]
          stdin shows as <stdin> (or --stdin-filename). The summary line, e.g.
            gpulint: 3 errors, 1 warning in 2 objects (5 files); policy: built-in
          When an object holds containers gpulint could not reach, the
          line adds "; 4 workloads checked, 1 not checked".
          goes to stderr, so stdout holds findings only. Colour only when
          stdout is a terminal and NO_COLOR is not set.
  json    one object on stdout (line and column are 1-based, 0 when unknown):
            {"findings": [{"rule", "severity", "message", "file", "line",
              "column", "object": {"apiVersion", "kind", "namespace", "name"},
              "path", "fingerprint"}],
             "errors": [{"message", "file", "line", "column"}],
             "summary": {"errors", "warnings", "infos", "objects", "files",
                         "checked", "notChecked", "policy", "policies"}}
          "errors" lists the input errors (see below), [] on a clean run;
          "summary.errors" counts findings of severity error.
          "checked" counts objects whose pods were checked, "notChecked"
          those holding containers gpulint could not reach.
          "fingerprint" is the finding's identity across runs (as in a
          baseline); a finding in a chart adds "rendered" (see Charts
          below); "summary" has "baselined" with --baseline, and
          "underOwner" when objects were judged under their owner (see
          Cluster dumps below). No summary line.
  sarif   SARIF 2.1.0 for GitHub code scanning, within its ingestion rules:
          every rule with its description and help, a result per finding
          with its file (relative to the current directory; stdin needs
          --stdin-filename), line (1 where none is known) and column, and
          its fingerprint as partialFingerprints["gpulint/v1"] and
          ["primaryLocationLineHash"], which code scanning follows alerts
          by; at most 25,000 results (code scanning refuses more), a
          notification saying how many more. runs[0].invocations[0] has
          executionSuccessful: false after an input error, with a
          toolExecutionNotification (file, line, column) per error.
  junit   JUnit XML for CI test reports: a testsuite per file, a testcase per
          object (Kind/namespace/name), a <failure> per finding at or above
          --fail-on; findings below it are the testcase's <system-out>. An
          input error is a testcase with an <error>.
  github  GitHub Actions workflow commands, one per finding, which annotate
          the pull request: ::error file=F,line=L,col=C,title=RULE::MESSAGE
          (warning and notice for the lower severities); an input error is
          ::error file=F,line=L,col=C,title=gpulint::MESSAGE.

Policy:
  Without --policy, each input is checked with the nearest .gpulint.yaml
  from its directory up to the repository root (the directory holding
  .git), else the file named by $GPULINT_POLICY, else the built-in policy.
  stdin is looked up from the current directory. A policy file is layered on
  the built-in one: what it sets replaces the default, what it leaves out
  keeps the default's value (policies/README.md). The summary line names the
  policy used ("; policy: k8s/.gpulint.yaml"), as do JSON ("policy") and
  SARIF (run.properties.policies). A policy that does not load is an error.

Examples:
  gpulint check k8s/
  gpulint check --nodes nodes.yaml --fail-on warning k8s/
  helm template chart/ | gpulint check --format json -
  helm template chart/ | gpulint check --format sarif --stdin-filename chart/Chart.yaml -
  gpulint check --format sarif --fail-on none k8s/ > gpulint.sarif
  gpulint check --format junit k8s/ > gpulint-junit.xml
  gpulint check --format github k8s/                    # in a workflow step
  gpulint check --baseline gpulint-baseline.json k8s/
  gpulint check --exclude vendor --exclude 'generated/**' .

Charts and kustomizations:
  A directory holding Chart.yaml is rendered with 'helm template', one
  holding kustomization.yaml with 'kubectl kustomize' (the tools on PATH),
  whether named or met in a walk; a file named inside a chart (a template
  passed by pre-commit) stands for its chart, rendered once, as does a
  kustomization.yaml named for its directory (its resources named are read
  as they are). A chart's finding is shown at the template line that wrote
  it, a subchart's under charts/:
    mychart/templates/deploy.yaml:17:11: ...
  found by rendering the chart once more, from a copy whose template lines
  end in a comment naming them, so a value that came from values, a helper
  or any other action is never put on a template line that reads the same.
  One that no template line wrote is shown at its template, with its line
  in helm's output ('helm template' with the same --values):
    mychart/templates/deploy.yaml: warning: line 40 of helm's output: ...
  (at the chart's Chart.yaml for a template of a packaged subchart, or a
  document helm names no template for). JSON findings, and SARIF results'
  properties, add "rendered": {"line", "column"}: where helm's output has
  it. A kustomization's read 'overlays/prod (kustomized):40:7' (lines of the
  kustomize output). A missing tool or a source that fails to render is an
  input error at its path, with the tool's own message.

Exclude:
  --exclude reads GLOB as .gitignore does. Without a '/' (but a trailing
  one), it matches a file or directory name at any depth: '*.json',
  'vendor'. With one, it matches the path below the PATH walked:
  'generated/*.yaml' under 'gpulint check k8s/' is k8s/generated/*.yaml, and
  a leading '/' changes nothing. A PATH named itself (a file pre-commit
  passes) is matched by its path from the current directory, each directory
  on the way down too. '*', '?' and [a-z] match within one name, never
  across '/'; '**' spans directories: '**/test' (any depth), 'test/**'
  (everything inside), 'a/**/b'. A trailing '/' matches directories only. An
  excluded directory is not walked; a chart or kustomization is rendered
  whole (exclude its directory to leave it out). A PATH that --exclude empties
  is one that gives no manifest (below). Quote GLOB for the shell:
    gpulint check --exclude 'generated/**' --exclude '*.json' k8s/

Cluster dumps:
  'kubectl get all -A -o json' lists Deployments, their ReplicaSets and their
  Pods, each with the Deployment's pod template. An object whose
  metadata.ownerReferences name another object of the same document (by uid,
  else by kind and name in its namespace) is not judged on its own: its
  findings are its owner's, reported once, under the owner. The summary line
  says how many ("; 6 objects judged under their owner"; they are not among
  its objects). kubectl prints a dump as one List; owners in another document
  or file are not looked for. The webhook judges every object alone.

A PATH that gives no manifest is an input error: a directory with no *.yaml,
*.yml or *.json under it, a file or stdin holding no YAML or JSON document
(empty, or comments only), a chart or kustomization that renders none. So
'gpulint check -' fails on empty stdin: a pipeline whose first command printed
nothing should not pass. --allow-empty makes these warnings.

A document that cannot be parsed is a parse-error finding; the run goes on
with the other documents and files. Problems with the inputs themselves (a
missing or unreadable file or directory, a chart that does not render, a
missing helm or kubectl, an invalid policy, nodes file or baseline) are input
errors: printed to stderr as 'gpulint: error: ...' in every format, carried
by the document of every format but text, and the exit status is 2. When one
stops the run before anything is checked (a policy, the nodes, the baseline),
the document is still whole, with no findings.

Exit status: 0 clean, 1 findings at or above --fail-on, 2 usage or input
error.
)";

// What the parser cannot see one argument at a time.
bool ReadOptions(const ParsedArgs& args, CheckOptions* options, std::string* error) {
  options->policy_file = args.Get("--policy");
  options->nodes_files = args.All("--nodes");
  options->quiet = args.Has("--quiet");
  options->strict = args.Has("--strict");
  options->allow_empty = args.Has("--allow-empty");
  options->baseline_file = args.Get("--baseline");
  options->output_file = args.Get("--output");
  options->render.values_files = args.All("--values");
  options->stdin_filename = args.Get("--stdin-filename");
  if (!ReadExcludes(args, &options->exclude, error)) return false;
  if (args.Has("--jobs")) {
    std::string jobs = args.Get("--jobs");
    char* end = nullptr;
    long n = std::strtol(jobs.c_str(), &end, 10);
    if (jobs.empty() || *end != '\0' || n < 1 || n > 256) {
      *error = "--jobs: expected a number from 1 to 256, got '" + jobs + "'";
      return false;
    }
    options->jobs = static_cast<int>(n);
  }
  options->paths = args.positional;
  std::string format = args.Get("--format", "text");
  options->format = FindOutputFormat(format);
  if (options->format == nullptr) {
    *error = "--format: unknown format '" + format + "' (choose " + OutputFormatChoices() + ")";
    return false;
  }
  std::string fail_on = args.Get("--fail-on", "error");
  Severity severity;
  if (fail_on == "none") {
    options->fail_on.reset();
  } else if (ParseSeverity(fail_on, &severity)) {
    options->fail_on = severity;
  } else {
    *error = "--fail-on: unknown severity '" + fail_on + "' (choose error, warning, info or none)";
    return false;
  }
  for (const std::string& p : options->paths) {
    if (p.empty()) {
      *error = "empty path";
      return false;
    }
  }
  if (options->paths.empty() && !options->allow_empty) {
    *error = "no input: give a PATH, or - to read stdin (see 'gpulint check --help')";
    return false;
  }
  for (const std::string& values : options->render.values_files) {
    if (values == "-" || values.empty()) {
      *error = "--values: name a file (helm cannot read values from gpulint's stdin)";
      return false;
    }
  }
  size_t stdin_reads = std::count(options->paths.begin(), options->paths.end(), "-") +
                       std::count(options->nodes_files.begin(), options->nodes_files.end(), "-") +
                       (options->baseline_file == "-" ? 1 : 0);
  if (stdin_reads > 1) {
    *error = "stdin ('-') can be read only once";
    return false;
  }
  bool reads_stdin = std::count(options->paths.begin(), options->paths.end(), "-") > 0;
  if (args.Has("--stdin-filename")) {
    if (options->stdin_filename.empty() || options->stdin_filename == "-") {
      *error = "--stdin-filename: name the file stdin holds";
      return false;
    }
    if (!reads_stdin) {
      *error = "--stdin-filename names stdin, which is not read: give - as a PATH";
      return false;
    }
  }
  if (reads_stdin && options->stdin_filename.empty() && options->format != nullptr &&
      std::string_view(options->format->name) == "sarif") {
    *error =
        "--format sarif reading stdin needs --stdin-filename PATH: GitHub code scanning refuses "
        "a result that is in no file of the repository";
    return false;
  }
  return true;
}

int Run(const std::vector<std::string>& args, CliIo& io) {
  ParsedArgs parsed;
  if (int rc = ParseOrExit(args, CheckCommand(), &parsed, io); rc >= 0) return rc;
  CheckOptions options;
  std::string error;
  if (!ReadOptions(parsed, &options, &error)) {
    Fail(io, error);
    return kExitUsage;
  }
  return RunCheck(options, io);
}

// "text json sarif junit github", for completion.
std::string FormatNames() {
  std::string out;
  for (const OutputFormat* f : OutputFormats()) out += (out.empty() ? "" : " ") + std::string(f->name);
  return out;
}

}  // namespace

int RunBaselineCommand(const std::vector<std::string>& args, CliIo& io) {
  ParsedArgs parsed;
  if (int rc = ParseOrExit(args, BaselineCommand(), &parsed, io); rc >= 0) return rc;
  CheckOptions options;
  options.write_baseline = true;
  std::string error;
  if (!ReadOptions(parsed, &options, &error)) {
    Fail(io, error);
    return kExitUsage;
  }
  return RunCheck(options, io);
}

const Command& CheckCommand() {
  // The formats' line comes from the one list of formats.
  static const std::string help = HelpWithFormats(kHelp, OutputFormatChoices(true));
  static const std::string formats = FormatNames();
  static const Command command{"check",
                               help,
                               Run,
                               {
                                   {"--policy", "", true},
                                   {"--nodes", "", true, true},
                                   {"--format", "", true, false, formats},
                                   {"--fail-on", "", true, false, kFailOnChoices},
                                   {"--quiet", "-q"},
                                   {"--jobs", "-j", true},
                                   {"--baseline", "", true},
                                   {"--values", "-f", true, true},
                                   {"--strict", ""},
                                   {"--allow-empty", ""},
                                   {"--exclude", "", true, true},
                                   {"--stdin-filename", "", true},
                               }};
  return command;
}

}  // namespace gpulint
