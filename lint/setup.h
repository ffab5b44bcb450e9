// What several commands share: reading an input ("-" is stdin), and the
// policy and node inventory a run works with (--policy, --nodes).
#ifndef GPULINT_LINT_SETUP_H_
#define GPULINT_LINT_SETUP_H_

#include <string>
#include <vector>

#include "engine/finding.h"
#include "engine/inventory.h"
#include "engine/loader.h"
#include "engine/policy.h"

namespace gpulint {

inline constexpr char kStdinName[] = "<stdin>";

// "<stdin>" for "-", else the path itself.
std::string DisplayName(const std::string& path);

// Reads all of `path` (a file, or "-" for `stdin_fd`), refusing more than
// `max_bytes`.
bool ReadWhole(const std::string& path, int stdin_fd, size_t max_bytes, std::string* out,
               Error* error);

// Streams the documents of `path` (a file, or "-" for `stdin_fd`).
bool LoadPath(const std::string& path, int stdin_fd, const LoadLimits& limits,
              const DocumentSink& sink, Error* error);

// Every Node of a nodes file ('kubectl get nodes -o yaml': a List, a NodeList
// or Node documents). Anything else in it is an error: a Pod there means the
// wrong file was passed.
bool LoadNodesFile(const std::string& path, int stdin_fd, std::vector<NodeClass>* nodes,
                   Error* error);

// The policy (--policy FILE, else the built-in one) and the inventory: its node
// classes plus the nodes of each --nodes file.
class RunSetup {
 public:
  bool Load(const std::string& policy_file, const std::vector<std::string>& nodes_files,
            int stdin_fd, Error* error);
  const Policy& policy() const { return *policy_; }
  const Inventory& inventory() const { return inventory_; }

 private:
  Policy loaded_;
  const Policy* policy_ = &DefaultPolicy();
  Inventory inventory_;
};

}  // namespace gpulint

#endif  // GPULINT_LINT_SETUP_H_
