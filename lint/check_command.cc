// `gpulint check`: inputs -> documents -> objects -> Evaluate -> findings.
// Documents stream through one at a time, so memory stays flat whatever the
// size of the input; findings go to the writer as each object is evaluated.
// With several files and --jobs above 1, a small pool checks files side by
// side and the findings are replayed in input order, so the output is the same
// byte for byte whatever the number of jobs.

#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <ostream>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <variant>
#include <vector>

#include "common/cpus.h"
#include "engine/engine.h"
#include "engine/loader.h"
#include "engine/workload.h"
#include "lint/baseline.h"
#include "lint/commands.h"
#include "lint/fingerprint.h"
#include "lint/formats.h"
#include "lint/output.h"
#include "lint/policy_discovery.h"
#include "lint/render.h"
#include "lint/setup.h"

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
                       error (default), warning or info
  --baseline FILE      report only findings not in FILE, a baseline written
                       by 'gpulint baseline' (see its --help); the summary
                       says how many it hid
  -f, --values FILE    values for every Helm chart among the inputs
                       (helm template --values FILE). Repeatable
  -j, --jobs N         check N files at a time (default: the number of
                       cores); the output is the same for any N
  --strict             an object holding containers gpulint could not reach
                       (workload-not-checked) is an error, not a warning
  -q, --quiet          leave out the summary line
  -h, --help           print this text

Output:
  text    one line per finding on stdout, as compilers print them:
            file:line:col: severity: message [rule]
          stdin shows as <stdin>. The summary line, e.g.
            gpulint: 3 errors, 1 warning in 2 objects (5 files); policy: built-in
          When an object holds containers gpulint could not reach, the
          line adds "; 4 workloads checked, 1 not checked".
          goes to stderr, so stdout holds findings only. Colour only when
          stdout is a terminal and NO_COLOR is not set.
  json    one object on stdout (line and column are 1-based, 0 when unknown):
            {"findings": [{"rule", "severity", "message", "file", "line",
              "column", "object": {"apiVersion", "kind", "namespace", "name"},
              "path", "fingerprint"}],
             "summary": {"errors", "warnings", "infos", "objects", "files",
                         "checked", "notChecked", "policy", "policies"}}
          "checked" counts objects whose pods were checked, "notChecked"
          those holding containers gpulint could not reach.
          "fingerprint" is the finding's identity across runs (as in a
          baseline); "summary" has "baselined" with --baseline. No
          summary line.
  sarif   SARIF 2.1.0 for GitHub code scanning: every rule with its
          description and help, a result per finding with its file (relative
          to the current directory), line and column, and its fingerprint
          as partialFingerprints["gpulint/v1"].
  junit   JUnit XML for CI test reports: a testsuite per file, a testcase per
          object (Kind/namespace/name), a <failure> per finding at or above
          --fail-on; findings below it are the testcase's <system-out>.
  github  GitHub Actions workflow commands, one per finding, which annotate
          the pull request: ::error file=F,line=L,col=C,title=RULE::MESSAGE
          (warning and notice for the lower severities).

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
  gpulint check --format sarif k8s/ > gpulint.sarif     # upload-sarif
  gpulint check --format junit k8s/ > gpulint-junit.xml
  gpulint check --format github k8s/                    # in a workflow step
  gpulint check --baseline gpulint-baseline.json k8s/

Charts and kustomizations:
  A directory holding Chart.yaml is rendered with 'helm template', one
  holding kustomization.yaml with 'kubectl kustomize' (the tools on PATH),
  whether named or met in a walk; a file named inside a chart (a template
  passed by pre-commit) stands for its chart, rendered once, as does a
  kustomization.yaml named for its directory (its resources named are read
  as they are). Findings then read
    mychart/templates/deploy.yaml (rendered):12:9: ...
  (lines count within that rendered document, from the line after helm's
  '# Source:' comment) or 'overlays/prod (kustomized):40:7' (lines of the
  kustomize output). A missing tool or a source that fails to render is an
  input error at its path, with the tool's own message.

