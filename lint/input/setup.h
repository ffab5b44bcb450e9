// What several commands share: reading an input ("-" is stdin), and the
// policies and node inventory a run works with (--policy or .gpulint.yaml,
// --nodes).
#ifndef GPULINT_LINT_INPUT_SETUP_H_
#define GPULINT_LINT_INPUT_SETUP_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/base/finding.h"
#include "engine/cluster/inventory.h"
#include "engine/cluster/nodes_file.h"
#include "engine/policy/policy.h"
#include "engine/yaml/loader.h"
#include "lint/input/inputs.h"

namespace gpulint {

// "<stdin>" for "-", else the path itself.
std::string DisplayName(const std::string& path);

// Reads all of `path` (a file, or "-" for `stdin_fd`), refusing more than
// `max_bytes`.
bool ReadWhole(const std::string& path, int stdin_fd, size_t max_bytes, std::string* out,
               Error* error);

// Streams the documents of `path` (a file, or "-" for `stdin_fd`).
bool LoadPath(const std::string& path, int stdin_fd, const LoadLimits& limits,
              const DocumentSink& sink, Error* error);

// ExpandPaths, less the .gpulint.yaml files found in directories: a policy
// is not a manifest. One named on the command line is read all the same.
// `yields` as ExpandPaths gives them, indexing the inputs returned.
std::vector<InputFile> ManifestInputs(const std::vector<std::string>& paths,
                                      const ExcludePatterns& exclude, std::vector<Error>* errors,
                                      std::vector<PathYield>* yields = nullptr);

// One policy, its name in reports, and the inventory built with it (its node
// classes plus the --nodes files).
struct PolicySetup {
  std::string name;  // the file as shown, or "built-in"
  const Policy* policy = nullptr;
  Inventory inventory;
  Policy loaded;  // what `policy` points at when it came from a file
};

// The policies and inventory of a run. --policy applies to every input;
// without it each input gets its own (PolicyFor). Each policy file is loaded
// once, however many inputs share it.
class RunSetup {
 public:
  // Reads the --nodes files and, when `policy_file` (--policy) is given, that
  // policy, and notes $GPULINT_POLICY. On failure, *errors holds why: a nodes
  // file's error, or every error of the policy. The one place every command
  // (check, fix, export, audit, node-patch) chooses its policy: Load, then
  // PolicyFor.
  bool Load(const std::string& policy_file, const std::vector<std::string>& nodes_files,
            int stdin_fd, std::vector<Error>* errors);
  // The policy for `input` (a file, or "-" for stdin, which is looked up from
  // the current directory): --policy; else the nearest .gpulint.yaml from the
  // input's directory up to the repository root; else $GPULINT_POLICY; else
  // the built-in one. A policy file that does not load is null, with every
  // error of it in *errors, each with its position.
  const PolicySetup* PolicyFor(const std::string& input, std::vector<Error>* errors);
  // --policy, else the built-in policy: for commands with no inputs to look from.
  const Policy& policy() const { return *fixed_->policy; }
  const Inventory& inventory() const { return fixed_->inventory; }

 private:
  const PolicySetup* Get(const std::string& file, std::vector<Error>* errors);

  std::vector<NodeClass> nodes_;
  std::shared_ptr<const DraInventory> dra_;  // null: the --nodes files hold no DRA objects
  std::string env_policy_;
  bool forced_ = false;  // --policy given
  const PolicySetup* fixed_ = nullptr;
  std::map<std::string, std::unique_ptr<PolicySetup>> by_file_;  // "" is the built-in one
  std::map<std::string, std::string> file_by_dir_;               // discovery, cached
};

}  // namespace gpulint

#endif  // GPULINT_LINT_INPUT_SETUP_H_
