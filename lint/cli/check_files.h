// How `gpulint check` (check_run.cc) checks files side by side: each file's
// objects and findings into a FileResult, replayed to the writer in input
// order, so the output is the same whatever the number of jobs. Internal to
// lint/.
#ifndef GPULINT_LINT_CLI_CHECK_FILES_H_
#define GPULINT_LINT_CLI_CHECK_FILES_H_

#include <cstddef>
#include <functional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "engine/base/finding.h"
#include "engine/workload/workload_coverage.h"

namespace gpulint {

// Where one file's objects and findings go: straight to the writer, or into a
// FileResult to be replayed in input order.
class FileSink {
 public:
  virtual ~FileSink() = default;
  // `counted`: an object, not a document that could not be read.
  virtual void Object(ObjectRef ref, const std::string& file, Mark mark, bool counted,
                      Coverage coverage) = 0;
  virtual void Add(Finding finding) = 0;
  // An object not judged on its own: its owner is in its document.
  virtual void UnderOwner() = 0;
  // A YAML or JSON document of `file` that is no Kubernetes object (no
  // apiVersion, no kind: a workflow, a compose file), not checked.
  virtual void NotObject(const std::string& file) = 0;
};

// What one input held.
struct FileCounts {
  size_t documents = 0;  // read, an empty one not counted
  // Kubernetes objects among them (items of a List one by one), and
  // documents that do not parse, which may be.
  size_t objects = 0;
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
  void UnderOwner() override { ++under_owner; }
  void NotObject(const std::string& file) override { not_objects.push_back(file); }

  std::vector<std::variant<ObjectStart, Finding>> events;
  size_t under_owner = 0;
  std::vector<std::string> not_objects;  // a file per document that is no object
  bool by_worker = false;  // checked on a worker thread, which frees it too
  FileCounts counts;
  bool ok = false;
  Error error;  // when !ok
};

// Calls check(i, result) for every file i in [0, n) on `jobs` threads (this
// one among them), and replay(i, result) on this thread in order of i.
void CheckInParallel(size_t n, int jobs, const std::function<void(size_t, FileResult*)>& check,
                     const std::function<void(size_t, FileResult&)>& replay);

}  // namespace gpulint

#endif  // GPULINT_LINT_CLI_CHECK_FILES_H_
