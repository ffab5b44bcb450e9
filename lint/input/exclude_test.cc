// --exclude's globs, as .gitignore reads them: each case with what it shows.
#include "lint/input/exclude.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "lint/cli/cli_test_util.h"

namespace gpulint {
namespace {

ExcludePatterns Patterns(const std::vector<std::string>& globs) {
  ExcludePatterns out;
  std::string error;
  for (const std::string& glob : globs) REQUIRE(out.Add(glob, &error));
  return out;
}

TEST_CASE("ExcludePatterns: globs match as in .gitignore", "[exclude]") {
  struct Case {
    const char* glob;
    const char* path;
    bool is_dir;
    bool excluded;
    const char* why;
  };
  const Case cases[] = {
      {"*.json", "a.json", false, true, "a name pattern matches at the top"},
      {"*.json", "k8s/team/a.json", false, true, "and at any depth"},
      {"*.json", "k8s/a.yaml", false, false, "not another name"},
      {"vendor", "vendor", true, true, "a directory by name"},
      {"vendor", "k8s/vendor", true, true, "at any depth"},
      {"vendor", "k8s/vendor.yaml", false, false, "a name is matched whole"},
      {"*", "a/b.yaml", false, true, "'*' is any name"},
      {"a?.yaml", "ab.yaml", false, true, "'?' is one character"},
      {"a?.yaml", "abc.yaml", false, false, "and only one"},
      {"[ab].yaml", "b.yaml", false, true, "a class"},
      {"[!ab].yaml", "b.yaml", false, false, "a class negated"},
      {"generated/*.yaml", "generated/x.yaml", false, true, "a '/' matches the whole path"},
      {"generated/*.yaml", "k8s/generated/x.yaml", false, false, "from the base only"},
      {"generated/*.yaml", "generated/sub/x.yaml", false, false, "'*' stops at '/'"},
      {"/generated", "generated", true, true, "a leading '/' changes nothing"},
      {"./generated", "generated", true, true, "nor does './'"},
      {"/generated", "k8s/generated", true, false, "it anchors at the base"},
      {"**/generated", "k8s/team/generated", true, true, "'**/' is any depth"},
      {"**/generated", "generated", true, true, "none included"},
      {"k8s/**", "k8s/a/b.yaml", false, true, "'/**' is everything inside"},
      {"k8s/**", "k8s", true, false, "not the directory itself"},
      {"a/**/b.yaml", "a/b.yaml", false, true, "'/**/' is zero directories"},
      {"a/**/b.yaml", "a/x/y/b.yaml", false, true, "or any number"},
      {"a/**/b.yaml", "a/x/y/c.yaml", false, false, "and the rest still matches"},
      {"build/", "build", true, true, "a trailing '/' is a directory"},
      {"build/", "build", false, false, "never a file"},
      {"k8s/build/", "k8s/build", true, true, "with a path too"},
      {".*", "k8s/.hidden.yaml", false, true, "dot files are names like any"},
  };
  for (const Case& c : cases) {
    INFO(c.glob << " on " << c.path << (c.is_dir ? "/" : "") << ": " << c.why);
    CHECK(Patterns({c.glob}).Excludes(c.path, c.is_dir) == c.excluded);
  }
  CHECK_FALSE(ExcludePatterns().Excludes("a.yaml", false));
  ExcludePatterns two = Patterns({"*.json", "vendor"});
  CHECK(two.Excludes("a.json", false));
  CHECK(two.Excludes("x/vendor", true));
  CHECK_FALSE(two.Excludes("a.yaml", false));
}

TEST_CASE("ExcludePatterns: a glob that names nothing is refused", "[exclude]") {
  for (const char* glob : {"", "/", "//", "./"}) {
    INFO("'" << glob << "'");
    ExcludePatterns patterns;
    std::string error;
    CHECK_FALSE(patterns.Add(glob, &error));
    CHECK(error == "--exclude: '" + std::string(glob) + "' names no file or directory");
  }
}

TEST_CASE("ExcludePatterns: a PATH named is matched from the current directory, each directory down",
          "[exclude]") {
  testing::TempDir dir;
  testing::InDirectory in(dir.path());
  ExcludePatterns patterns = Patterns({"vendor", "generated/*.yaml", ".*"});
  CHECK(patterns.ExcludesNamed("k8s/vendor/x.yaml", false));  // under an excluded directory
  CHECK(patterns.ExcludesNamed("./generated/x.yaml", false));
  CHECK(patterns.ExcludesNamed(dir.path() + "/generated/x.yaml", false));  // absolute, inside
  CHECK_FALSE(patterns.ExcludesNamed("k8s/generated/x.yaml", false));
  CHECK_FALSE(patterns.ExcludesNamed(".", true));  // '.' is no name
  CHECK_FALSE(patterns.ExcludesNamed("./k8s", true));
  CHECK_FALSE(patterns.ExcludesNamed("-", false));
  // Outside the current directory, only its own name: the directories above
  // are no part of what the user chose to check.
  CHECK_FALSE(patterns.ExcludesNamed("../vendor/x.yaml", false));
  CHECK(patterns.ExcludesNamed("../x/vendor", true));
}

}  // namespace
}  // namespace gpulint
