// How `gpulint check` prints findings: what every writer shares. The writers
// are one file each (format_text.cc, format_json.cc, sarif.cc, junit.cc,
// github_output.cc), listed once in formats.cc (formats.h). Output is built
// in a string and handed to the stream in large blocks: a run with many
// findings costs one write per block, never a flush per finding. The rule catalogue is
// rule_catalogue.h.
#ifndef GPULINT_LINT_OUTPUT_OUTPUT_H_
#define GPULINT_LINT_OUTPUT_OUTPUT_H_

#include <cstddef>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/finding.h"

namespace gpulint {

class Policy;
struct RuleInfo;

// What a check run saw, for the summary line and the JSON "summary".
// Checks a run could not do, and why ("fit and VRAM": no nodes), said in
// every format so that a clean run is not read as a checked one.
struct NotRun {
  std::string what;                // "fit and VRAM"
  std::vector<std::string> rules;  // the rules that did not run
  std::string why;                 // "no nodes"
  std::string flag;                // what gives it: "--nodes"
  std::string remedy;              // how to give it, at length
  // "fit and VRAM not checked (exceeds-allocatable, ...): no nodes; --nodes FILE, ..."
  std::string Text() const;
};

struct Summary {
  size_t errors = 0;
  size_t warnings = 0;
  size_t infos = 0;
  size_t objects = 0;      // objects evaluated (items of a List count one by one)
  size_t files = 0;        // inputs read (stdin counts as one)
  size_t checked = 0;      // objects whose pods were found and checked
  size_t not_checked = 0;  // objects holding containers gpulint could not reach
  size_t under_owner =
      0;  // objects judged under their owner (engine/base/owners.h), not counted above
  // Documents that are no Kubernetes object (no apiVersion, no kind: a
  // workflow, a compose file), not checked and not counted above.
  size_t not_objects = 0;
  // Findings a --baseline hid (not counted above); unset without a baseline.
  std::optional<size_t> baselined;
  std::vector<NotRun> not_run;
  void Count(Severity severity);
  // How many findings are at or above `threshold`.
  size_t AtLeast(Severity threshold) const;
};
// "3 errors, 1 warning in 2 objects (5 files)"; infos appear only when present,
// "; 1 workload checked, 1 not checked" only when an object was not checked,
// "; 4 objects judged under their owner" only when some were, "; 2
// documents not checked: no Kubernetes objects (no apiVersion or kind)" only
// when some were not, and "; fit and VRAM not checked: no nodes (--nodes)"
// for each check not run.
std::string SummaryText(const Summary& summary);

// file:line:col: severity: message [rule]   (unknown parts left out)
void AppendFindingText(const Finding& finding, bool color, std::string* out);
// One JSON object per the schema documented in `gpulint check --help`.
std::string FindingJsonText(const Finding& finding);

// Streams findings and input errors in one format. Text prints nothing at
// Finish (the summary line goes to stderr, written by the caller); JSON closes
// the findings array and adds "errors" and "summary".
class FindingWriter {
 public:
  virtual ~FindingWriter() = default;
  // A file is read (JUnit: a testsuite per file). Its objects follow.
  virtual void BeginFile(const std::string& file) {}
  // An object is evaluated, or a document could not be read (`object` empty);
  // its findings follow (JUnit: a testcase per object).
  virtual void BeginObject(const ObjectRef& object, const std::string& file, Mark mark) {}
  // Whether BeginObject's file and mark are used for an object with no
  // finding too (JUnit's testcases). When not, a chart's objects without
  // findings are not placed on their template lines, which takes helm a
  // second render (lint/input/render.h).
  virtual bool PlacesEveryObject() const { return false; }
  virtual void Add(const Finding& finding) = 0;
  // An input error: a file that cannot be read, a chart that does not
  // render, a policy that does not load. The run exits 2 and the document
  // says why, so that CI cannot take it for a clean run. (Text writes nothing:
  // the caller prints "gpulint: error: ..." on stderr, as it does for every
  // format.)
  virtual void AddError(const Error& error) = 0;
  virtual void Finish(const Summary& summary) = 0;
  // Hands what is buffered to the stream (before writing to stderr, so a
  // terminal shows errors and findings in order).
  virtual void Flush() = 0;
};
// A writer that collects output in a string and hands it to the stream in
// blocks of kFlushBytes.
class BufferedWriter : public FindingWriter {
 public:
  // Large enough that a run with thousands of findings makes a handful of writes.
  static constexpr size_t kFlushBytes = 64 * 1024;
  explicit BufferedWriter(std::ostream& out);
  ~BufferedWriter() override { Flush(); }
  void Flush() override;

 protected:
  void MaybeFlush() {
    if (buf_.size() >= kFlushBytes) Flush();
  }
  std::string buf_;

 private:
  std::ostream& out_;
};

struct WriterOptions {
  bool color = false;  // text
  // JUnit: findings at or above are <failure>s; none (--fail-on none): none are.
  std::optional<Severity> fail_on = Severity::kError;
  const Policy* policy = nullptr;       // SARIF: the rules' severities; null: defaults
  std::string base_dir;                 // SARIF: URIs are relative to it (absolute)
  // SARIF: rules beside those of objects whose findings the run writes
  // (`gpulint audit`'s node rules, NodeRules()).
  std::vector<const RuleInfo*> extra_rules;
  // JSON and SARIF: the policies the inputs were checked with, each named as
  // the summary line names it ("built-in", or the file), in input order.
  std::vector<std::string> policies;
};

// A file name as a SARIF artifact URI: relative to `base_dir` (an absolute
// directory) when the file is inside it, else a file:// URI; percent-encoded.
std::string SarifUri(std::string_view file, std::string_view base_dir);

}  // namespace gpulint

#endif  // GPULINT_LINT_OUTPUT_OUTPUT_H_
