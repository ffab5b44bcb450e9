// The unit repairs with one reading, and those left for a person.
#include "engine/quantity/certain_unit_fix.h"

#include <catch2/catch.hpp>
#include <string>

namespace gpulint {
namespace {

TEST_CASE("CertainUnitFix: the rewrites with one reading", "[unit-fix]") {
  struct Case {
    const char* in;
    const char* out;
    const char* why;
  };
  const Case cases[] = {
      {"5MiB", "5Mi", "the \"i\" makes MiB the binary unit Mi, which Kubernetes writes Mi"},
      {"2GIB", "2Gi", "the \"i\" makes GIB the binary unit Gi, which Kubernetes writes Gi"},
      {"8gi", "8Gi", "the \"i\" makes gi the binary unit Gi, which Kubernetes writes Gi"},
      {"1.5kiB", "1.5Ki", "the \"i\" makes kiB the binary unit Ki, which Kubernetes writes Ki"},
      {"3TiB", "3Ti", "the \"i\" makes TiB the binary unit Ti, which Kubernetes writes Ti"},
      {"512B", "512", "B is a byte, which Kubernetes writes with no suffix"},
      {" 8Gi", "8Gi", "spaces are not part of a quantity"},
      {"8Gi\t", "8Gi", "spaces are not part of a quantity"},
      {"8 Gi", "8Gi", "spaces are not part of a quantity"},
      {"5 MiB", "5Mi",
       "spaces are not part of a quantity; the \"i\" makes MiB the binary unit Mi, which "
       "Kubernetes writes Mi"},
  };
  for (const Case& c : cases) {
    INFO(c.in);
    std::string fixed, why;
    REQUIRE(CertainUnitFix(c.in, &fixed, &why));
    CHECK(fixed == c.out);
    CHECK(why == c.why);
  }
}

TEST_CASE("CertainUnitFix: what needs a person stays as it is", "[unit-fix]") {
  // GB, g, K, M as memory: decimal or binary? b: a bit. A comma: a decimal
  // point or a thousands separator? Valid quantities need nothing.
  for (const char* in : {"500GB", "500gb", "40g", "1K", "1KB", "5Mib", "5b", "1,5", "5 GB", "8 0Gi",
                         "abc", "", "0x10", "5Mi", "500m", "1e3", "5MiBB", "5XiB"}) {
    INFO(in);
    std::string fixed = "untouched", why = "untouched";
    CHECK_FALSE(CertainUnitFix(in, &fixed, &why));
    CHECK(fixed == "untouched");
    CHECK(why == "untouched");
  }
}

}  // namespace
}  // namespace gpulint
