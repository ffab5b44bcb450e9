// "Did you mean": one threshold for every name gpulint suggests.
#include "engine/base/edit_distance.h"

#include <catch2/catch.hpp>
#include <string_view>
#include <vector>

namespace gpulint {
namespace {

TEST_CASE("EditDistance counts insertions, deletions and substitutions", "[base]") {
  CHECK(EditDistance("", "") == 0);
  CHECK(EditDistance("abc", "") == 3);
  CHECK(EditDistance("percent", "precent") == 2);
  CHECK(EditDistance("kitten", "sitting") == 3);
}

TEST_CASE("ClosestWord suggests only near misses", "[base]") {
  std::vector<std::string_view> fields = {"fixed", "percent", "perGpu"};
  CHECK(ClosestWord("perGPU", fields) == "perGpu");
  CHECK(ClosestWord("precent", fields) == "percent");
  CHECK(ClosestWord("fix", fields) == "fixed");
  CHECK(ClosestWord("headroom", fields).empty());
}

TEST_CASE("ClosestWord allows two edits, however long the word", "[base]") {
  std::vector<std::string_view> short_names = {"abcd"};
  CHECK(ClosestWord("abxy", short_names) == "abcd");
  CHECK(ClosestWord("axyz", short_names).empty());
  // Names that share a long prefix are other names, not typos.
  std::vector<std::string_view> gpus = {"nvidia.com/gpu", "gpu.intel.com/xe"};
  CHECK(ClosestWord("nvidia.com/gpumem", gpus).empty());
  CHECK(ClosestWord("gpu.intel.com/i915", gpus).empty());
  CHECK(ClosestWord("nvidia.com/gpus", gpus) == "nvidia.com/gpu");
}

TEST_CASE("ClosestWord prefers a case-insensitive match and the first of equals", "[base]") {
  std::vector<std::string_view> names = {"gpus", "GPU", "gpu"};
  CHECK(ClosestWord("gpu", names) == "GPU");
  std::vector<std::string_view> tied = {"cat", "car"};
  CHECK(ClosestWord("cab", tied) == "cat");
}

}  // namespace
}  // namespace gpulint
