#include "lint/output/atomic_write.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/temp_dir.h"

namespace gpulint {
namespace {

namespace fs = std::filesystem;

size_t Entries(const fs::path& dir) {
  return static_cast<size_t>(std::distance(fs::directory_iterator(dir), {}));
}

std::string Slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST_CASE("atomic write: replaces the content, keeps the mode, leaves no temporary file",
          "[atomic-write]") {
  TempDir dir;
  fs::path file = dir.path() / "pod.yaml";
  std::ofstream(file) << "old\n";
  REQUIRE(chmod(file.c_str(), 0640) == 0);
  std::string error;
  REQUIRE(WriteFileAtomically(file.string(), "new\ncontent\n", &error));
  CHECK(Slurp(file) == "new\ncontent\n");
  struct stat st;
  REQUIRE(stat(file.c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0640);
  CHECK(Entries(dir.path()) == 1);
}

TEST_CASE("atomic write: through a symlink the target changes and the link stays",
          "[atomic-write]") {
  TempDir dir;
  fs::path target = dir.path() / "real.yaml";
  fs::path link = dir.path() / "link.yaml";
  std::ofstream(target) << "old\n";
  fs::create_symlink("real.yaml", link);
  std::string error;
  REQUIRE(WriteFileAtomically(link.string(), "new\n", &error));
  CHECK(fs::is_symlink(link));
  CHECK(Slurp(target) == "new\n");
  CHECK(Entries(dir.path()) == 2);
}

TEST_CASE("atomic write: a failure says why and leaves the file as it was", "[atomic-write]") {
  TempDir dir;
  std::string error;
  CHECK_FALSE(WriteFileAtomically((dir.path() / "missing.yaml").string(), "x", &error));
  CHECK(error == "cannot write " + (dir.path() / "missing.yaml").string() +
                     ": No such file or directory; the file is unchanged");
  CHECK_FALSE(WriteFileAtomically(dir.path().string(), "x", &error));
  CHECK(error ==
        "cannot write " + dir.path().string() + ": not a regular file; the file is unchanged");
  // /proc is a file system where no file can be created, root or not: the
  // temporary file cannot be made, and the real file is never touched.
  std::string before = Slurp("/proc/self/comm");
  CHECK_FALSE(WriteFileAtomically("/proc/self/comm", "x", &error));
  CHECK(error.rfind("cannot write /proc/self/comm: cannot create a temporary file: ", 0) == 0);
  CHECK(Slurp("/proc/self/comm") == before);
}

}  // namespace
}  // namespace gpulint
