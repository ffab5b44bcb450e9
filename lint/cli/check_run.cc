// `gpulint check`: inputs -> documents -> objects -> Evaluate -> findings.
// Documents stream through one at a time, so memory stays flat whatever the
// size of the input; findings go to the writer as each object is evaluated.
// With several files and --jobs above 1, a small pool checks files side by
// side and the findings are replayed in input order (check_files.h), so the
// output is the same byte for byte whatever the number of jobs.
#include "lint/cli/check_run.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "common/cpus.h"
#include "engine/base/objects.h"
#include "engine/engine.h"
#include "engine/object_stream.h"
#include "engine/workload/workload.h"
#include "engine/yaml/loader.h"
#include "lint/cli/baseline.h"
#include "lint/cli/check_files.h"
#include "lint/cli/commands.h"
#include "lint/input/inputs.h"
#include "lint/input/policy_discovery.h"
#include "lint/input/setup.h"
#include "lint/output/fingerprint.h"
#include "lint/output/output.h"

namespace gpulint {
namespace {

// "; policy: built-in", "; policies: a/.gpulint.yaml, built-in"; nothing
// when no file was checked.
std::string PolicyText(const std::vector<std::string>& names) {
  if (names.empty()) return "";
  std::string out = names.size() == 1 ? "; policy: " : "; policies: ";
  for (size_t i = 0; i < names.size(); ++i) out += (i ? ", " : "") + names[i];
  return out;
}

constexpr char kNothingFound[] = "no manifests found ";
constexpr char kLookedFor[] = "(looked for *.yaml, *.yml and *.json)";
constexpr char kAllExcluded[] = "(--exclude left out all there was)";

class CheckRun {
 public:
  CheckRun(const CheckOptions& options, CliIo& io) : options_(options), io_(io) {}

  int Run() {
    bool ready = Prepare();
    // Made whatever happened above, so that every format writes a whole
    // document that carries the errors: a log with no results must not read
    // as a clean run.
    MakeWriter();
    outcomes_.assign(inputs_.size(), InputOutcome());
    if (!ready) {
      // Nothing was checked: no summary line, no baseline.
      writer_->Finish(summary_);
      writer_.reset();
      return kExitUsage;
    }
    int jobs = std::min<int>(options_.jobs > 0 ? options_.jobs : UsableCpus(),
                             static_cast<int>(inputs_.size()));
    if (jobs > 1) {
      CheckInParallel(
          inputs_.size(), jobs,
          [&](size_t i, FileResult* result) {
            result->ok =
                CheckFile(inputs_[i], *policies_[i], *result, &result->counts, &result->error);
          },
          [&](size_t i, FileResult& result) { Replay(i, result); });
    } else {
      for (size_t i = 0; i < inputs_.size(); ++i) CheckInput(i);
    }
    ReportEmptySources();
    NoteNotObjects();
    NoteChecksNotRun();
    writer_->Finish(summary_);
    if (baseline_writer_) return WriteBaseline(baseline_writer_->Text(), PolicyText(policy_names_));
    writer_.reset();
    WarnIfBaselineHidNothing();
    if (!options_.format->holds_summary && !options_.quiet)
      io_.err << "gpulint: " << SummaryText(summary_) << PolicyText(policy_names_) << '\n';

    if (input_failed_) return kExitUsage;
    bool failed = options_.fail_on && summary_.AtLeast(*options_.fail_on) > 0;
    return failed ? kExitFindings : kExitClean;
  }

