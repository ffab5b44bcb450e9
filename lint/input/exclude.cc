#include "lint/input/exclude.h"

#include <fnmatch.h>

#include <filesystem>
#include <system_error>

namespace gpulint {
namespace {

std::vector<std::string> Split(std::string_view path) {
  std::vector<std::string> out;
  size_t begin = 0;
  while (begin <= path.size()) {
    size_t end = path.find('/', begin);
    if (end == std::string_view::npos) end = path.size();
    std::string_view name = path.substr(begin, end - begin);
    if (!name.empty() && name != ".") out.emplace_back(name);
    begin = end + 1;
  }
  return out;
}

bool NameMatches(const std::string& glob, const std::string& name) {
  return fnmatch(glob.c_str(), name.c_str(), 0) == 0;
}

// Glob names [g, end) against path names [p, end); "**" takes any number of
// names, or, last, at least one (gitignore: 'x/**' is what is inside x).
bool NamesMatch(const std::vector<std::string>& glob, size_t g,
                const std::vector<std::string>& path, size_t p) {
  if (g == glob.size()) return p == path.size();
  if (glob[g] == "**") {
    for (size_t q = g + 1 == glob.size() ? p + 1 : p; q <= path.size(); ++q)
      if (NamesMatch(glob, g + 1, path, q)) return true;
    return false;
  }
  return p < path.size() && NameMatches(glob[g], path[p]) && NamesMatch(glob, g + 1, path, p + 1);
}

}  // namespace

bool ExcludePatterns::Add(std::string_view glob, std::string* error) {
  Pattern pattern;
  pattern.dirs_only = !glob.empty() && glob.back() == '/';
  std::string_view body = glob;
  while (!body.empty() && body.back() == '/') body.remove_suffix(1);
  if (body.substr(0, 2) == "./") body.remove_prefix(2);
  pattern.whole_path = body.find('/') != std::string_view::npos;
  pattern.names = Split(body);
  if (pattern.names.empty()) {
    *error = "--exclude: '" + std::string(glob) + "' names no file or directory";
    return false;
  }
  patterns_.push_back(std::move(pattern));
  return true;
}

bool ExcludePatterns::Excludes(std::string_view path, bool is_dir) const {
  std::vector<std::string> names = Split(path);
  if (names.empty()) return false;
  for (const Pattern& pattern : patterns_) {
    if (pattern.dirs_only && !is_dir) continue;
    bool match = pattern.whole_path ? NamesMatch(pattern.names, 0, names, 0)
                                    : NameMatches(pattern.names[0], names.back());
    if (match) return true;
  }
  return false;
}

bool ExcludePatterns::ExcludesNamed(const std::string& path, bool is_dir) const {
  if (patterns_.empty() || path == "-") return false;
  namespace fs = std::filesystem;
  fs::path written = fs::path(path).lexically_normal();
  if (written.is_absolute()) {
    std::error_code ec;
    fs::path below = written.lexically_relative(fs::current_path(ec));
    if (!ec && !below.empty()) written = below;
  }
  std::string relative = written.generic_string();
  if (written.is_absolute() || (!written.empty() && *written.begin() == ".."))
    return Excludes(written.filename().generic_string(), is_dir);
  // Each directory on the way down, then the path itself.
  for (size_t slash = relative.find('/'); slash != std::string::npos && slash + 1 < relative.size();
       slash = relative.find('/', slash + 1))
    if (Excludes(std::string_view(relative).substr(0, slash), true)) return true;
  return Excludes(relative, is_dir);
}

}  // namespace gpulint
