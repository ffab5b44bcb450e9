// `gpulint check`: inputs -> documents -> objects -> Evaluate -> findings.
// Documents stream through one at a time, so memory stays flat whatever the
// size of the input; findings go to the writer as each object is evaluated.
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "engine/engine.h"
#include "engine/inventory.h"
#include "engine/loader.h"
#include "engine/policy.h"
#include "lint/cli.h"
#include "lint/output.h"

namespace gpulint {
namespace {

constexpr char kStdinName[] = "<stdin>";

class CheckRun {
 public:
  CheckRun(const CheckOptions& options, CliIo& io) : options_(options), io_(io) {}

  int Run() {
    if (!LoadPolicy()) return kExitUsage;
    std::vector<NodeClass> nodes;
    for (const std::string& path : options_.nodes_files)
      if (!LoadNodes(path, &nodes)) return kExitUsage;
    inventory_ = BuildInventory(*policy_, std::move(nodes));

    std::vector<Error> path_errors;
    std::vector<InputFile> inputs = ExpandPaths(options_.paths, &path_errors);
    for (const Error& e : path_errors) ReportError(e);
    // A CI job pointed at the wrong directory should not pass in silence.
    if (inputs.empty() && path_errors.empty())
      io_.err << "gpulint: warning: no manifests found (looked for *.yaml, *.yml and *.json)\n";

    writer_ = NewFindingWriter(options_.format, io_.out, io_.color);
    for (const InputFile& input : inputs) CheckInput(input);
    writer_->Finish(summary_);
    writer_.reset();
    if (options_.format == OutputFormat::kText && !options_.quiet)
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

  bool LoadPolicy() {
    if (options_.policy_file.empty()) {
      policy_ = &DefaultPolicy();
      return true;
    }
    Error error;
    if (!LoadPolicyFile(options_.policy_file, &loaded_policy_, &error)) {
      ReportError(error);
      return false;
    }
    policy_ = &loaded_policy_;
    return true;
  }

  // "-" reads the stdin we were given, so tests can hand in a pipe.
  bool Load(const std::string& path, const DocumentSink& sink, Error* error) {
    if (path == "-") return LoadYamlFd(io_.stdin_fd, kStdinName, limits_, sink, error);
    return LoadInput(InputFile{path}, limits_, sink, error);
  }

  static std::string DisplayName(const std::string& path) {
    return path == "-" ? std::string(kStdinName) : path;
  }

  // A Node, a NodeList or a List of Nodes; anything else in a nodes file is an
  // error, since a Pod there would mean the wrong file was passed.
  bool AddNode(const Value& object, const std::string& file, std::vector<NodeClass>* nodes) {
    std::string_view kind = object.StringAt("kind");
    Error error;
    if (kind != "Node") {
      error.file = file;
      error.mark = object.mark();
      error.message = (kind.empty() ? std::string("not a Node (no kind)")
                                    : "not a Node (kind: " + std::string(kind) + ")") +
                      "; --nodes reads the output of 'kubectl get nodes -o yaml'";
      ReportError(error);
      return false;
    }
    NodeClass node;
    if (!NodeClassFromNode(object, file, &node, &error)) {
      ReportError(error);
      return false;
    }
    nodes->push_back(std::move(node));
    return true;
  }

  bool LoadNodes(const std::string& path, std::vector<NodeClass>* nodes) {
    bool ok = true;
    DocumentSink sink = [&](Document&& doc) {
      if (!doc.ok) {
        ReportError(doc.error);
        ok = false;
        return false;
      }
      if (doc.root.is_null()) return true;
      const std::string file = doc.file.empty() ? DisplayName(path) : doc.file;
      ForEachObject(doc.root, [&](const Value& object) {
        if (ok) ok = AddNode(object, file, nodes);
      });
      return ok;
    };
    Error error;
    if (!Load(path, sink, &error)) {
      ReportError(error);
      return false;
    }
    return ok;
  }

  void Emit(const Finding& finding) {
    summary_.Count(finding.severity);
    writer_->Add(finding);
  }

  void CheckInput(const InputFile& input) {
    DocumentSink sink = [&](Document&& doc) {
      if (!doc.ok) {
        Emit(ParseErrorFinding(doc.error));
        return true;
      }
      if (doc.root.is_null()) return true;  // empty document, e.g. a trailing "---"
      const std::string& file = doc.file.empty() ? DisplayName(input.path) : doc.file;
      ForEachObject(doc.root, [&](const Value& object) {
        if (!object.is_mapping()) return;  // the engine has nothing to say about scalars
        ++summary_.objects;
        for (const Finding& f : Evaluate(object, file, *policy_, inventory_)) Emit(f);
      });
      return true;
    };
    Error error;
    if (Load(input.path, sink, &error)) {
      ++summary_.files;
    } else {
      ReportError(error);
    }
  }

  const CheckOptions& options_;
  CliIo& io_;
  LoadLimits limits_;
  Policy loaded_policy_;
  const Policy* policy_ = nullptr;
  Inventory inventory_;
  std::unique_ptr<FindingWriter> writer_;
  Summary summary_;
  bool input_failed_ = false;
};

}  // namespace

int RunCheck(const CheckOptions& options, CliIo& io) { return CheckRun(options, io).Run(); }

}  // namespace gpulint