 private:
  // Loads the baseline, the policies and nodes, lists the inputs and finds
  // each input's policy. False when something that every input needs did not
  // load: nothing can be checked. Every policy is loaded before any output,
  // so a bad one stops the run before half of it is reported.
  bool Prepare() {
    Error error;
    std::error_code ec;
    work_dir_ = std::filesystem::current_path(ec).string();
    // Fingerprints name files as the baseline does: the one read, the one
    // written, or one that would be written here.
    std::string root = BaselineRoot(options_.output_file, work_dir_);
    if (!options_.baseline_file.empty()) {
      baseline_.emplace();
      if (!baseline_->Load(options_.baseline_file, io_.stdin_fd, work_dir_, &error)) {
        ReportError(error);
        return false;
      }
      root = baseline_->root();
      summary_.baselined = 0;
    }
    files_.emplace(work_dir_, root);
    std::vector<Error> errors;
    if (!setup_.Load(options_.policy_file, options_.nodes_files, io_.stdin_fd, &errors)) {
      for (const Error& e : errors) ReportError(e);
      return false;
    }
    run_policy_ = &setup_.policy();
    std::vector<Error> path_errors;
    inputs_ = ManifestInputs(options_.paths, options_.exclude, &path_errors, &yields_);
    for (const Error& e : path_errors) ReportError(e);
    // A CI job pointed at the wrong directory must not pass in silence.
    for (size_t i = 0; i < options_.paths.size(); ++i) {
      if (yields_[i].inputs.empty() && yields_[i].errors == 0)
        ReportNothingFound(
            {options_.paths[i],
             {},
             std::string(kNothingFound) + (yields_[i].excluded > 0 ? kAllExcluded : kLookedFor)});
    }
    if (options_.paths.empty())
      ReportNothingFound({"", {}, std::string(kNothingFound) + "(no PATH given)"});
    std::vector<std::string> names;
    for (const InputFile& input : inputs_) {
      const bool named_stdin = input.path == "-" && !options_.stdin_filename.empty();
      const PolicySetup* policy =
          setup_.PolicyFor(named_stdin ? options_.stdin_filename : input.path, &errors);
      if (!policy) {
        for (const Error& e : errors) ReportError(e);
        return false;
      }
      policies_.push_back(policy);
      if (std::find(names.begin(), names.end(), policy->name) == names.end())
        names.push_back(policy->name);
    }
    policy_names_ = std::move(names);
    return true;
  }

  // Fit and VRAM need nodes: a run that checked a workload without any says
  // so in every format, so that a clean run is not read as a checked one.
  void NoteChecksNotRun() {
    if (summary_.checked == 0) return;
    size_t without = 0;
    for (const PolicySetup* setup : policies_) without += setup->inventory.empty();
    if (without == 0) return;
    std::string why = "no nodes";
    if (without < policies_.size())
      why += " for " + std::to_string(without) + " of " + std::to_string(policies_.size()) +
             " inputs";
    summary_.not_run.push_back(
        {"fit and VRAM",
         {"exceeds-allocatable", "no-matching-node", "vram-exceeds-gpu"},
         why,
         "--nodes",
         "give --nodes FILE ('kubectl get nodes -o yaml' writes one) or the policy's "
         "spec.nodeClasses"});
  }

  // The writer of the chosen format (or the baseline's), handed the errors
  // reported before it existed.
  void MakeWriter() {
    WriterOptions writer_options;
    writer_options.color = io_.color;
    writer_options.fail_on = options_.fail_on;
    writer_options.policy = policies_.empty() ? run_policy_ : policies_[0]->policy;
    writer_options.policies = policy_names_;
    writer_options.base_dir = work_dir_;
    if (options_.write_baseline) {
      auto writer = std::make_unique<BaselineWriter>(*files_);
      baseline_writer_ = writer.get();
      writer_ = std::move(writer);
    } else {
      writer_ = options_.format->make(writer_options, io_.out);
    }
    for (const Error& error : early_errors_) writer_->AddError(error);
    early_errors_.clear();
  }