A document that cannot be parsed is a parse-error finding; the run goes on
with the other documents and files. Problems with the inputs themselves (a
missing file, an invalid policy or nodes file) are printed to stderr as
'gpulint: error: ...' and make the exit status 2.

Exit status: 0 clean, 1 findings at or above --fail-on, 2 error.
)";

struct CheckOptions {
  std::string policy_file;               // empty: the built-in policy
  std::vector<std::string> nodes_files;  // --nodes, in order
  const OutputFormat* format = OutputFormats().front();
  Severity fail_on = Severity::kError;
  bool quiet = false;
  bool strict = false;  // workload-not-checked is an error
  int jobs = 0;                    // 0: one per core this process may run on
  std::vector<std::string> paths;  // "-" is stdin
  std::string baseline_file;       // --baseline: report only findings not in it
  bool write_baseline = false;     // `gpulint baseline`: write one instead of a report
  std::string output_file;         // `gpulint baseline --output`; empty: stdout
  RenderOptions render;            // --values, for charts
};

// "; policy: built-in", "; policies: a/.gpulint.yaml, built-in"; nothing
// when no file was checked.
std::string PolicyText(const std::vector<std::string>& names) {
  if (names.empty()) return "";
  std::string out = names.size() == 1 ? "; policy: " : "; policies: ";
  for (size_t i = 0; i < names.size(); ++i) out += (i ? ", " : "") + names[i];
  return out;
}

// Where one file's objects and findings go: straight to the writer, or into a
// FileResult to be replayed in input order.
class FileSink {
 public:
  virtual ~FileSink() = default;
  // `counted`: an object, not a document that could not be read.
  virtual void Object(ObjectRef ref, const std::string& file, Mark mark, bool counted,
                      Coverage coverage) = 0;
  virtual void Add(Finding finding) = 0;
};

struct ObjectStart {
  ObjectRef ref;
  std::string file;
  Mark mark;
  bool counted;
  Coverage coverage;
};

struct FileResult : FileSink {
  void Object(ObjectRef ref, const std::string& file, Mark mark, bool counted,
              Coverage coverage) override {
    events.emplace_back(ObjectStart{std::move(ref), file, mark, counted, coverage});
  }
  void Add(Finding finding) override { events.emplace_back(std::move(finding)); }

  std::vector<std::variant<ObjectStart, Finding>> events;
  bool by_worker = false;  // checked on a worker thread, which frees it too
  bool ok = false;
  Error error;  // when !ok
};

class CheckRun {
 public:
  CheckRun(const CheckOptions& options, CliIo& io) : options_(options), io_(io) {}

