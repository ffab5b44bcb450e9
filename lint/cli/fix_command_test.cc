// `gpulint fix` ends with what it left: issue 25's first day, where fix said
// "made 1 change" and check then reported 2 errors.
#include <catch2/catch.hpp>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "lint/cli/cli_test_util.h"
#include "tests/golden.h"

namespace gpulint {
namespace {

using testing::Lines;
using testing::Result;
using testing::Run;
using testing::TempDir;

// The repository's examples/, copied: fix --write changes them.
std::string CopyExamples(const TempDir& dir) {
  namespace fs = std::filesystem;
  for (const auto& entry : fs::directory_iterator(testing::SourceDir() + "/examples"))
    dir.Write("examples/" + entry.path().filename().string(),
              testing::ReadFile(entry.path().string()));
  return dir.path() + "/examples";
}

TEST_CASE("fix ends with each finding it left, as check prints it, and why", "[cli][fix]") {
  TempDir dir;
  const std::string examples = CopyExamples(dir);
  // The dry run and the diff say it before anything is written.
  Result dry = Run({"fix", "-q", examples});
  Result diff = Run({"fix", "--diff", "-q", examples});
  Result written = Run({"fix", "--write", examples});
  Result check = Run({"check", "-q", examples});
  REQUIRE(written.rc == 1);
  REQUIRE(check.rc == 1);
  REQUIRE_FALSE(check.out.empty());

  // -q leaves out the changes and the summary, never what is left: the
  // findings of check after the write, each followed by its note.
  std::vector<std::string> left = Lines(dry.err);
  std::vector<std::string> findings, notes;
  for (size_t i = 0; i < left.size(); ++i) (i % 2 ? notes : findings).push_back(left[i]);
  REQUIRE(findings == Lines(check.out));
  REQUIRE(notes.size() == findings.size());
  for (size_t i = 0; i < notes.size(); ++i) {
    INFO(notes[i]);
    // The same position as the finding it follows.
    std::string position = findings[i].substr(0, findings[i].find(": "));
    CHECK(notes[i].rfind(position + ": note: not fixed: ", 0) == 0);
  }
  const std::string ds = examples + "/device-plugin-2018.yaml";
  CHECK(notes[0] == ds + ":2:13: note: not fixed: gpulint fix does not repair removed-api-version; "
                         "'gpulint explain removed-api-version' says how to fix it");
  CHECK(diff.err == dry.err);
  CHECK(diff.out.rfind("--- a/", 0) == 0);  // stdout holds the diff alone

  // Without -q: the changes, then what is left, then the summary counting it.
  std::vector<std::string> all = Lines(written.err);
  REQUIRE(all.size() == 1 + left.size() + 1);
  CHECK(all[0].find(": add env NVIDIA_VISIBLE_DEVICES=void") != std::string::npos);
  CHECK(std::vector<std::string>(all.begin() + 1, all.end() - 1) == left);
  CHECK(all.back() ==
        "gpulint: made 1 change in 1 file; 3 files unchanged; 3 findings not fixed (2 errors, 1 "
        "warning); policy: built-in");

  // A second run has nothing to change, and still says what is left.
  Result again = Run({"fix", "--write", examples});
  CHECK(again.rc == 0);
  CHECK(Lines(again.err).back() ==
        "gpulint: nothing to fix in 4 files; 3 findings not fixed (2 errors, 1 warning); policy: "
        "built-in");
}

}  // namespace
}  // namespace gpulint
