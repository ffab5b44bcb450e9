// Where a node watch delivers what it reads: a whole list, then one change at
// a time, so that the receiver can keep its groups of alike nodes up to date
// (engine NodeGroups) instead of rebuilding them on every event. With 5,000
// nodes the kubelets' status updates alone are hundreds of events a second,
// and none of them changes what a rule sees.
#ifndef GPULINT_WEBHOOK_KUBE_NODE_SINK_H_
#define GPULINT_WEBHOOK_KUBE_NODE_SINK_H_

#include <string>
#include <vector>

#include "engine/cluster/inventory.h"

namespace gpulint {

// Called on the watch thread; must not block for long.
class NodeSink {
 public:
  virtual ~NodeSink() = default;
  // A full list was read: these nodes, and no others.
  virtual void ReplaceNodes(std::vector<NodeClass> nodes) = 0;
  // A node ADDED or MODIFIED.
  virtual void PutNode(NodeClass node) = 0;
  // A node DELETED, or no longer readable (stale data would be worse than none).
  virtual void RemoveNode(const std::string& name) = 0;
};

}  // namespace gpulint

#endif  // GPULINT_WEBHOOK_KUBE_NODE_SINK_H_
