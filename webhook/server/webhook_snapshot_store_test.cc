// The snapshot the endpoints judge with (webhook/server/snapshot_store.h),
// without a server around it.
#include <catch2/catch.hpp>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "engine/policies.h"
#include "webhook/server/snapshot_store.h"

namespace gpulint {
namespace {

NodeClass Node(const std::string& name, const std::string& zone) {
  NodeClass node;
  node.name = name;
  node.labels["topology.kubernetes.io/zone"] = zone;
  return node;
}

TEST_CASE("a snapshot store publishes the compiled-in policy, then each node change a rule can see",
          "[webhook][server]") {
  Metrics metrics;
  std::vector<std::string> lines;
  SnapshotStore store(
      "", "", [&](std::string_view line) { lines.emplace_back(line); }, metrics);
  CHECK_FALSE(store.policy_loaded());
  CHECK(store.Current().policy == nullptr);

  store.ReloadPolicy();
  store.ReloadNodesFile();  // none: nothing to do
  CHECK_FALSE(store.ReloadChanged());
  store.Publish();
  Snapshot first = store.Current();
  CHECK(store.policy_loaded());
  CHECK(first.policy.get() == &DefaultPolicy());
  REQUIRE(first.inventory);
  CHECK(first.problem.empty());
  size_t before = first.inventory->size();

  store.ReplaceNodes({Node("a", "z1"), Node("b", "z1")});
  Snapshot listed = store.Current();
  CHECK(listed.inventory != first.inventory);
  CHECK(listed.inventory->size() == before + 2);

  store.PutNode(Node("a", "z1"));  // the same node again: no new snapshot
  CHECK(store.Current().inventory == listed.inventory);
  store.RemoveNode("b");
  CHECK(store.Current().inventory->size() == before + 1);
  store.RemoveNode("nobody");
  CHECK(store.Current().inventory->size() == before + 1);
}

// DRA objects of one class and one slice of `devices` GPUs on `node`.
std::shared_ptr<const DraInventory> Dra(const std::string& node, int devices) {
  DraObjects objects;
  DeviceClassInfo c;
  c.name = "gpu.nvidia.com";
  c.extended_resource_name = "nvidia.com/gpu";
  objects.classes.push_back(c);
  auto slice = std::make_shared<ResourceSliceInfo>();
  slice->name = node + "-gpu";
  slice->driver = "gpu.nvidia.com";
  slice->pool = node;
  slice->nodes.node_name = node;
  for (int i = 0; i < devices; ++i) {
    DeviceInfo d;
    d.name = "gpu-" + std::to_string(i);
    d.nodes.node_name = node;
    slice->devices.push_back(d);
  }
  objects.slices.push_back(slice);
  return DraInventory::Make(std::move(objects));
}

size_t DevicesOf(const Snapshot& s, const std::string& node) {
  for (const NodeClass& n : s.inventory->Nodes())
    if (n.name == node) return n.devices ? n.devices->devices.size() : 0;
  return 0;
}

TEST_CASE("a snapshot store waiting for DRA publishes no watched node until it is told",
          "[webhook][server]") {
  Metrics metrics;
  SnapshotStore store("", "", [](std::string_view) {}, metrics);
  store.ReloadPolicy();
  store.Publish();
  store.AwaitDra();
  store.ReplaceNodes({Node("a", "z1"), Node("b", "z1")});
  Snapshot waiting = store.Current();
  CHECK(waiting.inventory->empty());  // a node with no devices known could be refused a DRA pod
  CHECK(waiting.inventory->dra == nullptr);

  store.SetDra(Dra("a", 2), nullptr);
  Snapshot told = store.Current();
  CHECK(told.inventory->size() == 2);
  REQUIRE(told.inventory->dra);
  CHECK(DevicesOf(told, "a") == 2);
  CHECK(DevicesOf(told, "b") == 0);

  // A node put again gets its devices; one whose devices changed gets new
  // ones, the others keep theirs.
  store.PutNode(Node("a", "z2"));
  CHECK(DevicesOf(store.Current(), "a") == 2);
  std::set<std::string> changed = {"a"};
  store.SetDra(Dra("a", 3), &changed);
  CHECK(DevicesOf(store.Current(), "a") == 3);
  // Unknown again (a slice does not read): no node keeps devices.
  store.SetDra(nullptr, nullptr);
  CHECK(store.Current().inventory->dra == nullptr);
  CHECK(DevicesOf(store.Current(), "a") == 0);
  CHECK(store.Current().inventory->size() == 2);
}

}  // namespace
}  // namespace gpulint
