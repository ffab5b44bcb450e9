#include "engine/mutate/node_vram.h"

#include <catch2/catch.hpp>
#include <string>

namespace gpulint {
namespace {

Quantity Bytes(const char* text) {
  Quantity q;
  REQUIRE(Quantity::Parse(text, &q, nullptr));
  return q;
}

TEST_CASE("node-patch's patch: the VRAM added to status.capacity, its name escaped",
          "[mutate][node-vram]") {
  CHECK(NodeCapacityVramPatch("gpulint.io/vram", Bytes("640Gi")) ==
        R"([{"op":"add","path":"/status/capacity/gpulint.io~1vram","value":"640Gi"}])");
  CHECK(NodeCapacityVramPatch("example.com/v~ram",
                              Quantity::FromInt(int64_t{1} << 30, QuantityFormat::kBinarySI)) ==
        R"([{"op":"add","path":"/status/capacity/example.com~1v~0ram","value":"1Gi"}])");
}

TEST_CASE("the advertiser's patch adds to each map that exists the same op node-patch sends",
          "[mutate][node-vram]") {
  NodeVramFacts facts;
  facts.name = "gpu-0";
  facts.gpu.emplace();
  facts.gpu->count = 1;
  facts.gpu->vram_per_gpu = Bytes("81920Mi");
  facts.has_status = true;
  facts.capacity.emplace();
  facts.allocatable.emplace();
  (*facts.allocatable)["gpulint.io/vram"] = "85253423104";  // the same, in other units
  // memory.total less the driver's 616Mi: what pods share.
  VramTarget target{"gpulint.io/vram", GpuMemoryModel{Bytes("616Mi"), Bytes("621Mi")}};
  CHECK(VramPatch(facts, target) == NodeCapacityVramPatch("gpulint.io/vram", Bytes("81304Mi")));
  // Under another reserve the same node owes another value.
  target.model.driver_reserved = Bytes("0");
  CHECK(VramPatch(facts, target) ==
        "[" + std::string(R"({"op":"add","path":"/status/capacity/gpulint.io~1vram","value":"80Gi"})") +
            "," + R"({"op":"add","path":"/status/allocatable/gpulint.io~1vram","value":"80Gi"})" +
            "]");
}

}  // namespace
}  // namespace gpulint
