// `gpulint node-patch`, in-process: the VRAM a node advertises, from
// nvidia-smi's output or a Node's GPU Feature Discovery labels.
#include <catch2/catch.hpp>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/quantity/quantity.h"
#include "lint/cli/cli_test_util.h"
#include "tests/golden.h"

namespace gpulint {
namespace {

using testing::Result;
using testing::Run;
using testing::TempDir;
using testing::Testdata;


constexpr char kPatch[] =
    R"([{"op":"add","path":"/status/capacity/gpulint.io~1vram","value":"%s"}])";

std::string PatchWith(const std::string& value) {
  char buf[256];
  std::snprintf(buf, sizeof buf, kPatch, value.c_str());
  return buf;
}

const std::string kNoReserved =
    "gpulint: note: nvidia-smi did not say what the driver reserves; for that, run: nvidia-smi "
    "--query-gpu=index,name,memory.total,memory.reserved --format=csv,noheader,nounits\n";

// The recorded cards were read with the three-column query: the driver's
// reserve is the policy's (616 MiB, an H200's), and node-patch says so.
TEST_CASE("node-patch: the recorded cards", "[cli][node-patch]") {
  struct Case {
    const char* file;
    const char* value;
    const char* summary;
    const char* process;
  };
  const Case cases[] = {
      {"a100-sxm4-80gb-x8.csv", "650432Mi",
       "8 × NVIDIA A100-SXM4-80GB (81920 MiB, of which the driver reserves 616 by "
       "vram.driverReservedPerGpu): gpulint.io/vram = 650432Mi (682027384832 B = 682 GB = 635.2 "
       "GiB)",
       "84602257408 B = 84.6 GB = 78.8 GiB of a GPU: 81304Mi"},
      {"h100-80gb-hbm3-x8.csv", "647544Mi",
       "8 × NVIDIA H100 80GB HBM3 (81559 MiB, of which the driver reserves 616 by "
       "vram.driverReservedPerGpu): gpulint.io/vram = 647544Mi (678999097344 B = 679 GB = 632.4 "
       "GiB)",
       "84223721472 B = 84.2 GB = 78.4 GiB of a GPU: 80943Mi"},
      {"t4.csv", "14744Mi",
       "1 × Tesla T4 (15360 MiB, of which the driver reserves 616 by vram.driverReservedPerGpu): "
       "gpulint.io/vram = 14744Mi (15460204544 B = 15.5 GB = 14.4 GiB)",
       "14809038848 B = 14.8 GB = 13.8 GiB of a GPU: 14744Mi"},
      {"quadro-rtx-8000.csv", "47985Mi",
       "1 × Quadro RTX 8000 (48601 MiB, of which the driver reserves 616 by "
       "vram.driverReservedPerGpu): gpulint.io/vram = 47985Mi (50315919360 B = 50.3 GB = 46.9 "
       "GiB)",
       "49664753664 B = 49.7 GB = 46.3 GiB of a GPU: 47985Mi"},
      {"l4-x4.csv", "89672Mi",
       "4 × NVIDIA L4 (23034 MiB, of which the driver reserves 616 by vram.driverReservedPerGpu): "
       "gpulint.io/vram = 89672Mi (94027907072 B = 94 GB = 87.6 GiB)",
       "22855811072 B = 22.9 GB = 21.3 GiB of a GPU: 22418Mi"},
      {"a100-sxm4-40gb-x2-header-units-crlf.csv", "80688Mi",
       "2 × NVIDIA A100-SXM4-40GB (40960 MiB, of which the driver reserves 616 by "
       "vram.driverReservedPerGpu): gpulint.io/vram = 80688Mi (84607500288 B = 84.6 GB = 78.8 "
       "GiB)",
       "41652584448 B = 41.7 GB = 38.8 GiB of a GPU: 40344Mi"},
  };
  for (const Case& c : cases) {
    INFO(c.file);
    Result r =
        Run({"node-patch", "--node", "gpu-1"}, Testdata(std::string("nvidia-smi/") + c.file));
    CHECK(r.rc == 0);
    CHECK(r.out == PatchWith(c.value) + "\n");
    CHECK(r.err == "gpulint: " + std::string(c.summary) + "\ngpulint: a process gets at most " +
                       c.process + " less its CUDA context (vram.contextPerGpu, 621Mi)\n" +
                       kNoReserved +
                       "gpulint: apply it with:\n  kubectl patch node gpu-1 "
                       "--subresource=status --type=json -p '" +
                       PatchWith(c.value) + "'\n");
    // The patch is what the JSON says it is.
    CHECK(nlohmann::json::parse(r.out)[0]["path"] == "/status/capacity/gpulint.io~1vram");
  }
}

// The H200 measured on 2026-11-28 (testdata/gpu/h200): one process allocated
// 149457731584 B after creating its context (maxdev.json). node-patch
// advertises what pods share of the card within 1 % of it, and what one
// process gets to the byte.
TEST_CASE("node-patch: the measured H200, within 1% of what a process got", "[cli][node-patch]") {
  nlohmann::json maxdev =
      nlohmann::json::parse(testing::ReadFile(Testdata("gpu/h200/maxdev.json")));
  const int64_t got = maxdev["max_alloc_bytes"];
  for (const char* file : {"query-index-name-total-reserved.csv", "query-index-name-total.csv"}) {
    INFO(file);
    Result r = Run({"node-patch", "--node", "h200-0"}, Testdata(std::string("gpu/h200/") + file));
    CHECK(r.rc == 0);
    CHECK(r.out == PatchWith("143155Mi") + "\n");
    Quantity advertised;
    REQUIRE(Quantity::Parse(nlohmann::json::parse(r.out)[0]["value"].get<std::string>(),
                            &advertised, nullptr));
    // 143155 MiB against 142534 MiB: 0.44 % more.
    CHECK(advertised.Value() > got);
    CHECK((advertised.Value() - got) * 100 < got);
    CHECK(r.err.find("gpulint: a process gets at most " + std::to_string(got) + " B = 149.5 GB = "
                     "139.2 GiB of a GPU: 143155Mi less its CUDA context") != std::string::npos);
  }
  // With memory.reserved, nvidia-smi's figure; without it, the policy's, and a note.
  Result measured = Run({"node-patch"}, Testdata("gpu/h200/query-index-name-total-reserved.csv"));
  CHECK(measured.err.starts_with(
      "gpulint: 1 × NVIDIA H200 (143771 MiB, of which the driver reserves 616): gpulint.io/vram = "
      "143155Mi (150108897280 B = 150.1 GB = 139.8 GiB)\n"));
  CHECK(measured.err.find("note:") == std::string::npos);
  Result assumed = Run({"node-patch"}, Testdata("gpu/h200/query-index-name-total.csv"));
  CHECK(assumed.err.find(kNoReserved) != std::string::npos);
  // A measured reserve wins over the policy's: another driver's 400 MiB.
  TempDir dir;
  Result other = Run({"node-patch"}, dir.Write("other.csv", "0, NVIDIA H200, 143771, 400\n"));
  CHECK(other.out == PatchWith("143371Mi") + "\n");
}

TEST_CASE("node-patch: mixed GPUs count as the smallest, and it says so", "[cli][node-patch]") {
  Result r = Run({"node-patch", "--print-command", "-"}, Testdata("nvidia-smi/mixed-a100-t4.csv"));
  CHECK(r.rc == 0);
  CHECK(r.out == "kubectl patch node NODE --subresource=status --type=json -p '" +
                     PatchWith("44232Mi") + "'\n");
  CHECK(r.err ==
        "gpulint: 1 × Tesla T4 (15360 MiB, of which the driver reserves 616 by "
        "vram.driverReservedPerGpu), 2 × NVIDIA A100 80GB PCIe (81920 MiB, of which the driver "
        "reserves 616 by vram.driverReservedPerGpu): gpulint.io/vram = 44232Mi (46380613632 B = "
        "46.4 GB = 43.2 GiB)\n"
        "gpulint: a process gets at most 14809038848 B = 14.8 GB = 13.8 GiB of a GPU: 14744Mi "
        "less its CUDA context (vram.contextPerGpu, 621Mi)\n"
        "gpulint: note: the GPUs differ; each counts as the smallest, 14744 MiB for pods, since a "
        "pod's VRAM must fit whichever GPU it is given\n" +
            kNoReserved + "gpulint: replace NODE with the node's name, or pass --node\n");
}

TEST_CASE("node-patch: from a Node's GFD labels, with the policy's resource and reserve",
          "[cli][node-patch]") {
  TempDir dir;
  std::string policy = dir.Write("p.yaml",
                                 "apiVersion: gpulint.io/v1alpha1\nkind: Policy\nspec:\n"
                                 "  vram: {resource: example.com/gpu-memory, "
                                 "driverReservedPerGpu: 1Gi}\n");
  Result r = Run({"node-patch", "--from-labels", Testdata("nodes/incidents.yaml"), "--node",
                  "rtx8000-node", "--print-command"});
  CHECK(r.rc == 0);
  // GFD labels memory.total (49152 MiB); the driver's reserve is the policy's.
  CHECK(r.out == "kubectl patch node rtx8000-node --subresource=status --type=json -p '" +
                     PatchWith("48536Mi") + "'\n");
  CHECK(r.err.starts_with("gpulint: 1 × Quadro-RTX-8000 (49152 MiB, of which the driver reserves "
                          "616 by vram.driverReservedPerGpu): gpulint.io/vram = 48536Mi"));
  Result custom =
      Run({"node-patch", "--resource", "example.com/vram"}, Testdata("nvidia-smi/t4.csv"));
  CHECK(custom.out ==
        R"([{"op":"add","path":"/status/capacity/example.com~1vram","value":"14744Mi"}])"
        "\n");
  Result from_policy = Run({"node-patch", "--policy", policy}, Testdata("nvidia-smi/t4.csv"));
  INFO(from_policy.err);
  CHECK(from_policy.out ==
        R"([{"op":"add","path":"/status/capacity/example.com~1gpu-memory","value":"14Gi"}])"
        "\n");
}

TEST_CASE("node-patch: unusable input exits 2 with its position", "[cli][node-patch]") {
  TempDir dir;
  struct Case {
    std::vector<std::string> args;
    std::string input;
    std::string err;
  };
  const Case cases[] = {
      {{"node-patch"},
       "0, Tesla T4, 15360\n1, Tesla T4, lots\n",
       "gpulint: error: <stdin>:2:14: memory.total \"lots\" is not a whole number of MiB\n"},
      {{"node-patch"},
       "\n",
       "gpulint: error: <stdin>: no GPUs in the input (run: nvidia-smi "
       "--query-gpu=index,name,memory.total,memory.reserved --format=csv,noheader,nounits)\n"},
      {{"node-patch", "--resource", "vram"},
       "0, Tesla T4, 15360\n",
       "gpulint: error: --resource: 'vram' is not an extended resource name; it needs a domain "
       "prefix, e.g. example.com/vram\n"},
      {{"node-patch", "--resource", "kubernetes.io/vram"},
       "0, Tesla T4, 15360\n",
       "gpulint: error: --resource: 'kubernetes.io/vram' is in the kubernetes.io domain, which "
       "is reserved\n"},
      {{"node-patch", "--from-labels", Testdata("nodes/incidents.yaml")},
       "",
       "gpulint: error: " + Testdata("nodes/incidents.yaml") +
           ": holds 5 Nodes; choose one with --node (v100-node, rtx8000-node, t4-node, "
           "t4-mps-node, cpu-node)\n"},
      {{"node-patch", "--from-labels", Testdata("nodes/incidents.yaml"), "--node", "cpu-node"},
       "",
       "gpulint: error: " + Testdata("nodes/incidents.yaml") +
           ":61:3: Node cpu-node has no GPU Feature Discovery labels nvidia.com/gpu.count and "
           "nvidia.com/gpu.memory; run node-patch with nvidia-smi's output instead\n"},
      {{"node-patch", "--from-labels", "x.yaml", "-"},
       "",
       "gpulint: error: give nvidia-smi's output or --from-labels, not both\n"},
  };
  for (const Case& c : cases) {
    INFO(c.args.back() << " <<< " << c.input);
    Result r = Run(c.args, dir.Write("in.csv", c.input));
    CHECK(r.rc == 2);
    CHECK(r.err == c.err);
    CHECK(r.out.empty());
  }
}

}  // namespace
}  // namespace gpulint
