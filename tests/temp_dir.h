// A directory of its own for a test, removed with everything in it when the
// test ends (even where the test took its permissions away).
#ifndef GPULINT_TESTS_TEMP_DIR_H_
#define GPULINT_TESTS_TEMP_DIR_H_

#include <stdlib.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

namespace gpulint {

class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "gpulint_test.XXXXXX").string();
    REQUIRE(mkdtemp(pattern.data()) != nullptr);
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::permissions(path_, std::filesystem::perms::owner_all,
                                 std::filesystem::perm_options::add, ec);
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::string Path(const std::string& name) const { return (path_ / name).string(); }
  // Writes `text` to `name` in the directory; returns the file's path.
  std::string Write(const std::string& name, const std::string& text) const {
    std::ofstream(path_ / name, std::ios::binary) << text;
    return Path(name);
  }

 private:
  std::filesystem::path path_;
};

}  // namespace gpulint

#endif  // GPULINT_TESTS_TEMP_DIR_H_