  int Run() {
    Error error;
    if (!options_.baseline_file.empty()) {
      baseline_.emplace();
      if (!baseline_->Load(options_.baseline_file, io_.stdin_fd, &error)) {
        ReportError(error);
        return kExitUsage;
      }
      summary_.baselined = 0;
    }
    const char* env_policy = std::getenv(kPolicyEnvVar);
    if (!setup_.Load(options_.policy_file, options_.nodes_files, io_.stdin_fd, &error,
                     env_policy ? env_policy : "")) {
      ReportError(error);
      return kExitUsage;
    }
    std::vector<Error> path_errors;
    std::vector<InputFile> inputs = ManifestInputs(options_.paths, &path_errors);
    for (const Error& e : path_errors) ReportError(e);
    // Every policy is loaded before any output, so a bad one stops the run
    // before half of it is reported.
    std::vector<std::string> policy_names;
    for (const InputFile& input : inputs) {
      const PolicySetup* policy = setup_.PolicyFor(input.path, &error);
      if (!policy) {
        ReportError(error);
        return kExitUsage;
      }
      policies_.push_back(policy);
      if (std::find(policy_names.begin(), policy_names.end(), policy->name) == policy_names.end())
        policy_names.push_back(policy->name);
    }
    // A CI job pointed at the wrong directory should not pass in silence.
    if (inputs.empty() && path_errors.empty())
      io_.err << "gpulint: warning: no manifests found (looked for *.yaml, *.yml and *.json)\n";

    WriterOptions writer_options;
    writer_options.color = io_.color;
    writer_options.fail_on = options_.fail_on;
    writer_options.policy = policies_.empty() ? &setup_.policy() : policies_[0]->policy;
    writer_options.policies = policy_names;
    std::error_code ec;
    writer_options.base_dir = std::filesystem::current_path(ec).string();
    base_dir_ = writer_options.base_dir;
    BaselineWriter* baseline_writer = nullptr;
    if (options_.write_baseline) {
      auto writer = std::make_unique<BaselineWriter>(base_dir_);
      baseline_writer = writer.get();
      writer_ = std::move(writer);
    } else {
      writer_ = options_.format->make(writer_options, io_.out);
    }
    int jobs = std::min<int>(options_.jobs > 0 ? options_.jobs : UsableCpus(),
                             static_cast<int>(inputs.size()));
    if (jobs > 1) {
      CheckInParallel(inputs, jobs);
    } else {
      for (size_t i = 0; i < inputs.size(); ++i) CheckInput(inputs[i], *policies_[i]);
    }
    writer_->Finish(summary_);
    if (baseline_writer) return WriteBaseline(baseline_writer->Text(), PolicyText(policy_names));
    writer_.reset();
    if (!options_.format->holds_summary && !options_.quiet)
      io_.err << "gpulint: " << SummaryText(summary_) << PolicyText(policy_names) << '\n';

    if (input_failed_) return kExitUsage;
    return summary_.AtLeast(options_.fail_on) > 0 ? kExitFindings : kExitClean;
  }

 private:
  // `gpulint baseline`. Nothing is written when an input could not be read:
  // the next check would report that file's findings as new.
  int WriteBaseline(const std::string& text, const std::string& policy_text) {
    writer_.reset();
    if (input_failed_) {
      Fail(io_, "no baseline written: not every input could be read");
      return kExitUsage;
    }
    if (options_.output_file.empty()) {
      io_.out << text;
    } else if (std::string error; !WriteBaselineFile(options_.output_file, text, &error)) {
      Fail(io_, error);
      return kExitUsage;
    }
    if (!options_.quiet) {
      io_.err << "gpulint: baseline"
              << (options_.output_file.empty() ? "" : " " + options_.output_file) << ": "
              << SummaryText(summary_) << policy_text << '\n';
    }
    return kExitClean;
  }

  void ReportError(const Error& error) {
    input_failed_ = true;
    // Hand buffered findings out first, so a terminal shows things in order.
    if (writer_) writer_->Flush();
    io_.err << "gpulint: error: " << error.ToString() << '\n';
  }

  // Not in the writers: a baseline hides findings before anything counts them.
  void Emit(Finding& finding) {
    if (options_.strict && finding.rule == "workload-not-checked")
      finding.severity = Severity::kError;
    finding.fingerprint = Fingerprint(finding, base_dir_);
    if (baseline_ && baseline_->Hide(finding.fingerprint)) {
      ++*summary_.baselined;
      return;
    }
    summary_.Count(finding.severity);
    writer_->Add(finding);
  }

  // The writer as a FileSink: one file at a time, findings as they come.
  class DirectSink : public FileSink {
   public:
    explicit DirectSink(CheckRun& run) : run_(run) {}
    void Object(ObjectRef ref, const std::string& file, Mark mark, bool counted,
                Coverage coverage) override {
      if (counted) run_.CountObject(coverage);
      run_.writer_->BeginObject(ref, file, mark);
    }
    void Add(Finding finding) override { run_.Emit(finding); }

   private:
    CheckRun& run_;
  };

