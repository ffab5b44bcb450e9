// `gpulint node-patch`: the node-status JSON patch that advertises a node's
// VRAM as an extended resource (incident 2), so the scheduler counts it.
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <ostream>
#include <tuple>
#include <vector>

#include "engine/cluster/gpu_memory.h"
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
  [{"op":"add","path":"/status/capacity/gpulint.io~1vram","value":"1145240Mi"}]
The value is what pods can share of all the node's GPUs, in bytes, as a
quantity: each GPU's memory.total less what the driver reserves of it
(nvidia-smi's memory.reserved; without it, the policy's
vram.driverReservedPerGpu, 616Mi as measured on an H200). Each container's
CUDA contexts come out of it: the VRAM mutation requests a context per GPU
(vram.contextPerGpu) on top of what a container declares. When the GPUs
differ, each counts as the smallest: a pod's VRAM must fit whichever GPU it
is given.

The VRAM comes from nvidia-smi, run on the node, on stdin (or FILE):
  nvidia-smi --query-gpu=index,name,memory.total,memory.reserved --format=csv,noheader,nounits
(the query without memory.reserved is read too), or from the GPU Feature
Discovery labels (nvidia.com/gpu.count and nvidia.com/gpu.memory, which is
memory.total) of a Node in 'kubectl get nodes -o yaml' output.

The kubectl command that applies the patch goes to stderr, or with
--print-command to stdout instead of the patch (kubectl 1.24 or later):
  kubectl patch node NAME --subresource=status --type=json -p '<patch>'

Options:
  --node NAME          the node to patch (with --from-labels: the Node to
                       read; needed when the file holds more than one)
  --from-labels FILE   read the GPUs from a Node's GFD labels in FILE
  --resource NAME      the extended resource to advertise (default: the
                       policy's vram resource)
  --policy FILE        the policy whose vram resource and reserve to use
                       (default, as in 'gpulint check': the nearest
                       .gpulint.yaml from the current directory up, else
                       $GPULINT_POLICY, else the built-in policy)
  --print-command      print the kubectl command on stdout, not the patch
  -h, --help           print this text

Examples:
  ssh gpu-node-1 nvidia-smi --query-gpu=index,name,memory.total,memory.reserved \
      --format=csv,noheader,nounits | gpulint node-patch --node gpu-node-1
  kubectl get node gpu-node-1 -o yaml > node.yaml
  gpulint node-patch --from-labels node.yaml --print-command | sh

Exit status: 0 with a patch, 2 when the input is not usable (its line and
column are named) or there are no GPUs.
)";

constexpr size_t kMaxInput = 1 << 20;  // nvidia-smi prints a line per GPU

// What the patch advertises, and how it was worked out.
struct Vram {
  int64_t bytes = 0;        // for pods, all GPUs together
  int64_t per_gpu_mib = 0;  // for pods, the GPU that counts
  std::string node;         // from the labels' Node
  // "8 × NVIDIA A100-SXM4-80GB (81920 MiB, of which the driver reserves 616)"
  std::string description;
  std::vector<std::string> notes;
};

constexpr int64_t kMiB = int64_t{1} << 20;

// "of which the driver reserves 616" as nvidia-smi said, or as the policy
// supposes it.
std::string Reserved(std::optional<int64_t> measured, int64_t mib) {
  return "of which the driver reserves " + std::to_string(mib) +
         (measured ? "" : " by vram.driverReservedPerGpu");
}