  // `gpulint baseline`. Nothing is written after an input error: with a file
  // that could not be read, the next check would report its findings as new;
  // with a PATH that held nothing, it was most likely the wrong one.
  int WriteBaseline(const std::string& text, const std::string& policy_text) {
    writer_.reset();
    if (input_failed_) {
      Fail(io_, "no baseline written after an input error");
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

  // A baseline that hides not one of the findings was most likely written
  // for other files, or names them from elsewhere: said, not silently passed.
  void WarnIfBaselineHidNothing() {
    size_t found = summary_.errors + summary_.warnings + summary_.infos;
    if (!baseline_ || baseline_->size() == 0 || *summary_.baselined > 0 || found == 0) return;
    io_.err << "gpulint: warning: the baseline " << DisplayName(options_.baseline_file) << " ("
            << baseline_->size() << (baseline_->size() == 1 ? " finding" : " findings")
            << ") hid none of the " << found << " found; ";
    if (baseline_->version() == 1) {
      io_.err << "it is version 1, which names files from the directory it was written in: run "
                 "check from there, or write it again with 'gpulint baseline'\n";
    } else {
      io_.err << "it names files from " << baseline_->root()
              << ": was it written for these files?\n";
    }
  }

  // A PATH that gave no manifest: an input error, or with --allow-empty a
  // warning on stderr.
  void ReportNothingFound(const Error& error) {
    if (!options_.allow_empty) {
      ReportError(error);
      return;
    }
    if (writer_) writer_->Flush();
    io_.err << "gpulint: warning: " << error.ToString() << '\n';
  }

  // After the run: each PATH whose inputs were all read and held not one
  // document (an empty file or stdin, a chart that renders nothing). One
  // that failed was reported already.
  void ReportEmptySources() {
    for (size_t p = 0; p < yields_.size(); ++p) {
      const PathYield& yield = yields_[p];
      if (yield.inputs.empty() || yield.errors > 0) continue;
      FileCounts counts;
      bool read = true, charts = true, kustomizations = true;
      for (size_t i : yield.inputs) {
        counts.documents += outcomes_[i].counts.documents;
        counts.objects += outcomes_[i].counts.objects;
        read = read && outcomes_[i].read;
        charts = charts && inputs_[i].kind == InputKind::kHelmChart;
        kustomizations = kustomizations && inputs_[i].kind == InputKind::kKustomization;
      }
      if (!read || counts.objects > 0) continue;
      // Documents that are all something else (a workflow, a compose file):
      // the PATH is most likely the wrong one.
      std::string why = counts.documents > 0
                            ? "(" + std::to_string(counts.documents) + " YAML or JSON document" +
                                  (counts.documents == 1 ? "" : "s") +
                                  ", none a Kubernetes object: no apiVersion or kind)"
                        : charts         ? "(helm template rendered no document)"
                        : kustomizations ? "(kubectl kustomize rendered no document)"
                                         : "(no YAML or JSON document in it)";

      ReportNothingFound({Shown(options_.paths[p]), {}, std::string(kNothingFound) + why});
    }
  }

  // "-" and the loader's "<stdin>" as --stdin-filename names stdin, else as
  // DisplayName shows them.
  std::string Shown(const std::string& name) const {
    if ((name == "-" || name == kStdinName) && !options_.stdin_filename.empty())
      return options_.stdin_filename;
    return DisplayName(name);
  }

  // The files whose documents were no Kubernetes objects, by name, on stderr
  // (the summary counts them): a workflow or a compose file in a walked
  // directory is skipped, and said to be. Not in the formats that hold their
  // summary, whose stderr is for errors.
  void NoteNotObjects() {
    if (not_objects_.empty() || options_.quiet || options_.format->holds_summary) return;
    constexpr size_t kShown = 5;
    std::vector<std::string> files;
    for (const std::string& f : not_objects_)
      if (std::find(files.begin(), files.end(), f) == files.end()) files.push_back(f);
    if (writer_) writer_->Flush();
    io_.err << "gpulint: note: not Kubernetes objects (no apiVersion or kind), not checked: ";
    for (size_t i = 0; i < files.size() && i < kShown; ++i) io_.err << (i ? ", " : "") << files[i];
    if (files.size() > kShown) io_.err << " and " << files.size() - kShown << " more files";
    io_.err << '\n';
  }

  // On stderr in every format, and in the document of those that have one.
  void ReportError(Error error) {
    error.file = Shown(error.file);
    input_failed_ = true;
    if (writer_) {
      writer_->AddError(error);
      // Hand buffered output out first, so a terminal shows things in order.
      writer_->Flush();
    } else {
      early_errors_.push_back(error);
    }
    io_.err << "gpulint: error: " << error.ToString() << '\n';
  }

  // Not in the writers: a baseline hides findings before anything counts them.
  void Emit(Finding& finding) {
    if (options_.strict && finding.rule == "workload-not-checked")
      finding.severity = Severity::kError;
    finding.fingerprint = Fingerprint(finding, files_->Name(finding.file));
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
    void UnderOwner() override { ++run_.summary_.under_owner; }
    void NotObject(const std::string& file) override { run_.AddNotObject(file); }

   private:
    CheckRun& run_;
  };

  void CheckInput(size_t i) {
    writer_->BeginFile(Shown(inputs_[i].path));
    DirectSink sink(*this);
    Error error;
    if (CheckFile(inputs_[i], *policies_[i], sink, &outcomes_[i].counts, &error)) {
      ++summary_.files;
      outcomes_[i].read = true;
    } else {
      ReportError(error);
    }
  }

  // Touches nothing but `out`, the loader and the engine (all const here), so
  // that files can be checked on several threads at once.
  // `counts` counts the documents read (an empty one is none) and the objects.
  bool CheckFile(const InputFile& input, const PolicySetup& setup, FileSink& out,
                 FileCounts* counts, Error* error) const {
    const Policy& policy = *setup.policy;
    const bool places_every_object = writer_->PlacesEveryObject();
    ObjectStream stream(policy, setup.inventory);  // one per file: what is in view is the file's
    SourceSink sink = [&](Document&& doc, const SourceOrigin* rendered) {
      if (doc.ok && doc.root.is_null()) return true;  // empty, e.g. a trailing "---"
      ++counts->documents;
      // A rendered source's finding is shown in the file that wrote it (render.h).
      auto place = [rendered, &doc](Finding& f) {
        if (!rendered) return;
        f.rendered = rendered->InOutput(f.mark);
        rendered->Place(doc.root, &f.file, &f.mark, &f.message);
      };
      if (!doc.ok) {
        ++counts->objects;
        out.Object(ObjectRef(), Shown(input.path), doc.error.mark, false, Coverage::kNoWorkload);
        Finding f = ParseErrorFinding(doc.error);
        f.file = Shown(f.file);
        place(f);
        out.Add(std::move(f));
        return true;
      }
      const std::string file = Shown(doc.file.empty() ? input.path : doc.file);
      stream.Judge(doc.root, file, [&](JudgedObject& judged) {
        if (!judged.kubernetes) return out.NotObject(file);
        ++counts->objects;
        if (judged.under_owner) return out.UnderOwner();
        std::string object_file = file;
        Mark object_mark = judged.object.mark();
        if (rendered && (!judged.findings.empty() || places_every_object)) {
          std::string unused;
          rendered->Place(doc.root, &object_file, &object_mark, &unused);
        }
        out.Object(RefOf(judged.object), object_file, object_mark, true, judged.coverage);
        for (Finding& f : judged.findings) {
          place(f);
          out.Add(std::move(f));
        }
      });
      return true;
    };
    return LoadSource(input, io_.stdin_fd, options_.render, limits_, sink, error);
  }

  void Replay(size_t i, FileResult& result) {
    writer_->BeginFile(Shown(inputs_[i].path));
    for (auto& event : result.events) {
      if (auto* start = std::get_if<ObjectStart>(&event)) {
        if (start->counted) CountObject(start->coverage);
        writer_->BeginObject(start->ref, start->file, start->mark);
      } else {
        Emit(std::get<Finding>(event));
      }
    }
    summary_.under_owner += result.under_owner;
    for (const std::string& file : result.not_objects) AddNotObject(file);
    outcomes_[i].counts = result.counts;
    if (result.ok) {
      ++summary_.files;
      outcomes_[i].read = true;
    } else {
      ReportError(result.error);
    }
  }

  void AddNotObject(const std::string& file) {
    ++summary_.not_objects;
    not_objects_.push_back(file);
  }

  void CountObject(Coverage coverage) {
    ++summary_.objects;
    if (coverage == Coverage::kChecked) ++summary_.checked;
    if (coverage == Coverage::kNotChecked) ++summary_.not_checked;
  }

  const CheckOptions& options_;
  CliIo& io_;
  LoadLimits limits_;
  RunSetup setup_;
  // --policy, else the built-in one; SARIF's rules when no input has a policy.
  const Policy* run_policy_ = &DefaultPolicy();
  std::vector<InputFile> inputs_;
  std::vector<PathYield> yields_;             // by PATH: its inputs
  std::vector<const PolicySetup*> policies_;  // by input
  struct InputOutcome {
    bool read = false;
    FileCounts counts;
  };
  std::vector<std::string> not_objects_;  // a file per document that is no object
  std::vector<InputOutcome> outcomes_;     // by input
  std::vector<std::string> policy_names_;  // each once, in input order
  std::unique_ptr<FindingWriter> writer_;
  BaselineWriter* baseline_writer_ = nullptr;  // `gpulint baseline`: writer_
  std::vector<Error> early_errors_;            // reported before writer_ was made
  Summary summary_;
  bool input_failed_ = false;
  std::string work_dir_;                   // the current directory, absolute
  std::optional<FingerprintFiles> files_;  // set first thing by Prepare
  std::optional<Baseline> baseline_;       // --baseline
};

}  // namespace

int RunCheck(const CheckOptions& options, CliIo& io) { return CheckRun(options, io).Run(); }

}  // namespace gpulint
