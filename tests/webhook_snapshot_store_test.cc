// The snapshot the endpoints judge with (webhook/server/snapshot_store.h),
// without a server around it.
#include <catch2/catch.hpp>
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

}  // namespace
}  // namespace gpulint
