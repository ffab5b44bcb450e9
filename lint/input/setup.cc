#include "lint/input/setup.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstdint>
#include <filesystem>
#include <system_error>
#include <utility>

#include "engine/engine.h"
#include "engine/yaml/loader.h"
#include "lint/input/inputs.h"
#include "lint/input/policy_discovery.h"

namespace gpulint {

std::string DisplayName(const std::string& path) {
  return path == "-" ? std::string(kStdinName) : path;
}

bool ReadWhole(const std::string& path, int stdin_fd, size_t max_bytes, std::string* out,
               Error* error) {
  int fd = stdin_fd;
  if (path != "-") {
    fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      *error = Error{path, {}, ErrnoText(errno)};
      return false;
    }
  }
  char buf[65536];
  bool ok = true;
  while (true) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) break;
    if (n < 0) {
      *error = Error{DisplayName(path), {}, "read failed: " + ErrnoText(errno)};
      ok = false;
      break;
    }
    if (out->size() + static_cast<size_t>(n) > max_bytes) {
      *error =
          Error{DisplayName(path), {}, "larger than " + std::to_string(max_bytes >> 20) + " MiB"};
      ok = false;
      break;
    }
    out->append(buf, static_cast<size_t>(n));
  }
  if (fd != stdin_fd) close(fd);
  return ok;
}

bool LoadPath(const std::string& path, int stdin_fd, const LoadLimits& limits,
              const DocumentSink& sink, Error* error) {
  if (path == "-") return LoadYamlFd(stdin_fd, kStdinName, limits, sink, error);
  return LoadYamlFile(path, limits, sink, error);
}

std::vector<InputFile> ManifestInputs(const std::vector<std::string>& paths,
                                      const ExcludePatterns& exclude, std::vector<Error>* errors,
                                      std::vector<PathYield>* yields) {
  std::vector<PathYield> found_by_path;
  std::vector<InputFile> found = ExpandPaths(paths, exclude, errors, &found_by_path);
  std::vector<InputFile> inputs;
  constexpr size_t kDropped = SIZE_MAX;
  std::vector<size_t> kept_at(found.size(), kDropped);  // index in `found` -> in `inputs`
  for (size_t i = 0; i < found.size(); ++i) {
    if (std::filesystem::path(found[i].path).filename() == kPolicyFileName &&
        std::find(paths.begin(), paths.end(), found[i].path) == paths.end())
      continue;
    kept_at[i] = inputs.size();
    inputs.push_back(std::move(found[i]));
  }
  if (yields) {
    for (PathYield& yield : found_by_path) {
      std::vector<size_t> kept;
      for (size_t i : yield.inputs)
        if (kept_at[i] != kDropped) kept.push_back(kept_at[i]);
      yield.inputs = std::move(kept);
    }
    *yields = std::move(found_by_path);
  }
  return inputs;
}

bool RunSetup::Load(const std::string& policy_file, const std::vector<std::string>& nodes_files,
                    int stdin_fd, std::vector<Error>* errors) {
  NodesFile read;
  for (const std::string& path : nodes_files) {
    Error error;
    const size_t before = read.nodes.size() + read.dra.classes.size() + read.dra.slices.size();
    if (!LoadNodesFile(path, stdin_fd, &read, &error)) {
      errors->assign(1, std::move(error));
      return false;
    }
    // An empty inventory would check nothing and pass in silence.
    if (read.nodes.size() + read.dra.classes.size() + read.dra.slices.size() == before) {
      errors->assign(1, Error{DisplayName(path), {},
                              "--nodes: no Node, DeviceClass or ResourceSlice in it; a node "
                              "inventory with no node checks nothing ('kubectl get nodes -o "
                              "yaml' writes one)"});
      return false;
    }
  }
  nodes_ = std::move(read.nodes);
  if (!read.dra.empty()) dra_ = DraInventory::Make(std::move(read.dra));
  const char* env_policy = std::getenv(kPolicyEnvVar);
  env_policy_ = env_policy ? env_policy : "";
  forced_ = !policy_file.empty();
  fixed_ = Get(policy_file, errors);
  return fixed_ != nullptr;
}

const PolicySetup* RunSetup::Get(const std::string& file, std::vector<Error>* errors) {
  auto it = by_file_.find(file);
  if (it != by_file_.end()) return it->second.get();
  auto setup = std::make_unique<PolicySetup>();
  if (file.empty()) {
    setup->name = kBuiltInPolicyName;
    setup->policy = &DefaultPolicy();
  } else {
    if (!LoadPolicyFile(file, &setup->loaded, errors)) return nullptr;
    setup->name = file;
    setup->policy = &setup->loaded;
  }
  setup->inventory = BuildInventory(*setup->policy, nodes_, dra_);
  return by_file_.emplace(file, std::move(setup)).first->second.get();
}

const PolicySetup* RunSetup::PolicyFor(const std::string& input, std::vector<Error>* errors) {
  if (forced_) return fixed_;
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path cwd = fs::current_path(ec);
  // A chart or kustomization (a directory) is looked up from itself.
  fs::path dir = input == "-" ? cwd
                 : fs::is_directory(input, ec)
                     ? (cwd / input).lexically_normal()
                     : (cwd / fs::path(input).parent_path()).lexically_normal();
  auto [it, inserted] = file_by_dir_.try_emplace(dir.string());
  if (inserted) {
    fs::path found = NearestPolicyFile(dir);
    it->second = found.empty() ? env_policy_ : ShownPath(found, cwd);
  }
  return Get(it->second, errors);
}

}  // namespace gpulint
