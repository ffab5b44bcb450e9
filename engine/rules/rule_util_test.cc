#include "engine/rules/rule_util.h"

#include <catch2/catch.hpp>

#include "engine/policies.h"

namespace gpulint {
namespace {

TEST_CASE("IsByteResource: Kubernetes' byte resources and the policy's VRAM", "[rules]") {
  const Policy& policy = DefaultPolicy();
  for (const char* name : {"memory", "ephemeral-storage", "storage", "hugepages-2Mi",
                           "hugepages-1Gi", "gpulint.io/vram"}) {
    INFO(name);
    CHECK(IsByteResource(name, policy));
  }
  for (const char* name : {"cpu", "nvidia.com/gpu", "pods", "hugepages", "example.com/vram",
                           "memory-bandwidth"}) {
    INFO(name);
    CHECK_FALSE(IsByteResource(name, policy));
  }
  Policy renamed;
  renamed.vram_resource = "example.com/vram";
  CHECK(IsByteResource("example.com/vram", renamed));
  CHECK_FALSE(IsByteResource("gpulint.io/vram", renamed));
}

}  // namespace
}  // namespace gpulint
