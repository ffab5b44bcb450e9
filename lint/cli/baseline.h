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
// Files are named relative to the baseline's root (BaselineRoot), in "file"
// and in the fingerprint alike, so a baseline matches whatever the directory
// check runs in and however the inputs are named. Version 1 named them from
// the directory it was written in: it is still read, and matched from the
// current directory, as it always was.
#ifndef GPULINT_LINT_CLI_BASELINE_H_
#define GPULINT_LINT_CLI_BASELINE_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/base/finding.h"
#include "lint/output/fingerprint.h"
#include "lint/output/output.h"

namespace gpulint {

inline constexpr int kBaselineVersion = 2;

// The directory a baseline names files from: the repository root (the
// directory holding .git, as policy discovery finds it) at or above the
// directory of the baseline file `path`, else that directory itself, with
// symbolic links resolved. For stdin or stdout ("-" or ""), the current
// directory `cwd` stands for the file's.
std::string BaselineRoot(const std::string& path, const std::string& cwd);

struct BaselineEntry {
  std::string fingerprint;
  std::string rule;
  std::string file;
  std::string object;  // "Kind/namespace/name", "Kind/name", or "" for a parse error
  std::string message;
};

// `finding.fingerprint` must be set; `file` is its file as the fingerprint
// names it.
BaselineEntry BaselineEntryOf(const Finding& finding, std::string file);
// The file's text, entries sorted (see above).
std::string BaselineText(std::vector<BaselineEntry> entries);

// A loaded baseline. Each entry hides one finding: a fingerprint that is in it
// twice hides two findings, and a third like them is new.
class Baseline {
 public:
  // Reads a baseline file ("-" is `stdin_fd`) and finds its root, from `cwd`
  // (the current directory). A file that is not one is an error at the
  // position of what is wrong with it.
  bool Load(const std::string& path, int stdin_fd, const std::string& cwd, Error* error);
  bool Parse(std::string_view text, const std::string& name, Error* error);
  // True (and uses the entry up) when the baseline holds `fingerprint`.
  bool Hide(const std::string& fingerprint);
  size_t size() const { return size_; }
  int version() const { return version_; }
  // What the baseline names files from (set by Load): BaselineRoot, or for
  // version 1 the current directory.
  const std::string& root() const { return root_; }

 private:
  std::unordered_map<std::string, size_t> remaining_;
  size_t size_ = 0;
  int version_ = kBaselineVersion;
  std::string root_;
};

// The writer behind `gpulint baseline`: collects every finding as an entry.
// Its text is taken once the run is over, so an input error can keep a
// partial baseline from being written.
class BaselineWriter : public FindingWriter {
 public:
  explicit BaselineWriter(FingerprintFiles files) : files_(std::move(files)) {}
  void Add(const Finding& finding) override {
    entries_.push_back(BaselineEntryOf(finding, files_.Name(finding.file)));
  }
  // No baseline is written when an input failed (check_run.cc).
  void AddError(const Error&) override {}
  void Finish(const Summary&) override {}
  void Flush() override {}
  std::string Text() const { return BaselineText(entries_); }

 private:
  FingerprintFiles files_;
  std::vector<BaselineEntry> entries_;
};

// Writes `text` to `path`, creating the file or atomically replacing it
// (lint/output/atomic_write.h). On failure returns false with *error.
bool WriteBaselineFile(const std::string& path, std::string_view text, std::string* error);

}  // namespace gpulint

#endif  // GPULINT_LINT_CLI_BASELINE_H_
