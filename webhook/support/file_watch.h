// Noticing that a mounted file changed, by polling: Secret and ConfigMap
// volumes swap a `..data` symlink to a new directory, editors rename a new
// file over the old one, and inotify on the path sees neither reliably.
#ifndef GPULINT_WEBHOOK_SUPPORT_FILE_WATCH_H_
#define GPULINT_WEBHOOK_SUPPORT_FILE_WATCH_H_

#include <cstdint>
#include <string>

namespace gpulint {

// Identity and version of the file a path resolves to (symlinks followed):
// a new inode, size, mtime or ctime is a new version.
struct FileStamp {
  bool exists = false;
  uint64_t device = 0, inode = 0, size = 0;
  int64_t mtime_ns = 0, ctime_ns = 0;
  friend bool operator==(const FileStamp&, const FileStamp&) = default;
};

FileStamp StampOf(const std::string& path);

// Remembers the stamp a path had when last loaded.
class FileWatch {
 public:
  FileWatch() = default;
  explicit FileWatch(std::string path) : path_(std::move(path)) {}
  const std::string& path() const { return path_; }
  bool enabled() const { return !path_.empty(); }
  // True when the file differs from the last Mark()ed version.
  bool Changed() const { return enabled() && StampOf(path_) != seen_; }
  // Records the current version as seen; returns it.
  FileStamp Mark() { return seen_ = StampOf(path_); }

 private:
  std::string path_;
  FileStamp seen_;
};

}  // namespace gpulint

#endif  // GPULINT_WEBHOOK_SUPPORT_FILE_WATCH_H_
