// The one reader of nodes files, for `gpulint --nodes`, `gpulint-webhook
// --nodes` and the golden tests alike, so that the same file is read the same
// way and refused with the same words everywhere.
#ifndef GPULINT_ENGINE_CLUSTER_NODES_FILE_H_
#define GPULINT_ENGINE_CLUSTER_NODES_FILE_H_

#include <string>
#include <vector>

#include "engine/base/finding.h"
#include "engine/cluster/dra_objects.h"
#include "engine/cluster/inventory.h"

namespace gpulint {

// What a nodes file holds: its Nodes, and the DeviceClasses and
// ResourceSlices beside them.
struct NodesFile {
  std::vector<NodeClass> nodes;
  DraObjects dra;
};

// Appends every Node, DeviceClass and ResourceSlice of a nodes file to `out`:
// the output of 'kubectl get nodes,deviceclasses,resourceslices -o yaml' (or
// -o json, or 'kubectl get nodes' alone), a NodeList as the API serves it
// (its items carry no kind), or documents of those kinds. `path` "-" reads
// `stdin_fd`, named "<stdin>". Anything else refuses the whole file, with its
// position, and `out` is left as it was: a Pod there means the wrong file was
// passed, and a partial inventory would make pods look unschedulable.
bool LoadNodesFile(const std::string& path, int stdin_fd, NodesFile* out, Error* error);
// The same, for a caller that needs the Nodes alone.
bool LoadNodesFile(const std::string& path, int stdin_fd, std::vector<NodeClass>* nodes,
                   Error* error);

}  // namespace gpulint

#endif  // GPULINT_ENGINE_CLUSTER_NODES_FILE_H_
