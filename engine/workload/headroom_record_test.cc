// The headroom annotation's format, written by the mutation and read back by
// validation.
#include "engine/workload/headroom_record.h"

#include <catch2/catch.hpp>
#include <string>

namespace gpulint {
namespace {

TEST_CASE("a headroom record is written as compact JSON and read back", "[workload][headroom]") {
  HeadroomRecord record = {{"trainer", {"64Gi", "1T", "1Ti"}},
                           {"eval", {"16Gi", std::nullopt, "40G"}}};
  std::string text = WriteHeadroomRecord(record);
  CHECK(
      text ==
      R"({"trainer":{"added":"64Gi","requests":"1T","limits":"1Ti"},"eval":{"added":"16Gi","limits":"40G"}})");
  HeadroomRecord read;
  REQUIRE(ReadHeadroomRecord(text, &read));
  REQUIRE(read.size() == 2);
  const HeadroomEntry* eval = FindHeadroomEntry(read, "eval");
  REQUIRE(eval);
  CHECK(eval->added == "16Gi");
  CHECK_FALSE(eval->requests);
  CHECK(eval->limits == "40G");
  CHECK_FALSE(FindHeadroomEntry(read, "other"));
}

TEST_CASE("a record from before 0.2 holds only the text added", "[workload][headroom]") {
  HeadroomRecord read;
  REQUIRE(ReadHeadroomRecord(R"({"cuda":"16Gi"})", &read));
  const HeadroomEntry* cuda = FindHeadroomEntry(read, "cuda");
  REQUIRE(cuda);
  CHECK(cuda->added == "16Gi");
  CHECK_FALSE(cuda->limits);
}

TEST_CASE("a hand-written record is read only where it holds strings", "[workload][headroom]") {
  HeadroomRecord read;
  CHECK_FALSE(ReadHeadroomRecord("[1, 2]", &read));
  CHECK_FALSE(ReadHeadroomRecord("not json", &read));
  REQUIRE(ReadHeadroomRecord(R"({"a": 16, "b": {"added": 1, "limits": "2Gi"}})", &read));
  const HeadroomEntry* a = FindHeadroomEntry(read, "a");
  REQUIRE(a);
  CHECK_FALSE(a->added);
  const HeadroomEntry* b = FindHeadroomEntry(read, "b");
  REQUIRE(b);
  CHECK_FALSE(b->added);
  CHECK(b->limits == "2Gi");
}

}  // namespace
}  // namespace gpulint
