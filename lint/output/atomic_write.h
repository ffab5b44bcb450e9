// Replacing a file so that a reader, a crash or a full disk never sees it
// half written: write a temporary file beside it, fsync, rename over it.
#ifndef GPULINT_LINT_OUTPUT_ATOMIC_WRITE_H_
#define GPULINT_LINT_OUTPUT_ATOMIC_WRITE_H_

#include <string>
#include <string_view>

namespace gpulint {

// Replaces the regular file at `path` (through a symlink: its target, so the
// link stays a link) with `content`, keeping its permission bits and, where
// allowed, its owner. On failure returns false with *error ("cannot write
// PATH: reason; the file is unchanged") and leaves the file and its
// directory as they were.
bool WriteFileAtomically(const std::string& path, std::string_view content, std::string* error);

}  // namespace gpulint

#endif  // GPULINT_LINT_OUTPUT_ATOMIC_WRITE_H_
