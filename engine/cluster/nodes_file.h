// The one reader of nodes files, for `gpulint --nodes`, `gpulint-webhook
// --nodes` and the golden tests alike, so that the same file is read the same
// way and refused with the same words everywhere.
#ifndef GPULINT_ENGINE_CLUSTER_NODES_FILE_H_
#define GPULINT_ENGINE_CLUSTER_NODES_FILE_H_

#include <string>
#include <vector>

#include "engine/base/finding.h"
#include "engine/cluster/inventory.h"

namespace gpulint {

// Appends every Node of a nodes file to `nodes`: the output of 'kubectl get
// nodes -o yaml' (or -o json), a NodeList as the API serves it (its items carry
// no kind), or Node documents. `path` "-" reads `stdin_fd`, named "<stdin>".
// Anything that is not a usable Node refuses the whole file, with its position,
// and `nodes` is left as it was: a Pod there means the wrong file was passed,
// and a partial inventory would make pods look unschedulable.
bool LoadNodesFile(const std::string& path, int stdin_fd, std::vector<NodeClass>* nodes,
                   Error* error);

}  // namespace gpulint

#endif  // GPULINT_ENGINE_CLUSTER_NODES_FILE_H_
