// LoadYamlFile: a file or standard input, looked at before it is opened.
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include "engine/yaml/loader.h"

namespace gpulint {
namespace {

// Why a file of this type cannot be read as a manifest, or "" when it can.
std::string RefusedType(mode_t mode) {
  if (S_ISDIR(mode)) return "is a directory";
  if (S_ISCHR(mode)) return "is a character device, not a file";
  if (S_ISBLK(mode)) return "is a block device, not a file";
  if (S_ISSOCK(mode)) return "is a socket, not a file";
  return "";
}

}  // namespace

bool LoadYamlFile(const std::string& path, const LoadLimits& limits, const DocumentSink& sink,
                  Error* error, const ItemSink& items) {
  if (path == "-") {
    // A terminal or /dev/zero on stdin is allowed: the document size limit
    // ends endless input.
    struct stat st;
    if (fstat(0, &st) == 0 && S_ISDIR(st.st_mode)) {
      *error = Error{kStdinName, {}, "is a directory"};
      return false;
    }
    return LoadYamlFd(0, kStdinName, limits, sink, error, items);
  }
  // Look before opening: opening a device can block or have effects.
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    *error = Error{path, {}, ErrnoText(errno)};
    return false;
  }
  std::string refused = RefusedType(st.st_mode);
  if (!refused.empty()) {
    *error = Error{path, {}, refused};
    return false;
  }
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *error = Error{path, {}, ErrnoText(errno)};
    return false;
  }
  // The path may have been replaced between stat and open.
  if (fstat(fd, &st) != 0 || !(refused = RefusedType(st.st_mode)).empty()) {
    *error = Error{path, {}, refused.empty() ? ErrnoText(errno) : refused};
    close(fd);
    return false;
  }
  bool ok = LoadYamlFd(fd, path, limits, sink, error, items);
  close(fd);
  return ok;
}

}  // namespace gpulint