  void CheckInput(const InputFile& input, const PolicySetup& policy) {
    writer_->BeginFile(DisplayName(input.path));
    DirectSink sink(*this);
    Error error;
    if (CheckFile(input, policy, sink, &error)) {
      ++summary_.files;
    } else {
      ReportError(error);
    }
  }

  // Touches nothing but `out`, the loader and the engine (all const here), so
  // that files can be checked on several threads at once.
  bool CheckFile(const InputFile& input, const PolicySetup& setup, FileSink& out,
                 Error* error) const {
    const Policy& policy = *setup.policy;
    DeviceClaims claims;  // DRA claims and templates seen so far in this file
    DocumentSink sink = [&](Document&& doc) {
      if (!doc.ok) {
        out.Object(ObjectRef(), DisplayName(input.path), doc.error.mark, false,
                   Coverage::kNoWorkload);
        out.Add(ParseErrorFinding(doc.error));
        return true;
      }
      if (doc.root.is_null()) return true;  // empty document, e.g. a trailing "---"
      const std::string& file = doc.file.empty() ? DisplayName(input.path) : doc.file;
      ForEachObject(doc.root, [&](const Value& object) {
        if (!object.is_mapping()) return;  // the engine has nothing to say about scalars
        claims.Add(object);
        Coverage coverage;
        std::vector<Finding> findings =
            Evaluate(object, file, policy, setup.inventory, &claims, &coverage);
        out.Object(RefOf(object), file, object.mark(), true, coverage);
        for (Finding& f : findings) out.Add(std::move(f));
      });
      return true;
    };
    return LoadSource(input, io_.stdin_fd, options_.render, limits_, sink, error);
  }

  void Replay(const InputFile& input, FileResult& result) {
    writer_->BeginFile(DisplayName(input.path));
    for (auto& event : result.events) {
      if (auto* start = std::get_if<ObjectStart>(&event)) {
        if (start->counted) CountObject(start->coverage);
        writer_->BeginObject(start->ref, start->file, start->mark);
      } else {
        Emit(std::get<Finding>(event));
      }
    }
    if (result.ok) {
      ++summary_.files;
    } else {
      ReportError(result.error);
    }
  }

  void CountObject(Coverage coverage) {
    ++summary_.objects;
    if (coverage == Coverage::kChecked) ++summary_.checked;
    if (coverage == Coverage::kNotChecked) ++summary_.not_checked;
  }

