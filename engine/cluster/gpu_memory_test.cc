#include "engine/cluster/gpu_memory.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "engine/engine_test_support.h"
#include "engine/policy/policy_test_support.h"

namespace gpulint {
namespace {

using policy_testing::Q;

// The H200's figures (testdata/gpu/h200/README.md), as the default policy
// has them.
GpuMemoryModel H200Model() { return GpuMemoryModel{Q("616Mi"), Q("621Mi")}; }

NodeClass Node(std::string_view text) {
  NodeClass n;
  Error error;
  bool read = NodeClassFromNode(mutate_testing::Yaml(text), "n.yaml", &n, &error);
  INFO(error.ToString());
  REQUIRE(read);
  return n;
}

TEST_CASE("AdvertisedVram: GPU count × (memory.total - driver reserve), shared GPUs once",
          "[gpu-memory]") {
  struct Case {
    const char* what;
    const char* node;
    std::optional<Quantity> vram;
  };
  for (const Case& c : std::vector<Case>{
           {"8 whole GPUs", R"(metadata: {name: node-a, labels: {nvidia.com/gpu.count: "8",
  nvidia.com/gpu.memory: "81920"}})",
            Q("650432Mi")},  // 8 × (81920 - 616)
           // The H200 of testdata/gpu/h200, as GFD labels it.
           {"one H200", R"(metadata: {name: node-a, labels: {nvidia.com/gpu.count: "1",
  nvidia.com/gpu.memory: "143771"}})",
            Q("143155Mi")},
           {"time-sliced: replicas share one card's memory",
            R"(metadata: {name: node-a, labels: {nvidia.com/gpu.count: "1", nvidia.com/gpu.replicas: "4",
  nvidia.com/gpu.sharing-strategy: time-slicing, nvidia.com/gpu.memory: "23034"}})",
            Q("22418Mi")},
           {"MPS, count from capacity / replicas",
            R"(metadata: {name: node-a, labels: {nvidia.com/gpu.replicas: "10",
  nvidia.com/gpu.sharing-strategy: mps, nvidia.com/gpu.memory: "15360"}}
status: {capacity: {nvidia.com/gpu: "20"}})",
            Q("29488Mi")},
           // GFD's single MIG strategy: the memory label is the slice's own,
           // which the driver's reserve is not part of.
           {"MIG single strategy: slices of their own memory",
            R"(metadata: {name: node-a, labels: {nvidia.com/gpu.count: "7", nvidia.com/mig.strategy: single,
  nvidia.com/gpu.product: NVIDIA-A100-SXM4-40GB-MIG-1g.5gb, nvidia.com/gpu.memory: "4864"}})",
            Q("34048Mi")},
           {"no memory label", R"(metadata: {name: node-a, labels: {nvidia.com/gpu.count: "2"}})",
            std::nullopt},
           {"no GPU", R"(metadata: {name: node-a, labels: {nvidia.com/gpu.memory: "16384"}})",
            std::nullopt},
           {"zero GPUs", R"(metadata: {name: node-a, labels: {nvidia.com/gpu.count: "0",
  nvidia.com/gpu.memory: "16384"}})",
            std::nullopt},
           {"a product past int64", R"(metadata: {name: node-a, labels: {
  nvidia.com/gpu.count: "9000000000", nvidia.com/gpu.memory: "8000000"}})",
            std::nullopt},
       }) {
    INFO(c.what);
    NodeClass n = Node(c.node);
    std::optional<Quantity> vram = AdvertisedVram(n, H200Model());
    CHECK(vram.has_value() == c.vram.has_value());
    if (vram && c.vram) {
      CHECK(vram->Canonical() == c.vram->Canonical());
      CHECK(vram->format() == QuantityFormat::kBinarySI);
    }
  }
  // With no reserve, what the label says: the model is the only difference.
  NodeClass a100;
  a100.gpu.count = 8;
  a100.gpu.vram_per_gpu = Q("80Gi");
  CHECK(AdvertisedVram(a100, GpuMemoryModel{})->Canonical() == "640Gi");
  // A measured reserve (nvidia-smi's memory.reserved) replaces the policy's.
  a100.gpu.reserved_per_gpu = Q("512Mi");
  CHECK(AdvertisedVram(a100, H200Model())->Canonical() == "636Gi");
  // A reserve past the memory leaves nothing, never less.
  NodeClass tiny;
  tiny.gpu.count = 1;
  tiny.gpu.vram_per_gpu = Q("512Mi");
  CHECK(AdvertisedVram(tiny, H200Model())->is_zero());
}

