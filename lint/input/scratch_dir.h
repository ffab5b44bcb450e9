// A temporary directory for a second render (template_lines.h,
// kustomize_origins.h), removed with what is in it.
#ifndef GPULINT_LINT_INPUT_SCRATCH_DIR_H_
#define GPULINT_LINT_INPUT_SCRATCH_DIR_H_

#include <filesystem>

namespace gpulint {

class ScratchDir {
 public:
  // An empty path when the directory could not be made.
  ScratchDir();
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace gpulint

#endif  // GPULINT_LINT_INPUT_SCRATCH_DIR_H_
