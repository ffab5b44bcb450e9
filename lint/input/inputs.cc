// ExpandPaths: command-line paths to inputs.
#include "lint/input/inputs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace gpulint {
namespace {

bool HasManifestExtension(std::string_view name) {
  for (std::string_view ext : {".yaml", ".yml", ".json"}) {
    if (name.size() > ext.size() && name.substr(name.size() - ext.size()) == ext) return true;
  }
  return false;
}

std::string Join(const std::string& dir, const std::string& name) {
  return !dir.empty() && dir.back() == '/' ? dir + name : dir + "/" + name;
}

// Sorted entry names of a directory, or false with errno's text.
bool ReadDirectory(const std::string& path, std::vector<std::string>* names, std::string* error) {
  DIR* dir = opendir(path.c_str());
  if (dir == nullptr) {
    *error = ErrnoText(errno);
    return false;
  }
  while (const dirent* entry = readdir(dir)) {
    std::string name = entry->d_name;
    if (name != "." && name != "..") names->push_back(std::move(name));
  }
  closedir(dir);
  std::sort(names->begin(), names->end());
  return true;
}

bool IsRegularFile(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

bool IsChart(const std::string& dir) { return IsRegularFile(Join(dir, "Chart.yaml")); }

constexpr const char* kKustomizationFiles[] = {"kustomization.yaml", "kustomization.yml",
                                               "Kustomization"};

bool IsKustomization(const std::string& dir) { return !KustomizationFile(dir).empty(); }

bool IsKustomizationFile(const std::string& name) {
  for (const char* file : kKustomizationFiles) {
    if (name == file) return true;
  }
  return false;
}

// The chart or kustomization that a path named on the command line belongs
// to (`dir` is the path itself when it is a directory, else its parent): the
// outermost chart among `dir` and its parents, else `dir` when it is a
// kustomization and `kustomization` allows it. A relative path looks no
// higher than the working directory.
std::optional<InputFile> EnclosingSource(const std::filesystem::path& dir, bool kustomization) {
  std::optional<InputFile> found;
  std::string shown = dir.empty() ? "." : dir.string();
  if (kustomization && IsKustomization(shown)) found = InputFile{shown, InputKind::kKustomization};
  for (std::filesystem::path d = dir;; d = d.parent_path()) {
    shown = d.empty() ? "." : d.string();
    if (IsChart(shown)) found = InputFile{shown, InputKind::kHelmChart};
    if (d.empty() || d == d.parent_path()) break;
  }
  return found;
}

// Sources already listed, by the directory's identity, so that a chart named
// through several of its files is rendered once: each one's index in the
// inputs.
using Seen = std::map<std::pair<dev_t, ino_t>, size_t>;

// Lists `file` and adds its index to `yielded`.
void AddFile(InputFile file, std::vector<InputFile>* files, std::vector<size_t>* yielded) {
  yielded->push_back(files->size());
  files->push_back(std::move(file));
}

// Lists `source` unless it is already listed; either way, its index goes to
// `yielded`.
void AddSource(InputFile source, Seen* sources, std::vector<InputFile>* files,
               std::vector<size_t>* yielded) {
  struct stat st;
  if (stat(source.path.c_str(), &st) == 0) {
    auto [it, inserted] = sources->try_emplace({st.st_dev, st.st_ino}, files->size());
    if (!inserted) {
      yielded->push_back(it->second);
      return;
    }
  }
  AddFile(std::move(source), files, yielded);
}

// Depth first in name order, with an explicit stack; a directory reached
// again (a symlink loop, or two links to one place) is not walked again.
void WalkDirectory(const std::string& root, const ExcludePatterns& exclude, Seen* sources,
                   std::vector<InputFile>* files, std::vector<Error>* errors, PathYield* yield) {
  std::vector<size_t>* yielded = &yield->inputs;
  std::set<std::pair<dev_t, ino_t>> visited;
  struct Entry {
    std::string path;
    std::string below;  // the path below `root`, for --exclude
    bool named;         // named on the command line: read whatever its extension
  };
  std::vector<Entry> stack = {{root, "", true}};
  while (!stack.empty()) {
    Entry entry = std::move(stack.back());
    stack.pop_back();
    struct stat st;
    bool found = stat(entry.path.c_str(), &st) == 0;
    int err = errno;
    bool is_dir = found && S_ISDIR(st.st_mode);
    if (entry.named ? exclude.ExcludesNamed(entry.path, is_dir)
                    : exclude.Excludes(entry.below, is_dir)) {
      if (entry.named || is_dir || HasManifestExtension(entry.path)) ++yield->excluded;
      continue;
    }
    if (!found) {
      if (entry.named || HasManifestExtension(entry.path)) {
        errors->push_back(Error{entry.path, {}, ErrnoText(err)});
      }
      continue;
    }
    if (entry.named) {
      // A kustomization's resources are manifests as they are: named, they
      // are read (and fixed) as files; its kustomization file stands for it.
      std::filesystem::path path(entry.path);
      bool kustomization = is_dir || IsKustomizationFile(path.filename().string());
      if (auto source = EnclosingSource(is_dir ? path : path.parent_path(), kustomization)) {
        AddSource(std::move(*source), sources, files, yielded);
        continue;
      }
    }
    if (!is_dir) {
      // Found in a directory: regular files only (a FIFO there would block).
      if (entry.named || (S_ISREG(st.st_mode) && HasManifestExtension(entry.path))) {
        AddFile({entry.path}, files, yielded);
      }
      continue;
    }
    if (!visited.insert({st.st_dev, st.st_ino}).second) continue;
    if (IsChart(entry.path) || IsKustomization(entry.path)) {
      AddSource(
          {entry.path, IsChart(entry.path) ? InputKind::kHelmChart : InputKind::kKustomization},
          sources, files, yielded);
      continue;
    }
    std::vector<std::string> names;
    std::string error;
    if (!ReadDirectory(entry.path, &names, &error)) {
      errors->push_back(Error{entry.path, {}, error});
      continue;
    }
    for (auto it = names.rbegin(); it != names.rend(); ++it) {
      stack.push_back(
          {Join(entry.path, *it), entry.below.empty() ? *it : entry.below + "/" + *it, false});
    }
  }
}

}  // namespace

std::string KustomizationFile(const std::string& dir) {
  for (const char* name : kKustomizationFiles) {
    std::string file = Join(dir, name);
    if (IsRegularFile(file)) return file;
  }
  return "";
}

std::vector<InputFile> ExpandPaths(const std::vector<std::string>& paths,
                                   const ExcludePatterns& exclude, std::vector<Error>* errors,
                                   std::vector<PathYield>* yields) {
  std::vector<InputFile> files;
  Seen sources;
  if (yields) yields->assign(paths.size(), PathYield());
  for (size_t i = 0; i < paths.size(); ++i) {
    PathYield yield;
    size_t errors_before = errors->size();
    if (paths[i] == "-") {
      AddFile({paths[i]}, &files, &yield.inputs);
    } else {
      WalkDirectory(paths[i], exclude, &sources, &files, errors, &yield);
    }
    yield.errors = errors->size() - errors_before;
    if (yields) (*yields)[i] = std::move(yield);
  }
  return files;
}

}  // namespace gpulint
