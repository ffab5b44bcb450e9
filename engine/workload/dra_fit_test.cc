#include "engine/workload/dra_fit.h"

#include <catch2/catch.hpp>

namespace gpulint {
namespace {

Quantity Q(const char* text) {
  Quantity q;
  REQUIRE(Quantity::Parse(text, &q, nullptr));
  return q;
}

DeviceInfo Gpu(const std::string& name, const char* memory, const std::string& product = "A100") {
  DeviceInfo d;
  d.name = name;
  d.attributes["gpu.nvidia.com"]["type"] = CelValue::String("gpu");
  d.attributes["gpu.nvidia.com"]["productName"] = CelValue::String(product);
  d.capacity["gpu.nvidia.com"]["memory"] = Q(memory);
  return d;
}

// One class (gpu.nvidia.com, backing nvidia.com/gpu) and one slice on `node`.
std::shared_ptr<const DraInventory> Dra(const std::string& node,
                                              std::vector<DeviceInfo> devices,
                                              const std::string& selector = "device.driver == "
                                                                            "'gpu.nvidia.com'") {
  DraObjects objects;
  DeviceClassInfo c;
  c.name = "gpu.nvidia.com";
  c.extended_resource_name = "nvidia.com/gpu";
  c.selectors.emplace_back(selector);
  objects.classes.push_back(c);
  auto slice = std::make_shared<ResourceSliceInfo>();
  slice->driver = "gpu.nvidia.com";
  slice->pool = node;
  slice->nodes.node_name = node;
  for (DeviceInfo& d : devices) {
    d.nodes.node_name = node;
    slice->devices.push_back(std::move(d));
  }
  objects.slices.push_back(slice);
  return DraInventory::Make(std::move(objects));
}

DeviceDemand Demand(int64_t count, std::vector<std::pair<std::string, Quantity>> capacity = {},
                    std::vector<std::string> selectors = {}) {
  DeviceDemand d;
  d.what = "claim \"gpu\" (request \"gpu\")";
  d.device_class = "gpu.nvidia.com";
  d.class_index = 0;
  d.count = count;
  d.capacity = std::move(capacity);
  for (const std::string& s : selectors) d.selectors.emplace_back(s);
  return d;
}

std::string Fit(const std::vector<DeviceDemand>& demands, const DraInventory& dra,
                const std::string& node = "n") {
  NodeClass n;
  n.name = node;
  DeviceFit f = FitDevices(demands, dra.DevicesOf(n).get());
  switch (f.answer) {
    case DeviceFit::Answer::kFits:
      return "fits";
    case DeviceFit::Answer::kNo:
      return "no: " + f.why;
    case DeviceFit::Answer::kCannotTell:
      return "cannot tell: " + f.why;
  }
  return "";
}

TEST_CASE("DRA fit: counts, capacities and selectors of one request", "[dra-fit]") {
  auto dra = Dra("n", {Gpu("gpu-0", "80Gi"), Gpu("gpu-1", "80Gi"), Gpu("gpu-2", "40Gi")});
  CHECK(Fit({Demand(3)}, *dra) == "fits");
  CHECK(Fit({Demand(4)}, *dra) ==
        "no: claim \"gpu\" (request \"gpu\") 4 > 3 devices of DeviceClass gpu.nvidia.com");
  CHECK(Fit({Demand(2, {{"memory", Q("60Gi")}})}, *dra) == "fits");
  CHECK(Fit({Demand(3, {{"memory", Q("60Gi")}})}, *dra) ==
        "no: claim \"gpu\" (request \"gpu\") 3 > 2 devices of DeviceClass gpu.nvidia.com that "
        "qualify");
  // A capacity the devices do not publish: none qualifies. A qualified name
  // reads as the driver's own.
  CHECK(Fit({Demand(1, {{"cores", Q("8")}})}, *dra) ==
        "no: claim \"gpu\" (request \"gpu\") 1 > 0 devices of DeviceClass gpu.nvidia.com that "
        "qualify");
  CHECK(Fit({Demand(1, {{"gpu.nvidia.com/memory", Q("80Gi")}})}, *dra) == "fits");
  CHECK(Fit({Demand(1, {}, {"device.capacity['gpu.nvidia.com'].memory.isLessThan(quantity('50Gi'))"})},
            *dra) == "fits");
  CHECK(Fit({Demand(2, {}, {"device.capacity['gpu.nvidia.com'].memory.isLessThan(quantity('50Gi'))"})},
            *dra) ==
        "no: claim \"gpu\" (request \"gpu\") 2 > 1 device of DeviceClass gpu.nvidia.com that "
        "qualify");
  // No devices at all on the node.
  CHECK(Fit({Demand(1)}, *dra, "other") ==
        "no: claim \"gpu\" (request \"gpu\") 1 > 0 devices of DeviceClass gpu.nvidia.com");
}

TEST_CASE("DRA fit: requests allocated together share the node's devices", "[dra-fit]") {
  auto dra = Dra("n", {Gpu("gpu-0", "80Gi"), Gpu("gpu-1", "80Gi"), Gpu("gpu-2", "40Gi")});
  CHECK(Fit({Demand(2), Demand(1)}, *dra) == "fits");
  CHECK(Fit({Demand(2), Demand(2)}, *dra) == "no: together they ask 4 devices > 3 devices that qualify");
  CHECK(Fit({Demand(2, {{"memory", Q("60Gi")}}), Demand(1)}, *dra) == "fits");
}

TEST_CASE("DRA fit: what gpulint cannot tell is never a no", "[dra-fit]") {
  // A selector it does not evaluate: the devices may qualify.
  auto dra = Dra("n", {Gpu("gpu-0", "80Gi"), Gpu("gpu-1", "80Gi")});
  std::string split = "device.attributes['gpu.nvidia.com'].productName.split('0').size() == 2";
  CHECK(Fit({Demand(2, {}, {split})}, *dra) ==
        "cannot tell: device \"gpu-0\" of node \"n\": selector \"" + split +
            "\" of claim \"gpu\" (request \"gpu\"): the string function split() (not evaluated "
            "by gpulint)");
  // ... but too few devices of the class is a no whatever they are.
  CHECK(Fit({Demand(3, {}, {split})}, *dra).rfind("no: ", 0) == 0);
  // A class selector likewise.
  auto unread = Dra("n", {Gpu("gpu-0", "80Gi")}, "device.attributes['gpu.nvidia.com'].uuid == 'x'");
  CHECK(Fit({Demand(1)}, *unread) ==
        "cannot tell: device \"gpu-0\" of node \"n\": selector "
        "\"device.attributes['gpu.nvidia.com'].uuid == 'x'\" of DeviceClass gpu.nvidia.com: no "
        "such key: uuid");
  // A shared device may serve more than one device's worth.
  DeviceInfo shared = Gpu("gpu-0", "80Gi");
  shared.shared = true;
  auto sharing = Dra("n", {shared});
  CHECK(Fit({Demand(1)}, *sharing) == "fits");
  CHECK(Fit({Demand(2)}, *sharing) ==
        "cannot tell: device \"gpu-0\" of node \"n\" is shared (allowMultipleAllocations): gpulint "
        "does not count how many claims it can serve");
  // A tainted device may be tolerated.
  DeviceInfo tainted = Gpu("gpu-0", "80Gi");
  tainted.tainted = true;
  CHECK(Fit({Demand(1)}, *Dra("n", {tainted})) ==
        "cannot tell: device \"gpu-0\" of node \"n\": it has a NoSchedule taint, which a claim "
        "may tolerate");
}

TEST_CASE("DRA fit: a shared device's request policy rounds what a claim consumes", "[dra-fit]") {
  DeviceInfo shared = Gpu("gpu-0", "80Gi");
  shared.shared = true;
  CapacityPolicy& p = shared.policies["gpu.nvidia.com/memory"];
  p.min = Q("10Gi");
  p.step = Q("20Gi");
  p.max = Q("70Gi");
  auto dra = Dra("n", {shared});
  CHECK(Fit({Demand(1, {{"memory", Q("50Gi")}})}, *dra) == "fits");  // 50Gi: 10 + 2 × 20
  CHECK(Fit({Demand(1, {{"memory", Q("55Gi")}})}, *dra) ==  // rounds to 70Gi
        "fits");
  CHECK(Fit({Demand(1, {{"memory", Q("71Gi")}})}, *dra).rfind("no: ", 0) == 0);  // past max
  DeviceInfo valued = Gpu("gpu-0", "80Gi");
  valued.shared = true;
  valued.policies["gpu.nvidia.com/memory"].valid_values = {Q("10Gi"), Q("40Gi")};
  auto values = Dra("n", {valued});
  CHECK(Fit({Demand(1, {{"memory", Q("11Gi")}})}, *values) == "fits");
  CHECK(Fit({Demand(1, {{"memory", Q("41Gi")}})}, *values).rfind("no: ", 0) == 0);
}

TEST_CASE("DRA fit: an extended resource is DRA's only where no allocatable lists some", "[dra-fit]") {
  Inventory inv;
  NodeClass plugin, gone, dra_node;
  plugin.allocatable["nvidia.com/gpu"] = Q("1");
  gone.allocatable["nvidia.com/gpu"] = Q("0");  // a device plugin that went away
  CHECK_FALSE(LeftToDra("nvidia.com/gpu", plugin, inv));  // no DRA objects known
  CHECK_FALSE(LeftToDra("nvidia.com/gpu", gone, inv));
  inv.dra = Dra("n", {Gpu("gpu-0", "80Gi")});
  CHECK_FALSE(LeftToDra("nvidia.com/gpu", plugin, inv));  // the device plugin's
  CHECK(LeftToDra("nvidia.com/gpu", gone, inv));  // listed as 0: DRA's, as kube-scheduler 1.36 has it
  CHECK(LeftToDra("nvidia.com/gpu", dra_node, inv));
  CHECK(LeftToDra("deviceclass.resource.kubernetes.io/gpu.nvidia.com", dra_node, inv));
  CHECK_FALSE(LeftToDra("amd.com/gpu", dra_node, inv));  // no class backs it
  CHECK_FALSE(LeftToDra("memory", dra_node, inv));
}

}  // namespace
}  // namespace gpulint
