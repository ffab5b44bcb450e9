// How quantities are shown: bytes in both unit systems, counts, and which
// unit system a suffix belongs to.
#include <catch2/catch.hpp>
#include <string>

#include "engine/quantity/quantity.h"
#include "engine/quantity/quantity_test_support.h"

namespace gpulint {
namespace {

using quantity_testing::MustParse;

constexpr QuantityFormat kB = QuantityFormat::kBinarySI;

TEST_CASE("FormatBytes shows both unit systems", "[quantity]") {
  struct Case {
    const char* input;
    const char* text;
  };
  const Case cases[] = {
      {"500Gi", "536870912000 B = 536.9 GB = 500 GiB"},
      {"500G", "500000000000 B = 500 GB = 465.7 GiB"},
      {"527787256Ki", "540454150144 B = 540.5 GB = 503.3 GiB"},
      {"8Ei", "9223372036854775807 B = 9.2 EB = 8 EiB"},
      {"1024", "1024 B = 1 kB = 1 KiB"},
      // Half away from zero on the exact value (a double would say 1.1 and 1.2).
      {"1150", "1150 B = 1.2 kB = 1.1 KiB"},
      {"1280", "1280 B = 1.3 kB = 1.3 KiB"},
      {"-1050", "-1050 B = -1.1 kB = -1 KiB"},
      // Below 1 kB (or 1 KiB) that system adds nothing to the exact bytes.
      {"1000", "1000 B = 1 kB"},
      {"1023", "1023 B = 1 kB"},
      {"512", "512 B"},
      {"0", "0 B"},
      {"500m", "0.5 B"},
      {"1024.5", "1024.5 B = 1 kB = 1 KiB"},
      // The largest unit keeping the number >= 1 is chosen before rounding.
      {"999960", "999960 B = 1000 kB = 976.5 KiB"},
  };
  for (const Case& c : cases) {
    INFO("input: " << c.input);
    CHECK(FormatBytes(MustParse(c.input)) == c.text);
  }
}

TEST_CASE("DescribeBytes and DescribeCount", "[quantity]") {
  CHECK(DescribeBytes(MustParse("500Gi")) == "500Gi (536870912000 B = 536.9 GB = 500 GiB)");
  CHECK(DescribeBytes(MustParse("1024Mi")) == "1Gi (1073741824 B = 1.1 GB = 1 GiB)");
  CHECK(DescribeBytes(MustParse("500m")) == "500m (0.5 B)");
  CHECK(DescribeCount(MustParse("8")) == "8");
  // Brief: never a bare number of bytes, always both unit systems.
  CHECK(BriefBytes(MustParse("4Gi")) == "4Gi = 4.3 GB = 4 GiB");
  CHECK(BriefBytes(MustParse("107374183")) == "107374183 B = 107.4 MB = 102.4 MiB");
  CHECK(BriefBytes(MustParse("526423076Ki")) == "526423076Ki = 539.1 GB = 502 GiB");
  CHECK(BriefBytes(MustParse("64G")) == "64G = 64 GB = 59.6 GiB");
  CHECK(BriefBytes(MustParse("500m")) == "500m = 0.5 B");
  CHECK(BriefBytes(MustParse("-2Gi")) == "-2Gi = -2.1 GB = -2 GiB");
  CHECK(DescribeCount(MustParse("1k")) == "1000");
  CHECK(DescribeCount(MustParse("1.5")) == "1500m (1.5)");
  CHECK(DescribeCount(MustParse("-0.5")) == "-500m (-0.5)");
}

TEST_CASE("UnitSystemOf tells binary from decimal suffixes", "[quantity]") {
  for (const char* text : {"500Gi", "1Ki", "0.5Mi", "-2Ei"}) {
    INFO(text);
    CHECK(UnitSystemOf(text) == UnitSystem::kBinary);
  }
  for (const char* text : {"500G", "1k", "1e3", "1E", "2.5P", "1e-3", " 500M "}) {
    INFO(text);
    CHECK(UnitSystemOf(text) == UnitSystem::kDecimal);
  }
  for (const char* text : {"500", "500m", "5u", "5n", "1.5", "", "abc", "500GB", "1e"}) {
    INFO(text);
    CHECK(UnitSystemOf(text) == UnitSystem::kNone);
  }
}

}  // namespace
}  // namespace gpulint