bool FromNvidiaSmi(const std::string& path, CliIo& io, const GpuMemoryModel& model, Vram* vram,
                   Error* error) {
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
  // The policy's reserve in whole MiB, as nvidia-smi counts.
  int64_t assumed = model.driver_reserved.ScaledUp(1, kMiB).Value();
  // (for pods, total, reserved, measured, name) -> count
  std::map<std::tuple<int64_t, int64_t, int64_t, bool, std::string>, int64_t> models;
  bool unmeasured = false;
  for (const GpuRecord& g : gpus) {
    int64_t reserved = g.reserved_mib.value_or(assumed);
    int64_t for_pods = std::max<int64_t>(0, g.memory_mib - reserved);
    unmeasured = unmeasured || !g.reserved_mib;
    ++models[{for_pods, g.memory_mib, reserved, g.reserved_mib.has_value(), g.name}];
  }
  int64_t smallest = std::get<0>(models.begin()->first);
  vram->per_gpu_mib = smallest;
  vram->bytes = static_cast<int64_t>(gpus.size()) * smallest * kMiB;
  std::string list;
  for (const auto& [m, count] : models) {
    const auto& [for_pods, total, reserved, measured, name] = m;
    list += (list.empty() ? "" : ", ") + std::to_string(count) + " × " + name + " (" +
            std::to_string(total) + " MiB, " +
            Reserved(measured ? std::optional<int64_t>(reserved) : std::nullopt, reserved) + ")";
  }
  vram->description = list;
  if (models.size() > 1) {
    vram->notes.push_back("the GPUs differ; each counts as the smallest, " +
                          std::to_string(smallest) +
                          " MiB for pods, since a pod's VRAM must fit whichever GPU it is given");
  }
  if (unmeasured)
    vram->notes.push_back(
        "nvidia-smi did not say what the driver reserves; for that, run: " +
        std::string(kNvidiaSmiQuery));
  return true;
}

bool FromLabels(const std::string& path, const std::string& name, CliIo& io,
                const GpuMemoryModel& model, Vram* vram, Error* error) {
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
  std::optional<Quantity> total = AdvertisedVram(*node, model);
  if (!node->has_gpu() || !total) {
    *error = Error{node->source,
                   {},
                   "Node " + node->name +
                       " has no GPU Feature Discovery labels nvidia.com/gpu.count and "
                       "nvidia.com/gpu.memory; run node-patch with nvidia-smi's output instead"};
    return false;
  }
  const GpuInfo& gpu = node->gpu;
  int64_t reserved = DriverReserved(gpu, model).ScaledUp(1, kMiB).Value();
  vram->bytes = total->Value();
  vram->per_gpu_mib = VramForPods(gpu, model)->Value() / kMiB;
  vram->node = node->name;
  vram->description =
      std::to_string(gpu.count) + " × " + (gpu.model.empty() ? "GPU" : gpu.model) + " (" +
      std::to_string(gpu.vram_per_gpu->Value() >> 20) + " MiB" +
      (gpu.mig_slice ? ", a MIG slice's own" : ", " + Reserved(std::nullopt, reserved)) + ")";
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
  ParsedArgs parsed;
  if (int rc = ParseOrExit(args, NodePatchCommand(), &parsed, io); rc >= 0) return rc;
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
  const GpuMemoryModel& model = policy->policy->vram_model;
  bool ok = labels.empty() ? FromNvidiaSmi(parsed.positional.empty() ? "-" : parsed.positional[0],
                                           io, model, &vram, &error)
                           : FromLabels(labels, node, io, model, &vram, &error);
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
  // What one process can have of a GPU: what pods share less its context.
  Quantity per_gpu = Quantity::FromInt(vram.per_gpu_mib * kMiB, QuantityFormat::kBinarySI);
  Quantity process = per_gpu > model.context ? per_gpu - model.context : Quantity();
  io.err << "gpulint: a process gets at most " << FormatBytes(process) << " of a GPU: "
         << per_gpu.Canonical() << " less its CUDA context (vram.contextPerGpu, "
         << model.context.Canonical() << ")\n";
  for (const std::string& note : vram.notes) io.err << "gpulint: note: " << note << '\n';
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
  static const Command command{"node-patch",
                               kHelp,
                               Run,
                               {
                                   {"--node", "", true},
                                   {"--from-labels", "", true},
                                   {"--resource", "", true},
                                   {"--policy", "", true},
                                   {"--print-command", ""},
                               }};
  return command;
}

}  // namespace gpulint
