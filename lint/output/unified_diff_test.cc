// `gpulint fix --diff`'s diffs, checked against what diff -u prints.
#include "lint/output/unified_diff.h"

#include <catch2/catch.hpp>
#include <string>

namespace gpulint {
namespace {

std::string Numbered(int from, int to) {
  std::string out;
  for (int i = from; i <= to; ++i) out += "line " + std::to_string(i) + "\n";
  return out;
}

TEST_CASE("unified diff: equal texts give nothing", "[diff]") {
  CHECK(UnifiedDiff("a\nb\n", "a\nb\n", "x.yaml").empty());
}

TEST_CASE("unified diff: an insertion with three lines of context", "[diff]") {
  std::string before = Numbered(1, 10);
  std::string after = Numbered(1, 5) + "new\n" + Numbered(6, 10);
  CHECK(UnifiedDiff(before, after, "k8s/pod.yaml") ==
        "--- a/k8s/pod.yaml\n+++ b/k8s/pod.yaml\n"
        "@@ -3,6 +3,7 @@\n line 3\n line 4\n line 5\n+new\n line 6\n line 7\n line 8\n");
}

TEST_CASE("unified diff: changes far apart are separate hunks, near ones one", "[diff]") {
  std::string before = Numbered(1, 20);
  std::string after = before;
  after.replace(after.find("line 2\n"), 7, "two\n");
  after.replace(after.find("line 18\n"), 8, "eighteen\n");
  CHECK(UnifiedDiff(before, after, "f") ==
        "--- a/f\n+++ b/f\n"
        "@@ -1,5 +1,5 @@\n line 1\n-line 2\n+two\n line 3\n line 4\n line 5\n"
        "@@ -15,6 +15,6 @@\n line 15\n line 16\n line 17\n-line 18\n+eighteen\n line 19\n"
        " line 20\n");
  std::string near = before;
  near.replace(near.find("line 9\n"), 7, "nine\n");
  near.replace(near.find("line 14\n"), 8, "fourteen\n");
  CHECK(UnifiedDiff(before, near, "f") ==
        "--- a/f\n+++ b/f\n"
        "@@ -6,12 +6,12 @@\n line 6\n line 7\n line 8\n-line 9\n+nine\n line 10\n line 11\n"
        " line 12\n line 13\n-line 14\n+fourteen\n line 15\n line 16\n line 17\n");
}

TEST_CASE("unified diff: from and to nothing, and a missing last newline", "[diff]") {
  CHECK(UnifiedDiff("", "a\n", "f") == "--- a/f\n+++ b/f\n@@ -0,0 +1 @@\n+a\n");
  CHECK(UnifiedDiff("a\nb", "a\nb\nc\n", "f") ==
        "--- a/f\n+++ b/f\n@@ -1,2 +1,3 @@\n a\n-b\n\\ No newline at end of file\n+b\n+c\n");
}

}  // namespace
}  // namespace gpulint
