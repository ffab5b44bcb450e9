// The real-world corpus in testdata/corpus: every file is linted without a
// crash, an I/O error or a hang (ctest's timeout), and the findings the
// corpus notes (SOURCES.md) call for are there.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "engine/base/objects.h"
#include "engine/mutate/mutate.h"
#include "engine/policies.h"
#include "engine/workload/workload.h"
#include "engine/yaml/loader.h"
#include "lint/input/inputs.h"
#include "tests/golden.h"

namespace fs = std::filesystem;

namespace gpulint::testing {
namespace {

fs::path CorpusDir() { return fs::path(SourceDir()) / "testdata" / "corpus"; }

std::vector<fs::path> CorpusFiles() {
  std::vector<fs::path> files;
  // The corpus is part of the repository: a missing one is a broken checkout,
  // not a reason to pass without having looked.
  INFO(CorpusDir().string());
  REQUIRE(fs::is_directory(CorpusDir()));
  for (const auto& e : fs::recursive_directory_iterator(CorpusDir())) {
    std::string ext = e.path().extension().string();
    if (ext == ".yaml" || ext == ".yml" || ext == ".json") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::map<std::string, int> RuleCounts(const std::vector<Finding>& findings) {
  std::map<std::string, int> counts;
  for (const Finding& f : findings) ++counts[f.rule];
  return counts;
}

const Policy& Default() {
  static const Policy* policy = [] {
    auto* p = new Policy();
    Error error;
    if (!LoadPolicyText(DefaultPolicyText(), "<default policy>", p, &error)) FAIL(error.ToString());
    return p;
  }();
  return *policy;
}

std::vector<Finding> Lint(const std::string& relative) {
  Inventory none = BuildInventory(Default(), {});
  return LintFile((CorpusDir() / relative).string(), Default(), none);
}

}  // namespace

TEST_CASE("every corpus file is linted", "[corpus]") {
  auto files = CorpusFiles();
  REQUIRE(files.size() >= 100);
  Inventory none = BuildInventory(Default(), {});
  for (const fs::path& file : files) {
    INFO(file.string());
    for (const Finding& f : LintFile(file.string(), Default(), none)) {
      // Every finding is positioned in the file it came from.
      CHECK(f.file == file.string());
      CHECK(f.mark.line > 0);
      CHECK(!f.message.empty());
    }
  }
}

// No silent passes: every object that holds containers is checked. The
// corpus's other kinds (Services, ConfigMaps, ResourceClaimTemplates,
// DeviceClasses, ComputeDomains, Volcano Queues, HPAs, RBAC) hold none.
TEST_CASE("every corpus object that holds containers is checked", "[corpus]") {
  Inventory none = BuildInventory(Default(), {});
  size_t objects = 0, checked = 0;
  std::vector<std::string> not_checked;
  for (const fs::path& file : CorpusFiles()) {
    Error error;
    bool ok = LoadYamlFile(
        file.string(), LoadLimits(),
        [&](Document&& doc) {
          if (!doc.ok) return true;
          ForEachObject(doc.root, [&](const Value& object) {
            if (!object.is_mapping()) return;
            ++objects;
            Coverage coverage;
            Evaluate(object, file.string(), Default(), none, nullptr, &coverage);
            if (coverage == Coverage::kChecked) ++checked;
            if (coverage == Coverage::kNotChecked)
              not_checked.push_back(file.filename().string() + ": " +
                                    std::string(object.StringAt("kind")));
          });
          return true;
        },
        &error);
    INFO(error.ToString());
    REQUIRE(ok);
  }
  WARN("corpus: " << objects << " objects, " << checked << " checked, " << not_checked.size()
                  << " not checked");
  CHECK(not_checked == std::vector<std::string>{});
  // Pods, workloads and every CRD that carries them (the TrainJob's trainer included).
  CHECK(checked == 121);
}

TEST_CASE("corpus files get the findings their notes call for", "[corpus]") {
  INFO(CorpusDir().string());
  REQUIRE(fs::is_directory(CorpusDir()));
  // tag 1.0.0-beta4: extensions/v1beta1 DaemonSet + critical-pod annotation (incident 5).
  auto old_plugin = RuleCounts(Lint("NVIDIA__k8s-device-plugin/extensions-v1beta1-nvidia-device-plugin.yml"));
  CHECK(old_plugin["removed-api-version"] == 1);
  CHECK(old_plugin["removed-annotation"] == 1);
  // apps/v1 DaemonSet that still carries the critical-pod annotation.
  auto beta4 = RuleCounts(Lint("NVIDIA__k8s-device-plugin/nvidia-device-plugin.yml"));
  CHECK(beta4["removed-api-version"] == 0);
  CHECK(beta4["removed-annotation"] == 1);
  // A document with a value where a key belongs: reported, nothing else lost.
  auto broken = RuleCounts(Lint("kserve__kserve/docs__samples__v1beta1__custom__torchserve__gpu.yaml"));
  CHECK(broken["parse-error"] == 1);
  // The MPI master runs the workers' GPU image with no GPU limit: the CPU
  // part of a GPU workload, which the author kept off the GPUs, not reported.
  auto mindspore = RuleCounts(Lint("volcano-sh__volcano/example__MindSpore-example__mindspore_gpu__mindspore-gpu.yaml"));
  CHECK(mindspore["gpu-limit-missing"] == 0);
  // Placeholders left for envsubst are not quantities.
  auto fsdp = RuleCounts(Lint("aws-samples__awsome-distributed-training/3.test_cases__pytorch__FSDP__kubernetes__llama3_1_8b-fsdp.yaml"));
  CHECK(fsdp["quantity-invalid"] == 4);
  // DRA (resource.k8s.io/v1): the templates come first in each file, so the
  // claims resolve; MIG slices and whole GPUs, none with a memory limit.
  auto mig = RuleCounts(Lint("NVIDIA__k8s-dra-driver-gpu/demo__specs__quickstart__v1__gpu-test4.yaml"));
  CHECK(mig["memory-limit-missing"] == 4);
  CHECK(mig["dra-claim-unresolved"] == 0);
  auto rct = RuleCounts(Lint("NVIDIA__k8s-dra-driver-gpu/tests__bats__specs__gpu-job-rct.yaml"));
  CHECK(rct["memory-limit-missing"] == 1);
  CHECK(rct["dra-claim-unresolved"] == 0);
  // The current static device plugin is clean of removed APIs.
  auto current = RuleCounts(Lint("NVIDIA__k8s-device-plugin/deployments__static__nvidia-device-plugin.yml"));
  CHECK(current["removed-api-version"] == 0);
  CHECK(current["parse-error"] == 0);
}

// The node agents of the corpus: device plugins (NVIDIA's static manifests
// old and new, GKE's, Azure's, gpushare, Volcano and HAMi's vGPU), the GPU
// Operator's device plugin, dcgm-exporter and MPS daemon, GKE's driver
// installer, GPU partitioner and NCCL installer. Before, the hide-GPUs
// mutation wrote NVIDIA_VISIBLE_DEVICES=void into most of them, and the
// device plugin's node then advertised no GPU.
TEST_CASE("corpus node agents are neither mutated nor blamed", "[corpus][node-agent]") {
  const std::vector<std::string> agents = {
      "AliyunContainerService__gpushare-device-plugin/device-plugin-ds.yaml",
      "GoogleCloudPlatform__container-engine-accelerators/cmd__nvidia_gpu__device-plugin.yaml",
      "GoogleCloudPlatform__container-engine-accelerators/daemonset.yaml",
      "GoogleCloudPlatform__container-engine-accelerators/nvidia-driver-installer__minikube__daemonset.yaml",
      "GoogleCloudPlatform__container-engine-accelerators/partition_gpu__partition_gpu.yaml",
      "GoogleCloudPlatform__kubernetes-engine-samples/ai-ml__nemo-rl-on-gke__nemoRL__nccl-installer__nccl-installer.yaml",
      "NVIDIA__gpu-operator/assets__state-dcgm-exporter__0800_daemonset.yaml",
      "NVIDIA__gpu-operator/assets__state-device-plugin__0500_daemonset.yaml",
      "NVIDIA__gpu-operator/assets__state-mps-control-daemon__0400_daemonset.yaml",
      "NVIDIA__k8s-device-plugin/deployments__static__nvidia-device-plugin-compat-with-cpumanager.yml",
      "NVIDIA__k8s-device-plugin/deployments__static__nvidia-device-plugin-privileged-with-service-account.yml",
      "NVIDIA__k8s-device-plugin/deployments__static__nvidia-device-plugin.yml",
      "NVIDIA__k8s-device-plugin/extensions-v1beta1-nvidia-device-plugin.yml",
      "NVIDIA__k8s-device-plugin/nvidia-device-plugin.yml",
      "Project-HAMi__volcano-vgpu-device-plugin/deployments__static__volcano-vgpu-device-plugin.yml",
      "vllm-project__production-stack/deployment_on_cloud__azure__nvidia-device-plugin-ds.yaml",
      "volcano-sh__devices/volcano-device-plugin.yml",
  };
  Inventory none = BuildInventory(Default(), {});
  for (const std::string& relative : agents) {
    INFO(relative);
    size_t daemon_sets = 0;
    Error error;
    REQUIRE(LoadYamlFile((CorpusDir() / relative).string(), LoadLimits(),
                         [&](Document&& doc) {
                           ForEachObject(doc.root, [&](const Value& object) {
                             if (object.StringAt("kind") != "DaemonSet") return;
                             ++daemon_sets;
                             for (const PodInfo& pod : ExtractPods(object, Default(), none))
                               CHECK(!pod.node_agent.empty());
                             CHECK(PatchToJson(Mutate(object, Default(), none)) == "[]");
                           });
                           return true;
                         },
                         &error));
    CHECK(daemon_sets > 0);
    for (const Finding& f : Lint(relative)) {
      INFO(f.message);
      CHECK(f.rule != "gpu-limit-missing");
      CHECK(f.rule != "gpu-visibility-bypass");
    }
  }
  // A workload is still a workload: the GPU-less benchmark client beside a
  // GPU container gets its GPUs hidden.
  Error error;
  size_t patched = 0;
  REQUIRE(LoadYamlFile(
      (CorpusDir() / "Project-HAMi__HAMi/benchmarks__deployments__job-on-nvidia-device-plugin.yml")
          .string(),
      LoadLimits(),
      [&](Document&& doc) {
        ForEachObject(doc.root, [&](const Value& object) {
          for (const PatchOp& op : Mutate(object, Default(), none))
            patched += op.path.find("/env") != std::string::npos;
        });
        return true;
      },
      &error));
  CHECK(patched == 1);
}

// Third-party files travel with their licences: every project SOURCES.md
// names has its licence text in LICENSES/.
TEST_CASE("every corpus project's licence text is in the corpus", "[corpus]") {
  std::ifstream sources(CorpusDir() / "SOURCES.md");
  REQUIRE(sources);
  std::set<std::string> repos;
  for (std::string line; std::getline(sources, line);) {
    // | # | saved name | repo | ...: the repository is the third cell.
    if (line.rfind("| ", 0) != 0 || line.size() < 3 || !std::isdigit(line[2])) continue;
    size_t start = 0;
    for (int cell = 0; cell < 3; ++cell) start = line.find('|', start) + 1;
    std::string repo = line.substr(start, line.find('|', start) - start);
    repo = repo.substr(repo.find_first_not_of(' '));
    repos.insert(repo.substr(0, repo.find_last_not_of(' ') + 1));
  }
  CHECK(repos.size() == 23);
  for (std::string repo : repos) {
    repo.replace(repo.find('/'), 1, "__");
    INFO(repo);
    CHECK(fs::is_regular_file(CorpusDir() / "LICENSES" / (repo + ".LICENSE")));
  }
}

}  // namespace gpulint::testing
