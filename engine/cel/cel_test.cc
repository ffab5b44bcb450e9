#include "engine/cel/cel.h"

#include <catch2/catch.hpp>

namespace gpulint {
namespace {

// An A100 as NVIDIA's DRA driver publishes it (attributes under its driver's
// domain, one under Kubernetes' own), and its memory.
struct A100 {
  CelAttributes attributes;
  CelCapacities capacity;
  CelDevice device;
  A100() {
    Semver driver_version, cc;
    REQUIRE(Semver::Parse("550.54.15", &driver_version));
    REQUIRE(Semver::Parse("8.0.0", &cc));
    attributes["gpu.nvidia.com"] = {
        {"type", CelValue::String("gpu")},
        {"productName", CelValue::String("NVIDIA A100-SXM4-80GB")},
        {"index", CelValue::Int(3)},
        {"driverVersion", CelValue::OfSemver(driver_version)},
        {"cudaComputeCapability", CelValue::OfSemver(cc)},
        {"mig", CelValue::Bool(false)},
    };
    attributes["resource.kubernetes.io"] = {{"pciBusID", CelValue::String("0000:07:00.0")}};
    Quantity memory;
    REQUIRE(Quantity::Parse("80Gi", &memory, nullptr));
    capacity["gpu.nvidia.com"] = {{"memory", memory}};
    device = CelDevice{"gpu.nvidia.com", &attributes, &capacity};
  }
};

std::string Answer(const CelSelector& s, const CelDevice& d) {
  CelVerdict v = s.Matches(d);
  return v.yes() ? "yes" : v.no() ? "no" : "cannot tell: " + v.why;
}

TEST_CASE("CEL selectors of the vendors' DeviceClasses and claims", "[cel]") {
  A100 gpu;
  struct Case {
    const char* expression;
    const char* answer;
  };
  const Case cases[] = {
      // NVIDIA's gpu.nvidia.com and mig.nvidia.com classes
      {"device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'",
       "yes"},
      {"device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'mig'",
       "no"},
      // Intel's and AMD's (their classes select on the driver alone)
      {"device.driver == \"gpu.intel.com\"", "no"},
      {"device.driver == 'gpu.amd.com' && (!has(device.attributes[\"gpu.amd.com\"].computePartition) "
       "|| device.attributes[\"gpu.amd.com\"].computePartition == \"spx\")",
       "no"},
      // attribute forms: a field, an index, a domain-less default
      {"device.attributes[\"gpu.nvidia.com\"][\"productName\"] == 'NVIDIA A100-SXM4-80GB'", "yes"},
      {"device.attributes['gpu.nvidia.com'].index in [0, 1, 2, 3]", "yes"},
      {"device.attributes['gpu.nvidia.com'].index > 3", "no"},
      {"device.attributes['resource.kubernetes.io'].pciBusID.startsWith('0000:07')", "yes"},
      {"device.attributes['gpu.nvidia.com'].productName.matches('A100|H100')", "yes"},
      {"device.attributes['gpu.nvidia.com'].productName.lowerAscii().contains('a100')", "yes"},
      {"!device.attributes['gpu.nvidia.com'].mig", "yes"},
      {"has(device.attributes['gpu.nvidia.com'].uuid)", "no"},
      {"has(device.attributes['gpu.nvidia.com'].uuid) && "
       "device.attributes['gpu.nvidia.com'].uuid == 'GPU-1'",
       "no"},
      {"size(device.attributes['gpu.nvidia.com']) == 6", "yes"},
      // capacity, through Kubernetes' quantity library
      {"device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('40Gi')) >= 0", "yes"},
      {"device.capacity['gpu.nvidia.com'].memory.isGreaterThan(quantity('80Gi'))", "no"},
      {"device.capacity['gpu.nvidia.com'].memory.isLessThan(quantity('100G'))", "yes"},
      {"device.capacity['gpu.nvidia.com'].memory == quantity('81920Mi')", "yes"},
      {"device.capacity['gpu.nvidia.com'].memory.asInteger() == 85899345920", "yes"},
      // versions, through the semver library
      {"device.attributes['gpu.nvidia.com'].driverVersion.compareTo(semver('550.0.0')) >= 0",
       "yes"},
      {"device.attributes['gpu.nvidia.com'].cudaComputeCapability.isLessThan(semver('9.0.0'))",
       "yes"},
      {"device.attributes['gpu.nvidia.com'].driverVersion.major() == 550", "yes"},
      // cel.bind, the ternary, arithmetic
      {"cel.bind(nv, device.attributes['gpu.nvidia.com'], nv.type == 'gpu' && nv.index % 2 == 1)",
       "yes"},
      {"device.attributes['gpu.nvidia.com'].index > 2 ? true : 1 / 0 == 1", "yes"},
      {"device.attributes['gpu.nvidia.com'].index * 2 + 1 == 7 && 1u < 2.5", "yes"},
      {"device.driver + '/x' == r'gpu.nvidia.com/x' && '\\x41\\u00e9' == 'A\u00e9'", "yes"},
  };
  for (const Case& c : cases) {
    INFO(c.expression);
    CelSelector s(c.expression);
    CHECK(s.problem() == "");
    CHECK(Answer(s, gpu.device) == c.answer);
  }
}

TEST_CASE("CEL: what gpulint cannot tell, and CEL's rules for errors in && and ||", "[cel]") {
  A100 gpu;
  struct Case {
    const char* expression;
    const char* answer;
  };
  const Case cases[] = {
      // A missing attribute is CEL's own error: the scheduler would fail too.
      {"device.attributes['gpu.nvidia.com'].uuid == 'GPU-1'", "cannot tell: no such key: uuid"},
      // ... unless the other side of && or || decides.
      {"device.driver == 'gpu.intel.com' && device.attributes['gpu.nvidia.com'].uuid == 'x'", "no"},
      {"device.attributes['gpu.nvidia.com'].uuid == 'x' && device.driver == 'gpu.intel.com'", "no"},
      {"device.attributes['gpu.nvidia.com'].uuid == 'x' || device.driver == 'gpu.nvidia.com'",
       "yes"},
      {"device.attributes['gpu.nvidia.com'].uuid == 'x' || device.driver == 'gpu.intel.com'",
       "cannot tell: no such key: uuid"},
      // What gpulint does not evaluate is said by name.
      {"device.attributes['gpu.nvidia.com'].productName.split(' ').size() == 2",
       "cannot tell: the string function split() (not evaluated by gpulint)"},
      {"[1, 2].exists(x, x == device.attributes['gpu.nvidia.com'].index)",
       "cannot tell: the macro exists() (not evaluated by gpulint)"},
      {"device.driver == 'gpu.intel.com' && [1].all(x, x > 0)", "no"},
      {"{'a': 1}.size() == 1",
       "cannot tell: gpulint cannot read it (at column 1: map literals are not read by gpulint)"},
      // Type errors and arithmetic errors are errors, as in CEL.
      {"device.attributes['gpu.nvidia.com'].index == 'three'", "no"},  // unlike types: unequal
      {"device.attributes['gpu.nvidia.com'].index < 'three'",
       "cannot tell: no such overload: int < string"},
      {"9223372036854775807 + 1 > 0", "cannot tell: return error for overflow"},
      {"device.capacity['gpu.nvidia.com'].memory", "cannot tell: it gives a Quantity, not a bool"},
      {"quantity('80GB').sign() == 1",
       "cannot tell: quantities must match the regular expression"},
      {"nvidia.type == 'gpu'", "cannot tell: undeclared reference to \"nvidia\""},
  };
  for (const Case& c : cases) {
    INFO(c.expression);
    CHECK(Answer(CelSelector(c.expression), gpu.device) == c.answer);
  }
}

TEST_CASE("CEL parses what it reads and refuses the rest with a position", "[cel]") {
  struct Case {
    const char* expression;
    const char* problem;
  };
  const Case cases[] = {
      {"device.driver ==", "gpulint cannot read it (at column 17: unexpected end of the expression)"},
      {"device.driver == 'a", "gpulint cannot read it (at column 20: unterminated string)"},
      {"device.driver == b'a'",
       "gpulint cannot read it (at column 18: bytes literals are not read by gpulint)"},
      {"(device.driver == 'a'", "gpulint cannot read it (at column 22: expected \")\")"},
      {"1 2", "gpulint cannot read it (at column 3: unexpected \"2\")"},
      {"18446744073709551616u > 0", "gpulint cannot read it (at column 22: number out of range)"},
      {"has(device)",
       "gpulint cannot read it (at column 12: has() takes one field selection, such as "
       "has(device.attributes[\"d\"].name))"},
  };
  for (const Case& c : cases) {
    INFO(c.expression);
    CHECK(CelSelector(c.expression).problem() == c.problem);
  }
  // Nesting a parser would recurse into without end is refused, not followed.
  std::string deep(10000, '(');
  CHECK(CelSelector(deep + "true" + std::string(10000, ')')).problem() ==
        "gpulint cannot read it (at column 66: nested too deeply)");
  std::string nots(10000, '!');
  CHECK_FALSE(CelSelector(nots + "true").problem().empty());
}

TEST_CASE("CEL literals and operators, value by value", "[cel]") {
  CelDevice none;
  struct Case {
    const char* expression;
    const char* answer;
  };
  const Case cases[] = {
      {"-9223372036854775808 < 0", "yes"},
      {"0x10 == 16 && 0x10u == 16u && 1e3 == 1000.0 && 2.5e-1 == 0.25", "yes"},
      {"'''a'b''' == \"a'b\" && \"\\\"\" == '\"' && '\\101' == 'A'", "yes"},
      {"1 == 1.0 && 1u == 1 && 2 > 1u && [1, 'a'] == [1, 'a'] && [1] != [2]", "yes"},
      {"'b' > 'a' && true > false && size('h\u00e9') == 2", "yes"},
      {"[1, 2] + [3] == [1, 2, 3] && 'a' in ['a'] && !('b' in ['a'])", "yes"},
      {"7 / 2 == 3 && -7 % 3 == -1 && 7u / 2u == 3u", "yes"},
      {"int('42') == 42 && string(42) == '42' && double(1) == 1.0 && uint(3) == 3u", "yes"},
      {"null == null && !(null == 0)", "yes"},
      {"semver('1.0.0-alpha') < semver('1.0.0')", "cannot tell: no such overload: Semver < Semver"},
      {"semver('1.0.0-alpha').isLessThan(semver('1.0.0-alpha.1')) && "
       "semver('1.0.0-alpha.beta').isLessThan(semver('1.0.0-beta')) && "
       "semver('1.0.0-beta.11').isGreaterThan(semver('1.0.0-beta.2')) && "
       "semver('1.0.0-rc.1').isLessThan(semver('1.0.0')) && "
       "semver('1.0.0+build.5').compareTo(semver('1.0.0')) == 0",
       "yes"},
      {"isSemver('1.2') || isSemver('01.2.3') || isSemver('1.2.3-01')", "no"},
      {"quantity('1.5').isInteger() || quantity('1Ki').add(1).asInteger() != 1025", "no"},
      {"quantity('2G').sub(quantity('1G')).compareTo(quantity('1000M')) == 0", "yes"},
      {"device.driver == ''", "yes"},
  };
  for (const Case& c : cases) {
    INFO(c.expression);
    CHECK(Answer(CelSelector(c.expression), none) == c.answer);
  }
}

}  // namespace
}  // namespace gpulint
