// --exclude GLOB: paths left out of a run, matched as .gitignore matches them.
//
//   name         no '/' but a trailing one: a file or directory name at any
//                depth ('*.json', 'vendor', '.git')
//   a/b, /a      a '/' elsewhere: the whole path below the base (a leading
//                '/' changes nothing)
//   *  ?  [a-z]  as fnmatch(3), within one name: never across a '/'
//   **           a whole name that spans any number of directories:
//                '**/x' (x at any depth), 'x/**' (all inside x), 'a/**/b'
//   trailing /   directories only ('build/')
// A path is matched below its base: below the PATH walked, for what a walk
// meets; below the current directory for a PATH named itself, matched name by
// name from there (outside it, by its last name only). A directory that
// matches is not walked, so nothing under it is read.
#ifndef GPULINT_LINT_INPUT_EXCLUDE_H_
#define GPULINT_LINT_INPUT_EXCLUDE_H_

#include <string>
#include <string_view>
#include <vector>

namespace gpulint {

class ExcludePatterns {
 public:
  // False with *error for a pattern that can match nothing ("", "/").
  bool Add(std::string_view glob, std::string* error);
  bool empty() const { return patterns_.empty(); }

  // `path`: '/'-separated, relative to its base, no "." or ".." in it.
  bool Excludes(std::string_view path, bool is_dir) const;
  // A PATH named on the command line, as written: excluded when it, or a
  // directory above it below the current directory, matches.
  bool ExcludesNamed(const std::string& path, bool is_dir) const;

 private:
  struct Pattern {
    std::vector<std::string> names;  // the glob cut at '/'; one for a name pattern
    bool whole_path = false;         // it had a '/' before its end
    bool dirs_only = false;          // it ended with '/'
  };
  std::vector<Pattern> patterns_;
};

}  // namespace gpulint

#endif  // GPULINT_LINT_INPUT_EXCLUDE_H_