TEST_CASE("MIG profiles: the resource, and a slice's memory from its label, else the table",
          "[gpu-memory]") {
  CHECK(MigProfileOf("nvidia.com/mig-1g.10gb") == "1g.10gb");
  CHECK(MigProfileOf("nvidia.com/mig-") == "");
  CHECK(MigProfileOf("nvidia.com/gpu") == "");
  CHECK(MigProfileOf("example.com/mig-1g.10gb") == "");

  // GFD's label wins, whatever the table says (an H100 80GB HBM3's 1g.10gb
  // as the GPU Operator's documentation shows it).
  NodeClass labelled = Node(R"(metadata: {name: h100, labels: {nvidia.com/gpu.count: "1",
  nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3, nvidia.com/mig.strategy: mixed,
  nvidia.com/mig-1g.10gb.memory: "9984", nvidia.com/mig-1g.10gb.count: "7"}})");
  std::optional<SliceMemory> m = MigSliceMemory(&labelled, "1g.10gb");
  REQUIRE(m);
  CHECK(m->bytes == Q("9984Mi"));
  CHECK(m->source == "its label nvidia.com/mig-1g.10gb.memory");

  // No label: the table, for the node's card. An A100 80GB's 1g.10gb is
  // smaller than an H100's.
  NodeClass a100 = Node(R"(metadata: {name: a100, labels: {nvidia.com/gpu.count: "1",
  nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB, nvidia.com/mig.strategy: mixed}})");
  m = MigSliceMemory(&a100, "1g.10gb");
  REQUIRE(m);
  CHECK(m->bytes == Q("9728Mi"));
  CHECK(m->source == "NVIDIA-A100-SXM4-80GB: public GFD labels and nvidia-smi mig -lgip outputs");

  // The H200 captured: 1g.18gb is 16 GiB, not 18 GB; 7g.141gb 140 GiB.
  NodeClass h200 = Node(R"(metadata: {name: h200, labels: {nvidia.com/gpu.count: "1",
  nvidia.com/gpu.product: NVIDIA-H200}})");
  CHECK(MigSliceMemory(&h200, "1g.18gb")->bytes == Q("16Gi"));
  CHECK(MigSliceMemory(&h200, "1g.18gb+me")->bytes == Q("16Gi"));
  CHECK(MigSliceMemory(&h200, "7g.141gb")->bytes == Q("140Gi"));
  CHECK(MigSliceMemory(&h200, "3g.71gb")->bytes == Q("71424Mi"));

  // No node, or a card the table does not know: the largest slice of that
  // profile on any card, which the real one is surely not above.
  m = MigSliceMemory(nullptr, "1g.10gb");
  REQUIRE(m);
  CHECK(m->bytes == Q("9984Mi"));
  CHECK(m->source.starts_with("the largest 1g.10gb slice known, "));
  // A compute instance has its GPU instance's memory.
  CHECK(MigSliceMemory(nullptr, "1c.3g.20gb")->bytes == Q("20096Mi"));
  CHECK_FALSE(MigSliceMemory(nullptr, "1g.23gb"));  // B200: no real size in the table
  CHECK_FALSE(MigSliceMemory(&labelled, "9g.99gb"));
  // A label that is no number of MiB does not count.
  NodeClass garbage = Node(R"(metadata: {name: x, labels: {nvidia.com/mig-1g.10gb.memory: "ten"}})");
  CHECK(MigSliceMemory(&garbage, "1g.10gb")->bytes == Q("9984Mi"));
}

// The table is the one docs/gpus.md shows: every row there, and no other.
TEST_CASE("MIG profiles: the table is the documented one", "[gpu-memory]") {
  std::ifstream in(testing::SourceDir() + "/docs/gpus.md");
  REQUIRE(in);
  std::stringstream text;
  text << in.rdbuf();
  std::string doc = text.str();
  std::set<std::string> documented;
  std::regex row(R"(\n\| `(NVIDIA-[^`]+)` \| `([^`]+)` \| (\d+) \|)");
  for (auto it = std::sregex_iterator(doc.begin(), doc.end(), row); it != std::sregex_iterator();
       ++it)
    documented.insert((*it)[1].str() + " " + (*it)[2].str() + " " + (*it)[3].str());
  std::set<std::string> built_in;
  for (const MigProfileSize& r : MigProfileTable())
    built_in.insert(std::string(r.product) + " " + std::string(r.profile) + " " +
                    std::to_string(r.mib));
  CHECK(documented == built_in);
}

// The H200's rows are what its nvidia-smi mig -lgip printed, read here from
// the capture (GiB with two decimals; the H200's are whole quarters).
TEST_CASE("MIG profiles: the H200's rows are its capture's", "[gpu-memory]") {
  std::ifstream in(testing::SourceDir() + "/testdata/gpu/h200/mig-lgip.txt");
  REQUIRE(in);
  std::regex row(R"(^\|\s+0\s+MIG (\S+)\s+\d+\s+\d+/\d+\s+(\d+)\.(\d\d)\s)");
  std::set<std::string> captured;
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (!std::regex_search(line, m, row)) continue;
    std::string profile = m[1].str();
    if (profile.find('+') != std::string::npos) continue;  // media extensions: the same memory
    int64_t hundredths = std::stoll(m[2].str()) * 100 + std::stoll(m[3].str());
    REQUIRE(hundredths % 25 == 0);
    captured.insert(profile + " " + std::to_string(hundredths * 1024 / 100));
  }
  std::set<std::string> table;
  for (const MigProfileSize& r : MigProfileTable())
    if (r.product == "NVIDIA-H200") table.insert(std::string(r.profile) + " " + std::to_string(r.mib));
  CHECK(captured.size() == 6);
  CHECK(captured == table);
}

}  // namespace
}  // namespace gpulint
