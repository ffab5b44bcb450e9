// JsonLimits::max_tree_bytes: what a parse may build, counted as it builds,
// so that a text whose tree would be many times its size is refused before
// the tree is there.
#include <catch2/catch.hpp>
#include <regex>
#include <string>

#include "engine/base/value.h"
#include "engine/json/json_parser.h"
#include "engine/json/json_tree_builder.h"

namespace gpulint {
namespace {

// `[0,0,...]`: two bytes of text per value.
std::string Zeros(size_t n) {
  std::string text = "[";
  for (size_t i = 0; i < n; ++i) text += i ? ",0" : "0";
  return text + "]";
}

TEST_CASE("JSON budget: an array of zeros is refused as it grows, by either parser",
          "[json][budget]") {
  std::string bomb = Zeros(200000);  // 400 KB of text, 200,000 values
  JsonLimits limits{128, 1u << 20};
  Value v;
  Error fast, reference;
  REQUIRE(ParseJsonWithin(bomb, limits, &v, &fast) == JsonParse::kOverBudget);
  CHECK(v.is_null());  // nothing of the tree is kept
  // The message says where it stopped: an index far short of the end.
  std::smatch m;
  REQUIRE(std::regex_match(fast.message, m,
                           std::regex("the tree would take more than 1048576 bytes, at /([0-9]+)")));
  size_t stopped = std::stoul(m[1]);
  CHECK(stopped > 1000);
  CHECK(stopped < 200000 / 4);
  // nlohmann builds the same tree through the same builder: the same refusal.
  REQUIRE(ParseJsonNlohmannWithin(bomb, limits, &v, &reference) == JsonParse::kOverBudget);
  CHECK(reference.message == fast.message);
  REQUIRE(ParseJsonFastWithin(bomb, limits, &v, &reference) == JsonParse::kOverBudget);
  CHECK(reference.message == fast.message);
}

TEST_CASE("JSON budget: the same text within a budget it fits is the same tree",
          "[json][budget]") {
  std::string text = Zeros(1000);
  Value within, unlimited;
  Error error;
  REQUIRE(ParseJsonWithin(text, JsonLimits{128, 1u << 20}, &within, &error) == JsonParse::kOk);
  REQUIRE(ParseJson(text, 128, &unlimited, &error));
  CHECK(ToJson(within) == ToJson(unlimited));
  CHECK(within.items().size() == 1000);
  // 0: no limit at all.
  std::string big = Zeros(300000);
  REQUIRE(ParseJsonWithin(big, JsonLimits{128, 0}, &within, &error) == JsonParse::kOk);
  CHECK(within.items().size() == 300000);
}

TEST_CASE("JSON budget: what is held never passes the budget, whatever the shape",
          "[json][budget]") {
  // Each shape fed to the builder directly, the count read after every event.
  constexpr size_t kBudget = 64 * 1024;
  SECTION("a flat array") {
    JsonTreeBuilder tree(JsonLimits{128, kBudget});
    REQUIRE(tree.Open(Value::Type::kSequence));
    size_t added = 0;
    while (tree.Add(Value())) {
      CHECK(tree.tree_bytes() <= kBudget);
      ++added;
    }
    CHECK(tree.over_budget());
    CHECK(tree.tree_bytes() <= kBudget);
    CHECK(added > kBudget / sizeof(Value) / 4);
  }
  SECTION("a wide object, its keys indexed") {
    JsonTreeBuilder tree(JsonLimits{128, kBudget});
    REQUIRE(tree.Open(Value::Type::kMapping));
    for (size_t i = 0;; ++i) {
      if (!tree.Key("a long enough key to live on the heap " + std::to_string(i))) break;
      if (!tree.Add(Value::String("and a long enough value to live there too"))) break;
      CHECK(tree.tree_bytes() <= kBudget);
    }
    CHECK(tree.over_budget());
    CHECK(tree.tree_bytes() <= kBudget);
  }
  SECTION("nested arrays, each closed as it ends") {
    JsonTreeBuilder tree(JsonLimits{128, kBudget});
    REQUIRE(tree.Open(Value::Type::kSequence));
    bool ok = true;
    while (ok) {
      ok = tree.Open(Value::Type::kSequence) && tree.Add(Value()) && tree.Add(Value()) &&
           tree.Close();
      CHECK(tree.tree_bytes() <= kBudget);
    }
    CHECK(tree.over_budget());
  }
}

TEST_CASE("JSON budget: strings count what they hold beyond the value", "[json][budget]") {
  // One string of 100,000 bytes: its text is what costs.
  std::string text = "[\"" + std::string(100000, 'x') + "\"]";
  Value v;
  Error error;
  CHECK(ParseJsonWithin(text, JsonLimits{128, 90000}, &v, &error) == JsonParse::kOverBudget);
  CHECK(error.message == "the tree would take more than 90000 bytes, at /0");
  CHECK(ParseJsonWithin(text, JsonLimits{128, 200000}, &v, &error) == JsonParse::kOk);
}

TEST_CASE("JSON budget: a text that is not JSON is invalid, not over budget", "[json][budget]") {
  Value v;
  Error error;
  CHECK(ParseJsonWithin("[0,0,", JsonLimits{128, 1u << 20}, &v, &error) == JsonParse::kInvalid);
  CHECK(error.message.find("syntax error") != std::string::npos);
  CHECK(ParseJsonWithin("[[[1]]]", JsonLimits{2, 1u << 20}, &v, &error) == JsonParse::kInvalid);
  CHECK(error.message == "nesting is deeper than 2 levels");
}

}  // namespace
}  // namespace gpulint
