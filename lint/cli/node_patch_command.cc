// `gpulint node-patch`: the node-status JSON patch that advertises a node's
// VRAM as an extended resource (incident 2), so the scheduler counts it.
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <ostream>

#include "engine/cluster/inventory.h"
#include "engine/mutate/node_vram.h"
#include "engine/quantity/quantity.h"
#include "lint/cli/commands.h"
#include "lint/input/nvidia_smi.h"
#include "lint/input/setup.h"

namespace gpulint {
namespace {

constexpr std::string_view kHelp = R"(Usage: gpulint node-patch [OPTIONS] [- | FILE]
       gpulint node-patch --from-labels NODES.yaml [--node NAME] [OPTIONS]

Prints the JSON patch that advertises a node's VRAM as an extended resource,
so that the scheduler keeps the VRAM that pods request (the policy's vram
resource, gpulint.io/vram by default) under what the node has:
  [{"op":"add","path":"/status/capacity/gpulint.io~1vram","value":"640Gi"}]
The value is the VRAM of all the node's GPUs, in bytes, as a quantity. When
the GPUs differ, each counts as the smallest: a pod's VRAM must fit whichever
GPU it is given.

The VRAM comes from nvidia-smi, run on the node, on stdin (or FILE):
  nvidia-smi --query-gpu=index,name,memory.total --format=csv,noheader,nounits
or from the GPU Feature Discovery labels (nvidia.com/gpu.count and
nvidia.com/gpu.memory) of a Node in 'kubectl get nodes -o yaml' output.

The kubectl command that applies the patch goes to stderr, or with
--print-command to stdout instead of the patch (kubectl 1.24 or later):
  kubectl patch node NAME --subresource=status --type=json -p '<patch>'

Options:
  --node NAME          the node to patch (with --from-labels: the Node to
                       read; needed when the file holds more than one)
  --from-labels FILE   read the GPUs from a Node's GFD labels in FILE
  --resource NAME      the extended resource to advertise (default: the
                       policy's vram resource)
  --policy FILE        the policy whose vram resource to use (default, as in
                       'gpulint check': the nearest .gpulint.yaml from the
                       current directory up, else $GPULINT_POLICY, else the
                       built-in policy)
  --print-command      print the kubectl command on stdout, not the patch
  -h, --help           print this text

Examples:
  ssh gpu-node-1 nvidia-smi --query-gpu=index,name,memory.total \
      --format=csv,noheader,nounits | gpulint node-patch --node gpu-node-1
  kubectl get node gpu-node-1 -o yaml > node.yaml
  gpulint node-patch --from-labels node.yaml --print-command | sh

Exit status: 0 with a patch, 2 when the input is not usable (its line and
column are named) or there are no GPUs.
)";

constexpr size_t kMaxInput = 1 << 20;  // nvidia-smi prints a line per GPU

// What the patch advertises, and how it was worked out.
struct Vram {
  int64_t bytes = 0;
  std::string node;         // from the labels' Node
  std::string description;  // "8 × NVIDIA A100-SXM4-80GB (81920 MiB)"
  std::string note;         // set when the GPUs differ
};

bool FromNvidiaSmi(const std::string& path, CliIo& io, Vram* vram, Error* error) {
  if (path == "-" && isatty(io.stdin_fd)) {
    *error = Error{"",
                   {},
                   "node-patch reads nvidia-smi's output on stdin; pipe it in: " +
                       std::string(kNvidiaSmiQuery) + " | gpulint node-patch"};
    return false;
  }
  std::string text;
  std::vector<GpuRecord> gpus;
  if (!ReadWhole(path, io.stdin_fd, kMaxInput, &text, error) ||
      !ParseNvidiaSmi(text, DisplayName(path), &gpus, error))
    return false;
  if (gpus.empty()) {
    *error = Error{
        DisplayName(path), {}, "no GPUs in the input (run: " + std::string(kNvidiaSmiQuery) + ")"};
    return false;
  }
  std::map<std::pair<int64_t, std::string>, int64_t> models;  // (MiB, name) -> count
  for (const GpuRecord& g : gpus) ++models[{g.memory_mib, g.name}];
  int64_t smallest = models.begin()->first.first;
  vram->bytes = static_cast<int64_t>(gpus.size()) * smallest * (int64_t{1} << 20);
  std::string list;
  for (const auto& [model, count] : models)
    list += (list.empty() ? "" : ", ") + std::to_string(count) + " × " + model.second + " (" +
            std::to_string(model.first) + " MiB)";
  vram->description = list;
  if (models.size() > 1) {
    vram->note = "the GPUs differ; each counts as the smallest, " + std::to_string(smallest) +
                 " MiB, since a pod's VRAM must fit whichever GPU it is given";
  }
  return true;
}

bool FromLabels(const std::string& path, const std::string& name, CliIo& io, Vram* vram,
                Error* error) {
  std::vector<NodeClass> nodes;
  if (!LoadNodesFile(path, io.stdin_fd, &nodes, error)) return false;
  std::string names;
  for (const NodeClass& n : nodes) names += (names.empty() ? "" : ", ") + n.name;
  const NodeClass* node = nullptr;
  if (!name.empty()) {
    for (const NodeClass& n : nodes)
      if (n.name == name) node = &n;
    if (!node) {
      *error = Error{DisplayName(path), {}, "no Node named " + name + " (nodes: " + names + ")"};
      return false;
    }
  } else if (nodes.size() == 1) {
    node = &nodes[0];
  } else {
    *error = Error{DisplayName(path),
                   {},
                   nodes.empty() ? std::string("no Node in the file")
                                 : "holds " + std::to_string(nodes.size()) +
                                       " Nodes; choose one with --node (" + names + ")"};
    return false;
  }
  std::optional<Quantity> total = AdvertisedVram(*node);
  if (!total) {
    *error = Error{node->source,
                   {},
                   "Node " + node->name +
                       " has no GPU Feature Discovery labels nvidia.com/gpu.count and "
                       "nvidia.com/gpu.memory; run node-patch with nvidia-smi's output instead"};
    return false;
  }
  const Quantity& per_gpu = *node->gpu.vram_per_gpu;
  vram->bytes = total->Value();
  vram->node = node->name;
  vram->description = std::to_string(node->gpu.count) + " × " +
                      (node->gpu.model.empty() ? "GPU" : node->gpu.model) + " (" +
                      std::to_string(per_gpu.Value() >> 20) + " MiB)";
  return true;
}

// Extended resources need a domain prefix, and kubernetes.io's are not ours.
bool CheckResource(const std::string& name, std::string* error) {
  size_t slash = name.find('/');
  bool ok = slash != std::string::npos && slash > 0 && slash + 1 < name.size() &&
            name.find('/', slash + 1) == std::string::npos &&
            std::all_of(name.begin(), name.end(), [](char c) {
              return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' ||
                     c == '_' || c == '/';
            });
  if (!ok) {
    *error = "--resource: '" + name +
             "' is not an extended resource name; it needs a domain prefix, e.g. example.com/vram";
    return false;
  }
  std::string domain = name.substr(0, slash);
  if (domain == "kubernetes.io" || (domain.size() > 14 && domain.ends_with(".kubernetes.io"))) {
    *error = "--resource: '" + name + "' is in the kubernetes.io domain, which is reserved";
    return false;
  }
  return true;
}

std::string ShellWord(const std::string& s) {
  bool plain = !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_';
  });
  if (plain) return s;
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

int Run(const std::vector<std::string>& args, CliIo& io) {
  static const std::vector<OptionSpec> kSpecs = {
      {"--node", "", true},   {"--from-labels", "", true}, {"--resource", "", true},
      {"--policy", "", true}, {"--print-command", ""},
  };
  ParsedArgs parsed;
  if (int rc = ParseOrExit(args, NodePatchCommand(), kSpecs, false, &parsed, io); rc >= 0)
    return rc;
  std::string labels = parsed.Get("--from-labels");
  if (parsed.positional.size() > 1 || (!labels.empty() && !parsed.positional.empty())) {
    Fail(io, labels.empty() ? "node-patch reads one input"
                            : "give nvidia-smi's output or --from-labels, not both");
    return kExitUsage;
  }
  RunSetup setup;
  std::vector<Error> errors;
  const PolicySetup* policy = setup.Load(parsed.Get("--policy"), {}, io.stdin_fd, &errors)
                                  ? setup.PolicyFor("-", &errors)
                                  : nullptr;
  if (policy == nullptr) {
    for (const Error& e : errors) Fail(io, e.ToString());
    return kExitUsage;
  }
  std::string resource = parsed.Get("--resource", policy->policy->vram_resource);
  std::string problem;
  if (!CheckResource(resource, &problem)) {
    Fail(io, problem);
    return kExitUsage;
  }
  Vram vram;
  Error error;
  std::string node = parsed.Get("--node");
  bool ok = labels.empty() ? FromNvidiaSmi(parsed.positional.empty() ? "-" : parsed.positional[0],
                                           io, &vram, &error)
                           : FromLabels(labels, node, io, &vram, &error);
  if (!ok) {
    Fail(io, error.ToString());
    return kExitUsage;
  }
  if (node.empty()) node = vram.node;
  Quantity total = Quantity::FromInt(vram.bytes, QuantityFormat::kBinarySI);
  std::string patch = NodeCapacityVramPatch(resource, total);
  std::string command = "kubectl patch node " + (node.empty() ? "NODE" : ShellWord(node)) +
                        " --subresource=status --type=json -p '" + patch + "'";
  io.err << "gpulint: " << vram.description << ": " << resource << " = " << DescribeBytes(total)
         << '\n';
  if (!vram.note.empty()) io.err << "gpulint: note: " << vram.note << '\n';
  if (parsed.Has("--print-command")) {
    io.out << command << '\n';
  } else {
    io.out << patch << '\n';
    io.err << "gpulint: apply it with:\n  " << command << '\n';
  }
  if (node.empty()) io.err << "gpulint: replace NODE with the node's name, or pass --node\n";
  return kExitClean;
}

}  // namespace

const Command& NodePatchCommand() {
  static const Command command{"node-patch", kHelp, Run};
  return command;
}

}  // namespace gpulint
