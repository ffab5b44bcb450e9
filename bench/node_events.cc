// What a node watch event costs the webhook's inventory, at the size of the
// nodes file given (bench/gen_nodes.py): rebuilding it from the whole list, as
// the watch did per event before issue 14, against NodeGroups::Put of a node
// that changed nothing a rule sees (a kubelet heartbeat) and of one that did
// (a taint), and the publish (the policy's part plus the watched groups).
// Prints one line of microseconds per event. Usage: node_events NODES_FILE
#include <unistd.h>

#include <chrono>
#include <cstdio>

#include "engine/cluster/nodes_file.h"
#include "engine/engine.h"

namespace gpulint {
namespace {

template <typename F>
double MicrosPerCall(int calls, F f) {
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i) f(i);
  std::chrono::duration<double, std::micro> took = std::chrono::steady_clock::now() - start;
  return took.count() / calls;
}

int Run(const char* path) {
  std::vector<NodeClass> nodes;
  Error error;
  if (!LoadNodesFile(path, STDIN_FILENO, &nodes, &error)) {
    std::fprintf(stderr, "%s\n", error.ToString().c_str());
    return 2;
  }
  const Policy& policy = DefaultPolicy();
  double rebuild = MicrosPerCall(10, [&](int) { BuildInventory(policy, nodes); });
  NodeGroups groups;
  for (const NodeClass& n : nodes) groups.Put(n, kWatchedNodeOrder);
  size_t heartbeat_changes = 0;
  double heartbeat = MicrosPerCall(20000, [&](int i) {
    heartbeat_changes += groups.Put(nodes[i % nodes.size()], kWatchedNodeOrder);
  });
  // Each call taints a node, the next one takes the taint off again.
  double taint = MicrosPerCall(2000, [&](int i) {
    NodeClass node = nodes[(i / 2) % nodes.size()];
    if (i % 2 == 0) node.taints.push_back({"maintenance", "true", "NoSchedule"});
    groups.Put(std::move(node), kWatchedNodeOrder);
  });
  Inventory base = BuildInventory(policy, {});
  double publish = MicrosPerCall(20000, [&](int) {
    Inventory inventory = base;
    inventory.Append(groups.inventory());
  });
  std::printf("nodes=%zu groups=%zu rebuild_us=%.1f heartbeat_put_us=%.2f "
              "taint_put_us=%.2f publish_us=%.2f heartbeat_changes=%zu\n",
              nodes.size(), groups.inventory().groups.size(), rebuild, heartbeat, taint, publish,
              heartbeat_changes);
  return 0;
}

}  // namespace
}  // namespace gpulint

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: node_events NODES_FILE\n");
    return 2;
  }
  return gpulint::Run(argv[1]);
}
