// Baselines: the findings a repository had when it adopted gpulint, accepted
// as they are, so that `gpulint check --baseline FILE` reports only new ones.
// A baseline file is JSON, written by `gpulint baseline` and meant to be
// committed and reviewed:
//   {"version": 1, "findings": [
//    {"fingerprint": "...", "rule": "...", "file": "...", "object": "...", "message": "..."},
//    ...]}
// one finding per line, sorted by file, object, rule, message, fingerprint so
// that regenerating it gives a small diff. Only "fingerprint" (lint/output/fingerprint.h)
// is matched; the other members are there for the reviewer.
#ifndef GPULINT_LINT_CLI_BASELINE_H_
#define GPULINT_LINT_CLI_BASELINE_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/base/finding.h"
#include "lint/output/output.h"

namespace gpulint {

inline constexpr int kBaselineVersion = 1;

struct BaselineEntry {
  std::string fingerprint;
  std::string rule;
  std::string file;
  std::string object;  // "Kind/namespace/name", "Kind/name", or "" for a parse error
  std::string message;
};

// `finding.fingerprint` must be set.
BaselineEntry BaselineEntryOf(const Finding& finding, std::string_view base_dir);
// The file's text, entries sorted (see above).
std::string BaselineText(std::vector<BaselineEntry> entries);

// A loaded baseline. Each entry hides one finding: a fingerprint that is in it
// twice hides two findings, and a third like them is new.
class Baseline {
 public:
  // Reads a baseline file ("-" is `stdin_fd`). A file that is not one is an
  // error at the position of what is wrong with it.
  bool Load(const std::string& path, int stdin_fd, Error* error);
  bool Parse(std::string_view text, const std::string& name, Error* error);
  // True (and uses the entry up) when the baseline holds `fingerprint`.
  bool Hide(const std::string& fingerprint);
  size_t size() const { return size_; }

 private:
  std::unordered_map<std::string, size_t> remaining_;
  size_t size_ = 0;
};

// The writer behind `gpulint baseline`: collects every finding as an entry.
// Its text is taken once the run is over, so an input error can keep a
// partial baseline from being written.
class BaselineWriter : public FindingWriter {
 public:
  explicit BaselineWriter(std::string base_dir) : base_dir_(std::move(base_dir)) {}
  void Add(const Finding& finding) override {
    entries_.push_back(BaselineEntryOf(finding, base_dir_));
  }
  // No baseline is written when an input failed (check_run.cc).
  void AddError(const Error&) override {}
  void Finish(const Summary&) override {}
  void Flush() override {}
  std::string Text() const { return BaselineText(entries_); }

 private:
  std::string base_dir_;
  std::vector<BaselineEntry> entries_;
};

// Writes `text` to `path`, creating the file or atomically replacing it
// (lint/output/atomic_write.h). On failure returns false with *error.
bool WriteBaselineFile(const std::string& path, std::string_view text, std::string* error);

}  // namespace gpulint

#endif  // GPULINT_LINT_CLI_BASELINE_H_