  // Files are taken in order by jobs - 1 workers and by this thread, which
  // also replays each result as soon as it and all before it are done: it
  // checks a file itself rather than sleep while the next result is not in.
  // (A sleeping replayer woken once per file was 7,500 futex calls and a
  // third more CPU on 2,000 small files.) At most kWindow results per job
  // wait, so memory stays bounded by a few files' findings.
  void CheckInParallel(const std::vector<InputFile>& inputs, int jobs) {
    constexpr size_t kWindow = 16;
    const size_t n = inputs.size();
    const size_t window = kWindow * static_cast<size_t>(jobs);
    std::vector<std::optional<FileResult>> results(n);
    std::mutex mu;
    std::condition_variable done_cv, space_cv;
    size_t next = 0, replayed = 0;
    size_t awaited = n;  // the result the replayer sleeps for, if it does
    int asleep = 0;      // workers waiting for the window to move
    auto may_take = [&] { return next < n && next < replayed + window; };
    // Results a worker made and this thread replayed, for a worker to free.
    // Freed here, their memory went to this thread's allocator cache and the
    // worker's next files were built in memory last written on another core:
    // two jobs spent 6 to 8% more CPU time (perf stat, best of 10).
    std::vector<FileResult> replayed_results;
    // Checks file `next` with the lock held on entry and on return.
    auto check_next = [&](std::unique_lock<std::mutex>& lock, bool by_worker) {
      size_t i = next++;
      std::vector<FileResult> to_free;
      if (by_worker) to_free.swap(replayed_results);
      lock.unlock();
      to_free.clear();
      FileResult result;
      result.by_worker = by_worker;
      result.ok = CheckFile(inputs[i], *policies_[i], result, &result.error);
      lock.lock();
      results[i] = std::move(result);
      if (i == awaited) done_cv.notify_one();
    };
    auto work = [&] {
      std::unique_lock<std::mutex> lock(mu);
      while (true) {
        if (!may_take() && next < n) {
          ++asleep;
          space_cv.wait(lock, [&] { return next == n || may_take(); });
          --asleep;
        }
        if (next == n) return;
        check_next(lock, true);
      }
    };
    std::vector<std::thread> workers;
    for (int j = 1; j < jobs; ++j) {
      try {
        workers.emplace_back(work);
      } catch (const std::system_error&) {
        break;  // out of threads: the ones there are will do
      }
    }
    std::unique_lock<std::mutex> lock(mu);
    for (size_t i = 0; i < n;) {
      if (results[i].has_value()) {
        FileResult result = std::move(*results[i]);
        results[i].reset();
        replayed = ++i;
        bool wake = asleep > 0;
        lock.unlock();
        if (wake) space_cv.notify_all();
        Replay(inputs[i - 1], result);
        lock.lock();
        if (result.by_worker) replayed_results.push_back(std::move(result));
      } else if (may_take()) {
        check_next(lock, false);
      } else {
        awaited = i;
        done_cv.wait(lock, [&] { return results[i].has_value(); });
        awaited = n;
      }
    }
    lock.unlock();
    for (std::thread& t : workers) t.join();
  }

  const CheckOptions& options_;
  CliIo& io_;
  LoadLimits limits_;
  RunSetup setup_;
  std::vector<const PolicySetup*> policies_;  // by input
  std::unique_ptr<FindingWriter> writer_;
  Summary summary_;
  bool input_failed_ = false;
  std::string base_dir_;              // the working directory, for fingerprints
  std::optional<Baseline> baseline_;  // --baseline
};

// What the parser cannot see one argument at a time.
bool ReadOptions(const ParsedArgs& args, CheckOptions* options, std::string* error) {
  options->policy_file = args.Get("--policy");
  options->nodes_files = args.All("--nodes");
  options->quiet = args.Has("--quiet");
  options->strict = args.Has("--strict");
  options->baseline_file = args.Get("--baseline");
  options->output_file = args.Get("--output");
  options->render.values_files = args.All("--values");
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
  return true;
}

int Run(const std::vector<std::string>& args, CliIo& io) {
  static const std::vector<OptionSpec> kSpecs = {
      {"--policy", "", true},  {"--nodes", "", true, true}, {"--format", "", true},
      {"--fail-on", "", true}, {"--quiet", "-q"},  {"--jobs", "-j", true},
      {"--baseline", "", true}, {"--values", "-f", true, true}, {"--strict", ""},
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

int RunBaselineCommand(const std::vector<std::string>& args, CliIo& io) {
  static const std::vector<OptionSpec> kSpecs = {
      {"--policy", "", true}, {"--nodes", "", true, true}, {"--quiet", "-q"},
      {"--jobs", "-j", true}, {"--output", "-o", true}, {"--values", "-f", true, true},
  };
  ParsedArgs parsed;
  if (int rc = ParseOrExit(args, BaselineCommand(), kSpecs, false, &parsed, io); rc >= 0)
    return rc;
  CheckOptions options;
  options.write_baseline = true;
  std::string error;
  if (!ReadOptions(parsed, &options, &error)) {
    Fail(io, error);
    return kExitUsage;
  }
  return CheckRun(options, io).Run();
}

const Command& CheckCommand() {
  // The formats' line comes from the one list of formats.
  static const std::string help = HelpWithFormats(kHelp, OutputFormatChoices(true));
  static const Command command{"check", help, Run};
  return command;
}

}  // namespace gpulint
