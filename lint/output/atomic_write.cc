#include "lint/output/atomic_write.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>

namespace gpulint {
namespace {

bool WriteAll(int fd, std::string_view content) {
  while (!content.empty()) {
    ssize_t n = write(fd, content.data(), content.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    content.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

}  // namespace

bool WriteFileAtomically(const std::string& path, std::string_view content, std::string* error) {
  auto fail = [&](const std::string& why) {
    *error = "cannot write " + path + ": " + why + "; the file is unchanged";
    return false;
  };
  char resolved[PATH_MAX];
  if (realpath(path.c_str(), resolved) == nullptr) return fail(std::strerror(errno));
  std::string target = resolved;
  struct stat st;
  if (stat(target.c_str(), &st) != 0) return fail(std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return fail("not a regular file");

  size_t slash = target.rfind('/');
  std::string dir = target.substr(0, slash == 0 ? 1 : slash);
  // A dot file in the same directory: rename() cannot cross file systems, and
  // globs such as *.yaml do not pick it up while it exists.
  std::string temp =
      dir + (dir == "/" ? "" : "/") + "." + target.substr(slash + 1) + ".gpulint-XXXXXX";
  int fd = mkstemp(temp.data());
  if (fd < 0) return fail(std::string("cannot create a temporary file: ") + std::strerror(errno));
  bool ok = WriteAll(fd, content) && fchmod(fd, st.st_mode & 07777) == 0;
  int saved = errno;
  if (ok && fchown(fd, st.st_uid, st.st_gid) != 0) {
    // Only the owner (or root) keeps the owner; others get their own, as any
    // editor's save would give them.
  }
  ok = ok && fsync(fd) == 0;
  if (!ok) saved = errno;
  if (close(fd) != 0 && ok) {
    ok = false;
    saved = errno;
  }
  if (ok && rename(temp.c_str(), target.c_str()) != 0) {
    ok = false;
    saved = errno;
  }
  if (!ok) {
    unlink(temp.c_str());
    return fail(std::strerror(saved));
  }
  // The rename itself is durable once the directory is.
  int dir_fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd >= 0) {
    fsync(dir_fd);
    close(dir_fd);
  }
  return true;
}

}  // namespace gpulint
